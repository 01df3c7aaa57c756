#!/usr/bin/env python3
"""Checks the limits that keep the codebase readable (docs/architecture.md,
"Keeping the shape"): no source file over 900 lines, no function over 200
lines, no runtime folder over 15 sources. Prints one line per violation as
`path:line: what` and exits 1 when there is any; `--report` prints the
largest of each kind as well.

Functions are found by brace matching on the text with comments, strings and
character literals blanked: a `{` opened at file, namespace, class or
`extern` scope whose preceding text ends like a function head (a `)` maybe
followed by qualifiers, a trailing return type or a constructor's member
initializers) opens a function body. That is a heuristic, not a C++ parser,
but it is exact on this codebase's style (clang-format, no macros that open
bodies)."""
import argparse
import os
import re
import sys

SOURCE_SUFFIXES = ('.cpp', '.h', '.cu', '.cuh', '.def', '.td', '.inc')
CPP_SUFFIXES = ('.cpp', '.h', '.cu', '.cuh')
FILE_LIMIT = 900
FUNCTION_LIMIT = 200
FOLDER_LIMIT = 15
ROOTS = ('lang', 'compiler', 'runtime', 'tools', 'stdlib', 'test', 'bench')
SKIP_DIRS = {'antlr', '__pycache__'}


def blank_comments_and_strings(text):
    """Replaces comments, string and char literals with spaces, keeping
    newlines so line numbers stay right."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ')' + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + re.sub(r'[^\n]', ' ', text[i + 2:j]))
            i = j
        elif c in '"\'':
            # A digit separator (1'000) is not a char literal.
            if c == "'" and i > 0 and text[i - 1].isalnum():
                out.append(c)
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(c + ' ' * (j - i - 2) + c if j - i >= 2 else c)
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


FUNCTION_HEAD = re.compile(
    r'\)\s*(?:const\s*|override\s*|final\s*|noexcept(?:\([^()]*\))?\s*|'
    r'mutable\s*|&&?\s*|->\s*[\w:<>,&*\s]+?\s*)*'
    r'(?::\s*[\w:<>,.\s]+[({][^;{}]*[)}](?:\s*,\s*[\w:<>.]+\s*[({][^;{}]*[)}])*\s*)?$')
SCOPE_HEAD = re.compile(r'\b(namespace|class|struct|union|enum|extern)\b[^;()]*$|'
                        r'^\s*$')


def functions(path):
    """Yields (name, first line, line count) of each function body."""
    with open(path, encoding='utf-8', errors='replace') as f:
        text = blank_comments_and_strings(f.read())
    stack = []  # (kind, start offset, head text)
    last_stmt = 0
    for m in re.finditer(r'[{};]', text):
        c, pos = m.group(), m.start()
        head = text[last_stmt:pos]
        if c == '{':
            in_scope = all(kind == 'scope' for kind, _, _ in stack)
            stripped = re.sub(r'^\s*#.*$', '', head, flags=re.M)
            if in_scope and FUNCTION_HEAD.search(stripped.rstrip()) and \
                    not re.search(r'\b(class|struct|enum|namespace)\b\s*\w*\s*(:[^()]*)?$',
                                  stripped.rstrip()):
                stack.append(('function', pos, stripped))
            elif in_scope and (SCOPE_HEAD.search(stripped) or
                               stripped.rstrip().endswith('=')):
                kind = 'scope' if SCOPE_HEAD.search(stripped) else 'init'
                stack.append((kind, pos, stripped))
            else:
                stack.append(('block', pos, stripped))
            last_stmt = pos + 1
        elif c == '}':
            if stack:
                kind, start, h = stack.pop()
                if kind == 'function':
                    first = text.count('\n', 0, start) + 1
                    last = text.count('\n', 0, pos) + 1
                    name = re.search(r'([~\w:<>=!+\-*/\[\]]+)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)',
                                     h)
                    yield (name.group(1) if name else '?', first, last - first + 1)
            last_stmt = pos + 1
        else:
            if not stack or stack[-1][0] != 'block':
                last_stmt = pos + 1
            else:
                last_stmt = pos + 1


def source_files(root):
    for top in ROOTS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in sorted(filenames):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.join(dirpath, name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('root', nargs='?', default='.')
    parser.add_argument('--report', action='store_true',
                        help='also print the ten largest files, functions and folders')
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    problems = []
    files, funcs, folders = [], [], {}
    for path in source_files(root):
        rel = os.path.relpath(path, root)
        with open(path, encoding='utf-8', errors='replace') as f:
            lines = sum(1 for _ in f)
        files.append((lines, rel))
        if lines > FILE_LIMIT:
            problems.append(f'{rel}:1: {lines} lines (at most {FILE_LIMIT})')
        if rel.startswith('runtime' + os.sep):
            folders.setdefault(os.path.dirname(rel), []).append(rel)
        if path.endswith(CPP_SUFFIXES):
            for name, first, count in functions(path):
                funcs.append((count, f'{rel}:{first}', name))
                if count > FUNCTION_LIMIT:
                    problems.append(f'{rel}:{first}: function {name} is {count} '
                                    f'lines (at most {FUNCTION_LIMIT})')
    for folder, members in sorted(folders.items()):
        if len(members) > FOLDER_LIMIT:
            problems.append(f'{folder}:1: {len(members)} sources in one folder '
                            f'(at most {FOLDER_LIMIT})')
    if args.report:
        print('largest files:')
        for lines, rel in sorted(files, reverse=True)[:10]:
            print(f'  {lines:5d} {rel}')
        print('largest functions:')
        for count, where, name in sorted(funcs, reverse=True)[:10]:
            print(f'  {count:5d} {where} {name}')
        print('fullest runtime folders:')
        for folder, members in sorted(folders.items(), key=lambda kv: -len(kv[1]))[:10]:
            print(f'  {len(members):5d} {folder}')
    for p in problems:
        print(p)
    if problems:
        print(f'code-shape: {len(problems)} over the limits', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
