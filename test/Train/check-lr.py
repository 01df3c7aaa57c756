"""Checks the learning rate of each epoch of a --metrics file (its "lr" key)
against the schedule's formula, computed here in float64:

  epoch e <= W (warm-up):  lr * e / W
  then t = e - W - 1:      constant lr
                           step:   lr * gamma ** (t // every)
                           cosine: min + (lr - min) * (1 + cos(pi t / T)) / 2,
                                   T = max(1, epochs - W)

usage: check-lr.py METRICS.jsonl LR EPOCHS WARMUP [step EVERY GAMMA |
                                                   cosine MIN_LR]
Exits 1 when an epoch's rate is off by more than 1e-12 relative, or an
epoch lacks one.
"""
import json
import math
import sys

path, lr, epochs, warmup = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), \
    int(sys.argv[4])
kind = sys.argv[5] if len(sys.argv) > 5 else "constant"


def expected(e):
    if e <= warmup:
        return lr * e / warmup
    t = e - warmup - 1
    if kind == "step":
        every, gamma = int(sys.argv[6]), float(sys.argv[7])
        return lr * gamma ** (t // every)
    if kind == "cosine":
        low = float(sys.argv[6])
        span = max(1, epochs - warmup)
        return low + (lr - low) * (1 + math.cos(math.pi * t / span)) / 2
    return lr


worst, count = 0.0, 0
with open(path) as f:
    for line in f:
        record = json.loads(line)
        if "lr" not in record:
            print(f"epoch {record['epoch']} has no lr")
            sys.exit(1)
        want = expected(record["epoch"])
        worst = max(worst, abs(record["lr"] - want) / want)
        count += 1
verdict = "OK" if worst <= 1e-12 and count > 0 else "WRONG"
print(f"{count} epochs, {kind} schedule, largest relative lr difference "
      f"{worst:.3g}: {verdict}")
sys.exit(0 if verdict == "OK" else 1)
