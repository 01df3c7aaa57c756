"""Checks a link split written by `gnn-data link-split` against its definition
(PyG RandomLinkSplit, undirected), from the dataset's own edge list:

  check_link_split.py DATA SPLIT VALID TEST

- every undirected pair of DATA's raw/edge.csv[.gz] is in exactly one of
  train/valid/test_pos, as (min, max);
- valid has floor(VALID * pairs) pairs, test floor(TEST * pairs), train the rest;
- valid_neg and test_neg have as many pairs as their positives, none an edge in
  either direction, no self loop, no pair twice across both.
Prints one summary line.
"""
import gzip
import math
import os
import sys


def rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return [tuple(int(x) for x in line.split(",")) for line in f if line.strip()]


def table(d, stem):
    for name in (stem + ".csv.gz", stem + ".csv"):
        if os.path.exists(os.path.join(d, name)):
            return rows(os.path.join(d, name))
    sys.exit("no %s in %s" % (stem, d))


data, split, valid, test = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
pairs = {(min(u, v), max(u, v)) for u, v in table(data + "/raw", "edge")}
parts = {name: table(split, name) for name in
         ["train_pos", "valid_pos", "test_pos", "valid_neg", "test_neg"]}
positives = parts["train_pos"] + parts["valid_pos"] + parts["test_pos"]
assert all(u <= v for u, v in positives), "a positive not as (min, max)"
assert len(positives) == len(set(positives)) == len(pairs), "pairs not split exactly once"
assert set(positives) == pairs, "the positives are not the graph's pairs"
m = len(pairs)
assert len(parts["valid_pos"]) == math.floor(valid * m), len(parts["valid_pos"])
assert len(parts["test_pos"]) == math.floor(test * m), len(parts["test_pos"])
negatives = parts["valid_neg"] + parts["test_neg"]
assert len(parts["valid_neg"]) == len(parts["valid_pos"])
assert len(parts["test_neg"]) == len(parts["test_pos"])
assert len(set(negatives)) == len(negatives), "a negative twice"
for u, v in negatives:
    assert u != v, "a self loop among the negatives"
    assert (min(u, v), max(u, v)) not in pairs, "a negative that is an edge"
print("split ok: %d pairs, train %d, valid %d, test %d" % (
    m, len(parts["train_pos"]), len(parts["valid_pos"]), len(parts["test_pos"])))
