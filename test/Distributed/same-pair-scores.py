"""same-pair-scores.py A.csv B.csv TOLERANCE

Compares two --predict --pairs files (src,dst,score,probability): the same
pairs in the same order, each score within TOLERANCE relative (of at least
1). Prints the pair count and the largest difference; exits 1 otherwise.
"""
import csv
import sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


a, b, tolerance = rows(sys.argv[1]), rows(sys.argv[2]), float(sys.argv[3])
if [(r["src"], r["dst"]) for r in a] != [(r["src"], r["dst"]) for r in b]:
    sys.exit("the files list other pairs")
worst = max((abs(float(x["score"]) - float(y["score"])) /
             max(1.0, abs(float(x["score"]))) for x, y in zip(a, b)), default=0.0)
verdict = "OK" if worst <= tolerance else "TOO LARGE"
print(f"{len(a)} pairs, largest score difference {worst:.3g}: {verdict}")
sys.exit(0 if worst <= tolerance else 1)
