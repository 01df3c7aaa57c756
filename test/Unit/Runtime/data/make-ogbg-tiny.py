"""Writes ogbg-tiny/, the OGB graph-property dataset GraphCollectionTest reads.

No ogbg-* dataset is bundled (the smallest, ogbg-molhiv, is 41k graphs), so
this is a hand-made one in the same layout (ogb's DatasetSaver: gzip csv,
node ids local to their graph). Its values are chosen here, by hand, and
the unit test states them independently of the reader:

  graph 0: 3 nodes, edges 0-1 1-2          label 1
  graph 1: 1 node, no edges                label 0
  graph 2: 4 nodes, a 4-cycle              label 2
  graph 3: 2 nodes, edge 1-0               label 0
  node i's features: i, i / 2; edge e's: e + 0.25
  split/scaffold: train 0 2, valid 1, test 3; split/single: train 0 1 2 3

usage: python3 make-ogbg-tiny.py OUT_DIR
"""
import gzip
import os
import sys

out = sys.argv[1]
nodes = [3, 1, 4, 2]
edges = [[(0, 1), (1, 2)], [], [(0, 1), (1, 2), (2, 3), (3, 0)], [(1, 0)]]
labels = [1, 0, 2, 0]


def write(rel, rows):
    path = os.path.join(out, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # mtime=0: the same bytes on every run.
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        f.write("".join(",".join(str(v) for v in row) + "\n" for row in rows).encode())


write("raw/num-node-list.csv.gz", [[n] for n in nodes])
write("raw/num-edge-list.csv.gz", [[len(e)] for e in edges])
write("raw/edge.csv.gz", [pair for graph in edges for pair in graph])
write("raw/graph-label.csv.gz", [[l] for l in labels])
write("raw/node-feat.csv.gz", [[i, i / 2] for i in range(sum(nodes))])
write("raw/edge-feat.csv.gz", [[e + 0.25] for e in range(sum(len(g) for g in edges))])
write("split/scaffold/train.csv.gz", [[0], [2]])
write("split/scaffold/valid.csv.gz", [[1]])
write("split/scaffold/test.csv.gz", [[3]])
write("split/single/train.csv.gz", [[0], [1], [2], [3]])
