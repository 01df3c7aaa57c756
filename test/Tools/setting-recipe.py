#!/usr/bin/env python3
"""Keeps docs/architecture.md's "Adding a train setting" recipe honest.

Reads the records of runtime/include/gnnrt/train/TrainSettings.def and the
recipe's two file lists. The files the recipe says a new setting needs no
edit in must spell none of the settings the compiler and the trainer carry
generically (EMIT Always or IfGiven): not the key, not the TrainSettings
field, not the trainer's flag; and no optimizer name. The issue's own
measures are checked too: comm_timeout spelled in at most 5 source files,
the optimizers' names in one. Prints one line per check; exits 1 on a
failure.

  setting-recipe.py SOURCE_DIR
"""
import os
import re
import subprocess
import sys

src = sys.argv[1]
failed = False


def check(ok, what):
    global failed
    print(("ok: " if ok else "FAILED: ") + what)
    failed |= not ok


def records(text, macro):
    """The argument lists of every `macro(...)` call at a line's start."""
    out = []
    for m in re.finditer(r"^%s\(" % macro, text, re.M):
        args, arg, depth, i, in_string = [], "", 0, m.end(), False
        while True:
            c = text[i]
            if in_string:
                arg += c
                if c == "\\":
                    arg += text[i + 1]
                    i += 1
                elif c == '"':
                    in_string = False
            elif c == '"':
                in_string = True
                arg += c
            elif c in "([":
                depth += 1
                arg += c
            elif c in ")]" and depth > 0:
                depth -= 1
                arg += c
            elif c == ")" or (c == "," and depth == 0):
                args.append(arg.strip())
                arg = ""
                if c == ")":
                    break
            else:
                arg += c
            i += 1
        # Adjacent string literals are one.
        out.append([re.sub(r'"\s+"', "", a) for a in args])
    return out


def unquote(s):
    return s[1:-1] if s.startswith('"') else s


defs = open(os.path.join(src, "runtime", "include", "gnnrt", "train",
                         "TrainSettings.def")).read()
# The macro definitions' own parameter lists are not records.
body = defs[defs.index("#endif\n\nGNN_TRAIN_OPTIMIZER("):]
settings = records(body, "GNN_TRAIN_SETTING")
fields = {r[0]: r for r in records(body, "GNN_TRAIN_FIELD")}
optimizers = [r[0] for r in records(body, "GNN_TRAIN_OPTIMIZER")]
generic = [s for s in settings if s[3] in ("Always", "IfGiven")]
check(len(generic) >= 5 and all(s[0] in fields for s in generic),
      "%d generic settings, each with its TrainSettings field" % len(generic))

# The recipe: "- `path`" items of the two lists under its heading.
doc = open(os.path.join(src, "docs", "architecture.md")).read()
recipe = doc[doc.index("### Adding a train setting"):]
recipe = recipe[:recipe.index("\n### ", 1)] if "\n### " in recipe[1:] \
    else recipe
touched_text, untouched_text = recipe.split("needs no edit")[:2]
touched = re.findall(r"^- `([^`]+)`", touched_text, re.M)
untouched = re.findall(r"^- `([^`]+)`", untouched_text, re.M)
check(touched and untouched and all(
    os.path.exists(os.path.join(src, f)) for f in touched + untouched),
      "the recipe lists %d files a setting touches and %d it needs no edit in"
      % (len(touched), len(untouched)))

# A single lower-case word (seed, loss, epochs) is an ordinary word of other
# code too; such a key or field is checked by its flag only. Multi-word
# spellings (comm_timeout, commTimeout) and flags (--epochs) are checked.
def distinctive(word):
    return bool(word) and (word.startswith("--") or "_" in word or
                           word != word.lower())


def words(setting):
    key, field = setting[0], fields[setting[0]][1]
    flag = unquote(fields[setting[0]][4])
    return {w for w in (key, field, flag) if distinctive(w)}


for f in untouched:
    text = open(os.path.join(src, f)).read()
    spelled = sorted({w for s in generic for w in words(s)
                      if re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(w),
                                   text)})
    check(not spelled, "%s spells no setting%s" % (
        f, ": " + " ".join(spelled) if spelled else ""))

# The measures, over the sources (tests, docs and the fuzzer's
# seed programs excluded).
roots = ["lang", "compiler", "runtime", "tools", "stdlib", "examples", "bench"]
listing = subprocess.run(["git", "-C", src, "ls-files"] + roots,
                         capture_output=True, text=True)
if listing.returncode == 0:
    files = listing.stdout.split()
else:  # not a git checkout: every file under the roots
    files = [os.path.relpath(os.path.join(d, f), src)
             for r in roots for d, _, names in os.walk(os.path.join(src, r))
             for f in names]
files = [f for f in files if not f.startswith("tools/fuzz/corpus") and
         not f.endswith(".md")]


def spelling(pattern):
    return [f for f in files
            if re.search(pattern, open(os.path.join(src, f),
                                       errors="replace").read())]


timeout = spelling(r"comm_timeout|commTimeout|comm-timeout")
check(len(timeout) <= 5, "comm_timeout is spelled in %d files: %s" % (
    len(timeout), " ".join(timeout)))
adamw = spelling(r"adamw")
check(len(adamw) == 1, "the optimizers' names are spelled in %d file: %s" % (
    len(adamw), " ".join(adamw)))
sys.exit(1 if failed else 0)
