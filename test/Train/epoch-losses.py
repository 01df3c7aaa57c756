"""Prints the epoch and the loss of each line of a --metrics file (JSON lines),
exactly as written, so that two runs' losses can be compared with diff
(timings always differ; accuracies appear only on evaluated epochs).

usage: epoch-losses.py METRICS.jsonl
"""
import json
import sys

with open(sys.argv[1]) as f:
    for line in f:
        if line.strip():
            record = json.loads(line)
            print(record["epoch"], repr(record["loss"]))
