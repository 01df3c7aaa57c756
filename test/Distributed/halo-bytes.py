"""halo-bytes.py BASE.out OTHER.out

Reads the `stats: rank R halo forward|backward sent S received V
bytes/epoch` lines of two runs' --stats output and prints, per rank, OTHER's
bytes over BASE's for each direction (3 decimals), in rank order. Exits 1
if a rank or direction is missing from either.
"""
import re
import sys

PATTERN = re.compile(
    r"stats: rank (\d+) halo (forward|backward) sent (\d+) received (\d+) "
    r"bytes/epoch")


def read(path):
    found = {}
    with open(path) as f:
        for line in f:
            m = PATTERN.search(line)
            if m:
                found[(int(m[1]), m[2])] = (int(m[3]), int(m[4]))
    return found


base, other = read(sys.argv[1]), read(sys.argv[2])
ranks = sorted({rank for rank, _ in base} | {rank for rank, _ in other})
if not ranks:
    sys.exit("no halo stats lines")
for rank in ranks:
    parts = [f"rank {rank}"]
    for direction in ("forward", "backward"):
        if (rank, direction) not in base or (rank, direction) not in other:
            sys.exit(f"rank {rank}: no halo {direction} line in both runs")
        (bs, br), (os_, or_) = base[(rank, direction)], other[(rank, direction)]
        if bs == 0 or br == 0:
            sys.exit(f"rank {rank}: the base run moved no {direction} bytes")
        parts.append(f"{direction} sent ratio {os_ / bs:.3f} "
                     f"received ratio {or_ / br:.3f}")
    print(" ".join(parts))
