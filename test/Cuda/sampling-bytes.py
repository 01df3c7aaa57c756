"""Compares the bytes two device trainers' sampling copied between host and
device (their --stats lines `device sampling host<->device bytes over the
run: neighbour lists to the host N, other M`, summed over ranks): prints
the second run's total as a fraction of the first's, and each run's
neighbour-list bytes.

usage: sampling-bytes.py FIRST.out SECOND.out
"""
import re
import sys


def sampling_bytes(path):
    lists = other = lines = 0
    with open(path) as f:
        for line in f:
            m = re.search(r"device sampling host<->device bytes over the run: "
                          r"neighbour lists to the host (\d+), other (\d+)",
                          line)
            if m:
                lists += int(m.group(1))
                other += int(m.group(2))
                lines += 1
    if lines == 0:
        sys.exit(f"{path}: no device sampling bytes line")
    return lists, other


(lists1, other1), (lists2, other2) = (sampling_bytes(p) for p in sys.argv[1:3])
if lists1 + other1 == 0:
    sys.exit(f"{sys.argv[1]}: no sampling bytes to compare with")
print(f"neighbour-list bytes to the host: first {lists1}, second {lists2}")
print(f"sampling bytes of the second run: "
      f"{(lists2 + other2) / (lists1 + other1):.4f} of the first's")
