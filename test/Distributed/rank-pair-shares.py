"""rank-pair-shares.py STATS.out PAIRS RANKS

Reads the `stats: rank R halo ... train pairs A of B with H remote sources`
lines of a full-graph link-prediction run under mpirun: every one of RANKS
ranks reports one, each names the batch's PAIRS pairs, their shares add up
to PAIRS, and each rank fetches some remote sources (the pairs' halo).
Exits 1 naming what differs.
"""
import re
import sys

path, pairs, ranks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pattern = re.compile(
    r"stats: rank (\d+) halo sent \d+ received \d+ bytes/epoch, "
    r"train pairs (\d+) of (\d+) with (\d+) remote sources")
shares = {}
for line in open(path):
    m = pattern.match(line)
    if m:
        rank, mine, whole, remote = map(int, m.groups())
        if whole != pairs:
            sys.exit(f"rank {rank} names {whole} pairs, expected {pairs}")
        if remote == 0:
            sys.exit(f"rank {rank} fetched no remote source")
        shares[rank] = mine
if sorted(shares) != list(range(ranks)):
    sys.exit(f"ranks reporting: {sorted(shares)}, expected 0..{ranks - 1}")
if sum(shares.values()) != pairs:
    sys.exit(f"shares {shares} add up to {sum(shares.values())}, not {pairs}")
print(f"{ranks} ranks score {pairs} pairs together, each with remote "
      "sources: OK")
