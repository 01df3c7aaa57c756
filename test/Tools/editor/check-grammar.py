#!/usr/bin/env python3
"""Checks the editor files against the language (grammar.test).

The TextMate grammar must be valid JSON whose regexes compile; its builtin
function and keyword lists must match lang/lib/Builtins.cpp and lang/Gnn.g4,
and so must the Vim syntax file's; neither names a train setting or an
optimizer (runtime/include/gnnrt/train/TrainSettings.def): a train block's
keys and calls are matched whatever their names, so a new setting needs no
edit here. The VS Code manifest must point at the grammar by its scope name.
Prints one line per check; exits 1 on a mismatch.
"""
import json
import os
import re
import sys

src = sys.argv[1]
editor = os.path.join(src, "tools", "editor")
failed = False


def check(ok, what):
    global failed
    print(("ok: " if ok else "FAILED: ") + what)
    failed |= not ok


grammar = json.load(open(os.path.join(editor, "gnn.tmLanguage.json")))
regexes = []


def collect(node):
    if isinstance(node, dict):
        for key in ("match", "begin", "end"):
            if key in node:
                regexes.append(node[key])
        for value in node.values():
            collect(value)
    elif isinstance(node, list):
        for value in node:
            collect(value)


collect(grammar)
for r in regexes:
    re.compile(r)
check(grammar["scopeName"] == "source.gnn", "scopeName is source.gnn")
print("ok: %d regexes compile" % len(regexes))

table = open(os.path.join(src, "lang", "lib", "Builtins.cpp")).read()
builtins = set(re.findall(r'\{"([a-z_0-9]+)",\s*\n\s*C::', table)) | set(
    re.findall(r'\{"([a-z_0-9]+)", C::', table))
# The builtins that lower to gnn ops are named in their one list.
ops = open(os.path.join(src, "lang", "include", "gnn", "lang",
                        "BuiltinOps.def")).read()
builtins |= set(re.findall(r"^GNN_BUILTIN_OP\(\w+, ([a-z_0-9]+), \w+\)",
                           ops, re.M))
g4 = open(os.path.join(src, "lang", "Gnn.g4")).read()
keywords = set(re.findall(r"^[A-Z]+\s*:\s*'([a-z]+)'\s*;", g4, re.M))
text = json.dumps(grammar)
vim = open(os.path.join(editor, "vim", "syntax", "gnn.vim")).read()
for name, words in (("builtin", builtins), ("keyword", keywords)):
    missing = sorted(w for w in words if not re.search(r"\b%s\b" % w, text))
    check(not missing, "grammar has every %s (%d)%s" % (
        name, len(words), ": missing " + " ".join(missing) if missing else ""))
    missing = sorted(w for w in words if not re.search(r"\b%s\b" % w, vim))
    check(not missing, "vim syntax has every %s%s" % (
        name, ": missing " + " ".join(missing) if missing else ""))

records = open(os.path.join(src, "runtime", "include", "gnnrt", "train",
                            "TrainSettings.def")).read()
settings = set(re.findall(r"^GNN_TRAIN_(?:SETTING|OPTIMIZER)\(([a-z_0-9]+),",
                          records, re.M))
# `every 10 epochs`: epochs is also the unit of `every`, a word the grammars
# know as such.
settings.discard("epochs")
for name, text in (("grammar", json.dumps(grammar)), ("vim syntax", vim)):
    named = sorted(w for w in settings if re.search(r"\b%s\b" % w, text))
    check(settings and not named,
          "%s names no train setting or optimizer (%d)%s" % (
              name, len(settings), ": " + " ".join(named) if named else ""))

manifest = json.load(open(os.path.join(editor, "vscode", "package.json")))
g = manifest["contributes"]["grammars"][0]
path = os.path.join(editor, "vscode", g["path"])
check(g["scopeName"] == grammar["scopeName"] and
      json.load(open(path)) == grammar,
      "package.json points at the grammar")
check(manifest["contributes"]["languages"][0]["extensions"] == [".gnn"],
      "package.json claims .gnn files")
sys.exit(1 if failed else 0)
