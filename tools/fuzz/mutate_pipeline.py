#!/usr/bin/env python3
"""Mutation fuzzing of the whole gnnc pipeline, past the front end.

gnn-fuzz-frontend (libFuzzer) covers the lexer, parser and Sema; most random
bytes never get past them. This driver starts from programs that compile (the
examples' and the tests' .gnn files), changes one to three tokens of one (a
number for an edge value, an identifier for another of the program's, a token
deleted, doubled or moved) and runs the real gnnc on the result, so mutants
that still type-check go through MLIRGen, every pass and both emitters:

  * --emit=cpp and --target=cuda --emit=cuda: any exit other than 0 (accepted)
    or 1 (diagnosed), a signal, a timeout, or an LLVM crash banner is a failure;
  * every EXE_EVERY-th accepted mutant is also built into a trainer
    (--emit=exe): generated C++ that the host compiler rejects is a failure.

Failures are written to OUT/pipeline-<n>.gnn with the command that failed.
Exit status: 0 if none failed, 1 otherwise.

  tools/fuzz/mutate_pipeline.py [--seconds S | --count N] [--seed N] [--exe-every K]
                                [--gnnc PATH] [--out DIR]
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKEN = re.compile(r'[A-Za-z_][A-Za-z_0-9]*|\d+\.\d*(?:[eE][-+]?\d+)?|\d+|"[^"\n]*"|\S')
IDENT = re.compile(r'[A-Za-z_]')
# Values at the edges of what shapes, fanouts, rates and counts accept.
NUMBERS = ['0', '1', '2', '3', '-1', '65536', '100000000000', '0.0', '-0.5', '1e30']
PUNCTUATION = [',', '(', ')', '[', ']', '=', '*', '-', '.']
CRASH_BANNERS = ('Stack dump', 'LLVM ERROR', 'PLEASE submit a bug report',
                 'Assertion', 'AddressSanitizer', 'terminate called')


def seed_programs(gnnc):
    """The .gnn files under examples/, test/ and docs/ that compile as they are."""
    found = []
    for top in ('examples', 'test', 'docs'):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            found += [os.path.join(dirpath, f) for f in files
                      if f.endswith('.gnn') and not f.startswith('.')]
    return [p for p in sorted(found) if compile_to(gnnc, p, ['--emit=cpp'])[0] == 0]


def compile_to(gnnc, path, args, timeout=60):
    """Runs gnnc in the program's directory (datasets are relative to it).
    Output goes to a scratch file, never os.devnull: a linker run by root
    replaces its output file, and /dev/null would become the trainer."""
    with tempfile.TemporaryDirectory(prefix='gnnc-mutant-') as scratch:
        try:
            run = subprocess.run([gnnc, path, '-o', os.path.join(scratch, 'out')] + args,
                                 capture_output=True, text=True, timeout=timeout,
                                 cwd=os.path.dirname(path))
            return run.returncode, run.stderr
        except subprocess.TimeoutExpired:
            return 'timeout', ''


def mutate(text, rng):
    for _ in range(rng.randint(1, 3)):
        tokens = [(m.start(), m.end(), m.group()) for m in TOKEN.finditer(text)]
        if not tokens:
            break
        idents = sorted({t for _, _, t in tokens if IDENT.match(t)}) or ['x']
        begin, end, token = rng.choice(tokens)
        roll = rng.random()
        if token[0].isdigit() and roll < 0.6:
            new = rng.choice(NUMBERS)
        elif roll < 0.3:
            new = rng.choice(idents)
        elif roll < 0.45:
            new = ''
        elif roll < 0.6:
            new = token + ' ' + token
        elif roll < 0.75:
            new = rng.choice(tokens)[2]
        else:
            new = rng.choice(NUMBERS + PUNCTUATION + idents)
        text = text[:begin] + new + text[end:]
    return text


def failed(status, stderr):
    if status == 'timeout' or status not in (0, 1):
        return True
    return any(banner in stderr for banner in CRASH_BANNERS)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--seconds', type=float, default=60)
    parser.add_argument('--count', type=int, default=0,
                        help='stop after this many mutants (the same ones for a seed)')
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--exe-every', type=int, default=10,
                        help='build every K-th accepted mutant into a trainer (0: never)')
    parser.add_argument('--gnnc', default=os.path.join(ROOT, 'build', 'bin', 'gnnc'))
    parser.add_argument('--out', default=os.path.join(ROOT, 'fuzz-build', 'artifacts'))
    options = parser.parse_args()

    seeds = seed_programs(options.gnnc)
    if not seeds:
        sys.exit(f'mutate_pipeline.py: no seed program compiles with {options.gnnc}')
    rng = random.Random(options.seed)
    deadline = time.monotonic() + options.seconds
    mutants = accepted = built = failures = 0
    while (mutants < options.count if options.count else time.monotonic() < deadline):
        origin = rng.choice(seeds)
        with open(origin) as f:
            text = mutate(f.read(), rng)
        mutants += 1
        # Beside its origin, so its relative dataset paths and imports resolve.
        fd, path = tempfile.mkstemp(suffix='.gnn', prefix='.mutant-',
                                    dir=os.path.dirname(origin))
        with os.fdopen(fd, 'w') as f:
            f.write(text)
        try:
            runs = [['--emit=cpp'], ['--target=cuda', '--emit=cuda'], ['--emit=exe']]
            for args in runs:
                if args == runs[2]:
                    # Only accepted programs get here; build one in K.
                    if not options.exe_every or accepted % options.exe_every:
                        break
                    built += 1
                status, stderr = compile_to(options.gnnc, path, args, timeout=300)
                if args == runs[0]:
                    accepted += status == 0
                if failed(status, stderr) or (args == runs[2] and status != 0):
                    failures += 1
                    os.makedirs(options.out, exist_ok=True)
                    report = os.path.join(options.out, f'pipeline-{options.seed}-{mutants}.gnn')
                    with open(report, 'w') as f:
                        f.write(f'// gnnc {" ".join(args)} -> {status}; mutant of '
                                f'{os.path.relpath(origin, ROOT)}\n{text}')
                    tail = stderr.strip().splitlines()[-3:]
                    print(f'FAILED: gnnc {" ".join(args)} exit {status}: {report}', *tail,
                          sep='\n  ', flush=True)
                if args == runs[0] and status != 0:
                    break  # rejected: the CUDA front half is the same front end
        finally:
            os.remove(path)
    print(f'mutate_pipeline.py: {mutants} mutants of {len(seeds)} programs, {accepted} '
          f'accepted, {built} built into trainers, {failures} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
