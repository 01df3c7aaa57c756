"""Runs a trainer up to an epoch relative to where another run of it ended:
the last epoch of METRICS.jsonl plus OFFSET (e.g. -2: two epochs before an
early-stopped run stopped), as --epochs. Its output is discarded; the exit
status is the trainer's.

usage: run-to-epoch.py METRICS.jsonl OFFSET TRAINER [ARGS...]
"""
import json
import subprocess
import sys

with open(sys.argv[1]) as f:
    last = [json.loads(line) for line in f if line.strip()][-1]["epoch"]
epochs = last + int(sys.argv[2])
if epochs < 1:
    print(f"the run ended at epoch {last}: no epoch {epochs} to stop at")
    sys.exit(1)
sys.exit(subprocess.run(sys.argv[3:] + ["--epochs", str(epochs)],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode)
