"""Compares the per-epoch losses of two --metrics files (JSON lines).

usage: compare-losses.py A.jsonl B.jsonl TOLERANCE
Prints the largest relative difference; exits 1 if it exceeds TOLERANCE or
the files differ in their epochs.
"""
import json
import sys


def losses(path):
    # Epoch lines only (cross-validation adds per-fold and summary lines).
    with open(path) as f:
        records = [json.loads(line) for line in f if line.strip()]
    return [r["loss"] for r in records if "epoch" in r]


a, b, tolerance = losses(sys.argv[1]), losses(sys.argv[2]), float(sys.argv[3])
if len(a) != len(b) or not a:
    print(f"epoch counts differ: {len(a)} vs {len(b)}")
    sys.exit(1)
worst = max(abs(x - y) / max(abs(x), abs(y), 1e-30) for x, y in zip(a, b))
verdict = "OK" if worst <= tolerance else "TOO LARGE"
print(f"{len(a)} epochs, largest relative loss difference {worst:.3g}: {verdict}")
sys.exit(0 if worst <= tolerance else 1)
