"""Writes a node -> part assignment (gpmetis's format) that puts every
training node of an OGB-layout dataset on part 0 and every other node on
part 1: train-on-part-zero.py DATASET_DIR OUT.
"""
import csv
import gzip
import sys

data, out = sys.argv[1], sys.argv[2]
with gzip.open(f"{data}/raw/num-node-list.csv.gz", "rt") as f:
    nodes = int(next(csv.reader(f))[0])
with gzip.open(f"{data}/split/public/train.csv.gz", "rt") as f:
    train = {int(row[0]) for row in csv.reader(f)}
with open(out, "w") as f:
    for v in range(nodes):
        f.write("0\n" if v in train else "1\n")
