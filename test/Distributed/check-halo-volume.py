"""Asserts that halo traffic equals the halo lower bound.

usage: check-halo-volume.py MANIFEST STATS WIDTH FORWARDS BACKWARDS [REFETCHED]

Each boundary row crosses once per remote part that needs it, per exchange:
rank r receives haloNodes(r) rows and sends sendNodes(r) rows in a forward
exchange, and the reverse in a backward one. WIDTH is the sum of the widths
of a pass's exchanges (all exchange the same rows); with FORWARDS forward
passes and BACKWARDS backward passes in the measured epochs, every rank's
bytes are fixed by the manifest. REFETCHED (default 0) is the sum of the
widths a backward pass fetches again the forward's way (SAR's
rematerialization of weighted aggregations' rows).
"""
import json
import re
import sys

manifest = json.load(open(sys.argv[1]))
stats = open(sys.argv[2]).read()
width, forwards, backwards = (int(a) for a in sys.argv[3:6])
refetched = int(sys.argv[6]) if len(sys.argv) > 6 else 0
row = 4 * width
again = 4 * refetched
ok = True
for rank, part in enumerate(manifest["parts"]):
    halo, send = part["halo_nodes"], part["send_nodes"]
    expected = {
        "forward": (send * row * forwards, halo * row * forwards),
        "backward": ((halo * row + send * again) * backwards,
                     (send * row + halo * again) * backwards),
    }
    for phase, (sent, received) in expected.items():
        m = re.search(rf"rank {rank} halo {phase} sent (\d+) received (\d+)", stats)
        got = (int(m.group(1)), int(m.group(2))) if m else None
        verdict = "OK" if got == (sent, received) else "MISMATCH"
        ok &= got == (sent, received)
        print(f"rank {rank} {phase}: measured {got}, bound {(sent, received)}: {verdict}")
sys.exit(0 if ok else 1)
