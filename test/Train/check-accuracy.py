"""Asserts a trainer's final accuracy: check-accuracy.py OUTPUT KEY MIN.

OUTPUT is the trainer's stdout; its `final:` line holds `KEY VALUE` pairs
(e.g. test_acc 0.8230). Exits 1 with a message naming the value and the
bound if VALUE < MIN, or if there is no such line.
"""
import sys

path, key, bound = sys.argv[1], sys.argv[2], float(sys.argv[3])
for line in open(path):
    if line.startswith("final:"):
        fields = line.split()
        value = float(fields[fields.index(key) + 1])
        if value < bound:
            sys.exit(f"{key} {value:.4f} is below {bound}")
        print(f"{key} {value:.4f} >= {bound}")
        sys.exit(0)
sys.exit(f"no 'final:' line in {path}")
