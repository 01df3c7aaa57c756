"""Compares the batch bytes two device trainers copied to the device
(their --stats line `host<->device copies ... batches N bytes`): prints the
second run's bytes as a fraction of the first's.

usage: batch-bytes.py FIRST.out SECOND.out
"""
import re
import sys


def batch_bytes(path):
    with open(path) as f:
        for line in f:
            m = re.search(r"host<->device copies .* batches (\d+) bytes", line)
            if m:
                return int(m.group(1))
    sys.exit(f"{path}: no host<->device copies line")


first, second = (batch_bytes(p) for p in sys.argv[1:3])
if first == 0:
    sys.exit(f"{sys.argv[1]}: no batch bytes to compare with")
print(f"batch bytes of the second run: {second / first:.4f} of the first's")
