"""Prints what `gnn-data info` should print for a TU dataset directory,
computed independently from the raw files (the load time line aside).

usage: graph-collection-summary.py DIR

Follows docs/data.md: nodes from DS_graph_indicator, directed edges from
DS_A, classes the distinct graph labels, features the node attributes'
columns plus, per node-label column, max - min + 1 one-hot columns (as
PyG's TUDataset(use_node_attr=True)), folds from DS_splits.json.
"""
import glob
import gzip
import json
import os
import sys
from collections import Counter

d = sys.argv[1]


def rows(stem):
    for path in (f"{d}/{prefix}_{stem}.txt.gz", f"{d}/{prefix}_{stem}.txt"):
        if os.path.exists(path):
            opener = gzip.open if path.endswith(".gz") else open
            with opener(path, "rt") as f:
                return [line.strip() for line in f if line.strip()]
    return None


indicator = glob.glob(f"{d}/*_graph_indicator.txt*")[0]
prefix = os.path.basename(indicator).split("_graph_indicator")[0]
graph_of = [int(v) for v in rows("graph_indicator")]
nodes = Counter(graph_of)
num_graphs = max(graph_of)
edges = Counter(graph_of[int(r.split(",")[0]) - 1] for r in rows("A"))
labels = Counter(int(v) for v in rows("graph_labels"))

width = 0
attributes = rows("node_attributes")
if attributes:
    width += len(attributes[0].split(","))
node_labels = rows("node_labels")
if node_labels:
    table = [[int(v) for v in r.split(",")] for r in node_labels]
    for c in range(len(table[0])):
        column = [r[c] for r in table]
        width += max(column) - min(column) + 1


def per_graph(counts):
    values = [counts.get(g, 0) for g in range(1, num_graphs + 1)]
    total = sum(values)
    return (f"{total} (per graph min {min(values)}, max {max(values)}, "
            f"mean {total / num_graphs:.2f})")


print(f"dataset     {d} (tu)")
print(f"graphs      {num_graphs}")
print(f"nodes       {per_graph(nodes)}")
print(f"edges       {per_graph(edges)}")
sizes = ", ".join(str(labels[v]) for v in sorted(labels))
print(f"task        classification, {len(labels)} classes ({sizes} graphs)")
print(f"features    {width}")
print("edge feat.  0")
folds_path = f"{d}/{prefix}_splits.json"
if os.path.exists(folds_path):
    folds = json.load(open(folds_path))
    print(f"folds       {len(folds)} from {folds_path}")
    for k, fold in enumerate(folds):
        inner = fold["model_selection"][0]
        print(f"  {'fold' + str(k):<9} train {len(inner['train'])}, "
              f"valid {len(inner['validation'])}, test {len(fold['test'])}")
else:
    print("folds       none")
