#!/usr/bin/env python3
"""A small TextMate-grammar tokenizer for gnn.tmLanguage.json.

Enough of TextMate's rules for this grammar: `include`s of the repository,
`match` rules with `captures`, and `begin`/`end` rules (which may span lines
and nest) with `beginCaptures` and nested `patterns`. At each position the
rule matching earliest wins; ties go to the end of the open rule, then to the
rule listed first, as in TextMate. Used by the grammar's lit
test (test/Tools/editor) and by render-highlight.py.

  tmgrammar.py GRAMMAR FILE    prints `line:col scope text` for each token
"""
import json
import re
import sys


class Grammar:
    def __init__(self, path):
        with open(path) as f:
            self.data = json.load(f)
        self.rules = self._flatten(self.data["patterns"])

    def _flatten(self, patterns):
        out = []
        for p in patterns:
            if "include" in p:
                out += self._flatten(
                    self.data["repository"][p["include"][1:]]["patterns"])
            else:
                rule = dict(p)
                for key in ("match", "begin", "end"):
                    if key in rule:
                        rule[key + "_re"] = re.compile(rule[key])
                out.append(rule)
        return out

    def _inner(self, rule):
        # Flattened when first needed: a rule's patterns may include the
        # repository entry that holds the rule (nested parentheses).
        if "inner" not in rule:
            rule["inner"] = self._flatten(rule.get("patterns", []))
        return rule["inner"]

    def tokenize(self, text):
        """Yields (line, column, scope, text) for each scoped token (1-based)."""
        # Open begin/end rules, innermost last. One with a `name` (a string,
        # a block comment) is opaque: its text up to the end is one token.
        # One without (a train block) scopes nothing itself: its own
        # `patterns` tokenize its text until its end matches.
        stack = []
        for ln, line in enumerate(text.split("\n"), 1):
            pos = 0
            while pos <= len(line):
                top = stack[-1] if stack else None
                if top is not None and "name" in top:
                    end = self._search_end(top, line, pos)
                    stop = end.end() if end else len(line)
                    if stop > pos:
                        yield ln, pos + 1, top["name"], line[pos:stop]
                    pos = stop
                    if end is None:
                        break
                    stack.pop()
                    if end.end() == end.start() and pos >= len(line):
                        break
                    continue
                rules = self._inner(top) if top is not None else self.rules
                end = top["end_re"].search(line, pos) if top else None
                best = None
                for rule in rules:
                    regex = rule.get("match_re") or rule.get("begin_re")
                    m = regex.search(line, pos)
                    if m and (best is None or m.start() < best[1].start()):
                        best = (rule, m)
                # The end wins a tie, as TextMate tries it first.
                if end is not None and (best is None or
                                        end.start() <= best[1].start()):
                    stack.pop()
                    pos = max(end.end(), pos + 1)
                    continue
                if best is None or best[1].end() == best[1].start():
                    break
                rule, m = best
                captures = rule.get("captures") or rule.get("beginCaptures")
                if captures:
                    for group, cap in captures.items():
                        if m.group(int(group)):
                            yield (ln, m.start(int(group)) + 1, cap["name"],
                                   m.group(int(group)))
                elif "name" in rule:
                    yield ln, m.start() + 1, rule["name"], m.group()
                pos = m.end()
                if "begin_re" in rule:
                    stack.append(rule)
                    if "name" in rule and pos >= len(line):
                        # The rule may end at this line's end (strings).
                        if rule["end_re"].search(line, pos) is not None:
                            stack.pop()
                        break

    def _search_end(self, rule, line, pos):
        # Escapes inside (strings) are skipped over before the end.
        inner = self._inner(rule)
        while True:
            end = rule["end_re"].search(line, pos)
            skip = None
            for r in inner:
                m = r["match_re"].search(line, pos)
                if m and (end is None or m.start() < end.start()):
                    skip = m
                    break
            if skip is None:
                return end
            pos = skip.end()


def main():
    grammar = Grammar(sys.argv[1])
    with open(sys.argv[2]) as f:
        text = f.read()
    for ln, col, scope, tok in grammar.tokenize(text):
        print("%d:%d %s %s" % (ln, col, scope, tok))


if __name__ == "__main__":
    main()
