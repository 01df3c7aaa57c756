"""Checks a `gnn-data generate --kind molecules` collection from its files,
independently of the reader: every graph has 10-50 atoms, its edges stay
inside it, each node row is one-hot over the 9 atom types, the split is a
partition of the graphs, and the label is 1 exactly when the graph has a
cycle of 6 or more atoms (a 2-edge-connected component of 6+ nodes once
the bridges are removed: the generator's only cycles are its rings).

usage: molecules-check.py DIR    prints a summary line per property
"""
import gzip
import sys

d = sys.argv[1]


def table(rel):
    with gzip.open(f"{d}/{rel}", "rt") as f:
        return [[float(v) if "." in v else int(v) for v in line.split(",")]
                for line in f if line.strip()]


node_counts = [r[0] for r in table("raw/num-node-list.csv.gz")]
edge_counts = [r[0] for r in table("raw/num-edge-list.csv.gz")]
edges = table("raw/edge.csv.gz")
features = table("raw/node-feat.csv.gz")
labels = [r[0] for r in table("raw/graph-label.csv.gz")]
split = {name: [r[0] for r in table(f"split/random/{name}.csv.gz")]
         for name in ("train", "valid", "test")}


def has_big_ring(n, graph_edges):
    adj = [[] for _ in range(n)]
    for k, (u, v) in enumerate(graph_edges):
        adj[u].append((v, k))
        adj[v].append((u, k))
    # Bridges by Tarjan's low-link (iterative).
    order, low, bridges, counter = [-1] * n, [0] * n, set(), 0
    for root in range(n):
        if order[root] >= 0:
            continue
        order[root] = low[root] = counter
        counter += 1
        stack = [(root, -1, iter(adj[root]))]
        while stack:
            v, parent_edge, it = stack[-1]
            advanced = False
            for w, k in it:
                if k == parent_edge:
                    continue
                if order[w] < 0:
                    order[w] = low[w] = counter
                    counter += 1
                    stack.append((w, k, iter(adj[w])))
                    advanced = True
                    break
                low[v] = min(low[v], order[w])
            if not advanced:
                stack.pop()
                if stack:
                    u = stack[-1][0]
                    low[u] = min(low[u], low[v])
                    if low[v] > order[u]:
                        bridges.add(parent_edge)
    seen = [False] * n
    for s in range(n):
        if seen[s]:
            continue
        seen[s], size, stack = True, 0, [s]
        while stack:
            v = stack.pop()
            size += 1
            for w, k in adj[v]:
                if k not in bridges and not seen[w]:
                    seen[w] = True
                    stack.append(w)
        if size >= 6:
            return True
    return False


assert len(node_counts) == len(edge_counts) == len(labels)
assert all(10 <= n <= 50 for n in node_counts)
assert len(features) == sum(node_counts) and len(edges) == sum(edge_counts)
assert all(len(r) == 9 and sorted(r) == [0] * 8 + [1] for r in features)
print(f"graphs {len(node_counts)}, atoms {min(node_counts)} to {max(node_counts)}, one-hot rows {len(features)}")
at, matches = 0, 0
for g, (n, m) in enumerate(zip(node_counts, edge_counts)):
    graph_edges = edges[at:at + m]
    at += m
    assert all(0 <= u < n and 0 <= v < n for u, v in graph_edges), g
    matches += int(has_big_ring(n, graph_edges)) == labels[g]
print(f"labels match a ring of 6+ atoms: {matches}/{len(labels)}")
ids = sorted(split["train"] + split["valid"] + split["test"])
print(f"split partition: {ids == list(range(len(labels)))}")
print(f"positives {sum(labels)}")
