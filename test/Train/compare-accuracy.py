"""Asserts two trainers reach the same accuracy:
compare-accuracy.py OUT_A OUT_B KEY TOLERANCE.

OUT_A and OUT_B are trainers' stdout; their `final:` lines hold `KEY VALUE`
pairs (e.g. test_acc 0.8230). Exits 1 with both values if they differ by
more than TOLERANCE (an absolute difference: 0.01 is one point).
"""
import sys


def final_value(path, key):
    for line in open(path):
        if line.startswith("final:"):
            fields = line.split()
            return float(fields[fields.index(key) + 1])
    sys.exit(f"no 'final:' line in {path}")


a_path, b_path, key, tolerance = sys.argv[1:5]
a, b = final_value(a_path, key), final_value(b_path, key)
if abs(a - b) > float(tolerance):
    sys.exit(f"{key} {a:.4f} and {b:.4f} differ by {abs(a - b):.4f} > {tolerance}")
print(f"{key} {a:.4f} and {b:.4f} differ by at most {tolerance}: OK")
