"""Checks the peak resident set a --metrics file reports after its last epoch.

usage: check-peak-rss.py METRICS.jsonl below|above SIZE_MIB
Prints the peak in MiB and the verdict; exits 1 if the peak is not below
(or above) SIZE_MIB.
"""
import json
import sys

path, relation, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
with open(path) as f:
    peak = [json.loads(line) for line in f if line.strip()][-1]["peak_rss_bytes"] / 2**20
ok = peak < limit if relation == "below" else peak > limit
print(f"peak RSS {peak:.0f} MiB, {relation} {limit:.0f} MiB: {'OK' if ok else 'NO'}")
sys.exit(0 if ok else 1)
