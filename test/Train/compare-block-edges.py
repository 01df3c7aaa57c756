"""compare-block-edges.py FEWER MORE: the mean batch's edges (the trainer's
`--stats` line "mean batch: block 0 ... edges N, block 1 ...") of the run
in MORE exceed those of FEWER in every block."""
import re
import sys


def block_edges(path):
    for line in open(path):
        if "mean batch:" in line:
            return [int(n) for n in re.findall(r"edges (\d+)", line)]
    sys.exit(f"{path}: no 'mean batch:' line (run the trainer with --stats)")


fewer, more = block_edges(sys.argv[1]), block_edges(sys.argv[2])
if len(fewer) != len(more):
    sys.exit(f"{len(fewer)} blocks against {len(more)}")
for i, (a, b) in enumerate(zip(fewer, more)):
    if b <= a:
        sys.exit(f"block {i}: {b} edges in {sys.argv[2]}, not more than {a} in {sys.argv[1]}")
    print(f"block {i}: {a} -> {b} edges")
