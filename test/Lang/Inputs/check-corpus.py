"""Runs gnnc over every program of a corpus directory and reports problems:
an exit status other than 0 (accepted) or 1 (rejected), an error without a
file:line:col location, or a rejected program with no error printed."""
import os
import re
import subprocess
import sys

gnnc, corpus = sys.argv[1], sys.argv[2]
files = sorted(f for f in os.listdir(corpus) if f.endswith(".gnn"))
problems = 0
for name in files:
    path = os.path.join(corpus, name)
    run = subprocess.run([gnnc, "--emit=ast", path], capture_output=True,
                         text=True, errors="replace", timeout=60)
    errors = [l for l in run.stderr.splitlines() if " error: " in l or
              l.startswith("error: ")]
    located = re.compile(re.escape(path) + r":\d+:\d+: error: ")
    bad = [l for l in errors if not located.match(l)]
    if run.returncode not in (0, 1) or bad or (run.returncode == 1 and
                                                not errors):
        problems += 1
        print(f"{name}: exit {run.returncode}; unlocated: {bad[:3]}")
print(f"corpus: {len(files)} programs, {problems} problems")
