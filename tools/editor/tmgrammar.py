#!/usr/bin/env python3
"""A small TextMate-grammar tokenizer for gnn.tmLanguage.json.

Enough of TextMate's rules for this grammar: `include`s of the repository,
`match` rules with `captures`, and `begin`/`end` rules (which may span lines)
with nested `patterns`. At each position the rule matching earliest wins;
ties go to the rule listed first, as in TextMate. Used by the grammar's lit
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
                if "patterns" in rule:
                    rule["inner"] = self._flatten(rule["patterns"])
                out.append(rule)
        return out

    def tokenize(self, text):
        """Yields (line, column, scope, text) for each scoped token (1-based)."""
        open_rule = None  # A begin/end rule still open at a line's end.
        for ln, line in enumerate(text.split("\n"), 1):
            pos = 0
            while pos <= len(line):
                if open_rule is not None:
                    end = self._search_end(open_rule, line, pos)
                    stop = end.end() if end else len(line)
                    if stop > pos:
                        yield ln, pos + 1, open_rule["name"], line[pos:stop]
                    pos = stop
                    if end is None:
                        break
                    open_rule = None
                    if end.end() == end.start() and pos >= len(line):
                        break
                    continue
                best = None
                for rule in self.rules:
                    regex = rule.get("match_re") or rule.get("begin_re")
                    m = regex.search(line, pos)
                    if m and (best is None or m.start() < best[1].start()):
                        best = (rule, m)
                if best is None or best[1].end() == best[1].start():
                    break
                rule, m = best
                if "match_re" in rule:
                    if "captures" in rule:
                        for group, cap in rule["captures"].items():
                            if m.group(int(group)):
                                yield (ln, m.start(int(group)) + 1,
                                       cap["name"], m.group(int(group)))
                    else:
                        yield ln, m.start() + 1, rule["name"], m.group()
                    pos = m.end()
                else:
                    open_rule = rule
                    yield ln, m.start() + 1, rule["name"], m.group()
                    pos = m.end()
                    if pos >= len(line):
                        # The rule may end at this line's end (strings).
                        end = rule["end_re"].search(line, pos)
                        if end is not None:
                            open_rule = None
                        break

    @staticmethod
    def _search_end(rule, line, pos):
        # Escapes inside (strings) are skipped over before the end.
        inner = rule.get("inner", [])
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
