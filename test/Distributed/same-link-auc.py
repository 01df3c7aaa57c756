"""same-link-auc.py A.out B.out TOLERANCE

Compares the `final:` lines of two link-prediction runs: their valid_auc,
valid_ap, test_auc and test_ap must agree within TOLERANCE (absolute).
Prints the keys compared; exits 1 naming the first that differs.
"""
import sys

KEYS = ["valid_auc", "valid_ap", "test_auc", "test_ap"]


def final(path):
    for line in open(path):
        if line.startswith("final:"):
            fields = line.split()
            return {k: float(fields[fields.index(k) + 1]) for k in KEYS}
    sys.exit(f"no 'final:' line in {path}")


a, b, tolerance = final(sys.argv[1]), final(sys.argv[2]), float(sys.argv[3])
for k in KEYS:
    if abs(a[k] - b[k]) > tolerance:
        sys.exit(f"{k}: {a[k]} vs {b[k]}, more than {tolerance} apart")
print(f"{' '.join(KEYS)} within {tolerance:g}: OK")
