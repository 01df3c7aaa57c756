"""The DGL peer of bench/rgcn_mag.sh: R-GCN with basis decomposition on the
same generated ogbn-mag-shaped files (OGB's heterogeneous raw layout).

usage: dgl_rgcn_mag.py DATA_DIR SPLIT MODE HIDDEN BASES COUNT WARMUP THREADS [FANOUTS BATCH]
  MODE = full     COUNT timed full-graph epochs (after WARMUP untimed ones)
  MODE = sampled  COUNT timed mini-batches of BATCH seeds (after WARMUP),
                  neighbours sampled per layer with FANOUTS (input side
                  first, comma-separated), as bench/rgcn_mag.sh's program

The model is the one bench/rgcn_mag.sh compiles: every relation and its
inverse (R = 8), two RelGraphConv layers (regularizer "basis", BASES bases,
a self-connection, a mean over each relation's messages), ReLU between,
Adam lr 0.01. Papers read their 128 features; the featureless node types
read a learned embedding row each (an nn.Embedding, as DGL's ogbn-mag
examples): dense Adam on the full graph, where every row is read, and
sparse (SparseAdam) on mini-batches, where a batch reads few. Prints
`dgl MODE: median S s per epoch|batch over COUNT (min S)`.
"""
import gzip
import statistics
import sys
import time

import dgl
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from dgl.nn import RelGraphConv

root, split, mode = sys.argv[1], sys.argv[2], sys.argv[3]
hidden, bases, count, warmup, threads = map(int, sys.argv[4:9])
fanouts = [int(f) for f in sys.argv[9].split(",")] if mode == "sampled" else []
batch = int(sys.argv[10]) if mode == "sampled" else 0
torch.set_num_threads(threads)
torch.manual_seed(0)


def table(path, dtype):
    with gzip.open(path, "rt") as f:
        return np.loadtxt(f, delimiter=",", dtype=dtype, ndmin=2)


with gzip.open(f"{root}/raw/num-node-dict.csv.gz", "rt") as f:
    names, counts = [l.strip().split(",") for l in f if l.strip()]
num_nodes = dict(zip(names, map(int, counts)))
offset = dict(zip(names, np.cumsum([0] + [num_nodes[t] for t in names])[:-1]))
total = sum(num_nodes.values())

# The homogeneous view gnnc trains on: types in num-node-dict order, every
# relation followed by the inverses.
with gzip.open(f"{root}/raw/triplet-type-list.csv.gz", "rt") as f:
    triplets = [l.strip().split(",") for l in f if l.strip()]
src, dst, rel = [], [], []
for r, (s, name, d) in enumerate(triplets):
    e = table(f"{root}/raw/relations/{s}___{name}___{d}/edge.csv.gz", np.int64)
    src.append(e[:, 0] + offset[s])
    dst.append(e[:, 1] + offset[d])
    rel.append(np.full(len(e), r))
R = 2 * len(triplets)
src, dst, rel = (np.concatenate(a) for a in (src, dst, rel))
src, dst, rel = (np.concatenate([src, dst]), np.concatenate([dst, src]),
                 np.concatenate([rel, rel + len(triplets)]))
g = dgl.graph((torch.from_numpy(src), torch.from_numpy(dst)), num_nodes=total)
etype = torch.from_numpy(rel)
# 1 / |N_r(v)|: a mean over each relation's messages.
pair = torch.from_numpy(dst) * R + etype
_, inverse, per_pair = torch.unique(pair, return_inverse=True, return_counts=True)
g.edata["norm"] = (1.0 / per_pair[inverse].float()).unsqueeze(1)
g.edata["etype"] = etype

target = "paper"
feats = torch.from_numpy(table(f"{root}/raw/node-feat/{target}/node-feat.csv.gz",
                               np.float32))
labels = torch.full((total,), -1, dtype=torch.int64)
labels[offset[target]:offset[target] + num_nodes[target]] = torch.from_numpy(
    table(f"{root}/raw/node-label/{target}/node-label.csv.gz", np.int64)[:, 0])
classes = int(labels.max()) + 1
train = torch.from_numpy(
    table(f"{root}/split/{split}/{target}/train.csv.gz", np.int64)[:, 0]) + offset[target]
in_dim = feats.shape[1]
featured = torch.zeros(total, dtype=torch.bool)
featured[offset[target]:offset[target] + num_nodes[target]] = True
# Each featureless node's row in the embedding table.
embed_row = torch.cumsum(~featured, 0) - 1


class RGCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = RelGraphConv(in_dim, hidden, R, "basis", bases, self_loop=True)
        self.c2 = RelGraphConv(hidden, classes, R, "basis", bases, self_loop=True)

    def forward(self, blocks, x):
        h = F.relu(self.c1(blocks[0], x, blocks[0].edata["etype"], blocks[0].edata["norm"]))
        return self.c2(blocks[1], h, blocks[1].edata["etype"], blocks[1].edata["norm"])


model = RGCN()
sparse = mode == "sampled"
embedding = nn.Embedding(int((~featured).sum()), in_dim, sparse=sparse)
nn.init.normal_(embedding.weight)
optimizer = torch.optim.Adam(list(model.parameters()) +
                             ([] if sparse else list(embedding.parameters())), lr=0.01)
sparse_optimizer = torch.optim.SparseAdam(list(embedding.parameters()), lr=0.01) if sparse else None


def inputs(nodes):
    x = torch.empty(len(nodes), in_dim)
    mask = featured[nodes]
    x[mask] = feats[nodes[mask] - offset[target]]
    x[~mask] = embedding(embed_row[nodes[~mask]])
    return x


def step(blocks, x, seeds_labels):
    logits = model(blocks, x)
    loss = F.cross_entropy(logits, seeds_labels)
    optimizer.zero_grad()
    if sparse_optimizer:
        sparse_optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if sparse_optimizer:
        sparse_optimizer.step()


times = []
if mode == "full":
    all_nodes = torch.arange(total)
    for i in range(warmup + count):
        start = time.perf_counter()
        logits = model([g, g], inputs(all_nodes))
        loss = F.cross_entropy(logits[train], labels[train])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i >= warmup:
            times.append(time.perf_counter() - start)
    unit = "epoch"
else:
    sampler = dgl.dataloading.NeighborSampler(fanouts)
    loader = dgl.dataloading.DataLoader(g, train, sampler, batch_size=batch,
                                        shuffle=True, drop_last=False)
    it = iter(loader)
    for i in range(warmup + count):
        start = time.perf_counter()
        try:  # the split holds BATCHES batches: warm-up takes the next epoch's
            input_nodes, seeds, blocks = next(it)
        except StopIteration:
            it = iter(loader)
            input_nodes, seeds, blocks = next(it)
        for b in blocks:  # a mean over the block's messages, as gnnc's
            et = etype[b.edata[dgl.EID]]
            _, inv, cnt = torch.unique(b.edges()[1] * R + et, return_inverse=True,
                                       return_counts=True)
            b.edata["etype"] = et
            b.edata["norm"] = (1.0 / cnt[inv].float()).unsqueeze(1)
        step(blocks, inputs(input_nodes), labels[seeds])
        if i >= warmup:
            times.append(time.perf_counter() - start)
    unit = "batch"
print(f"dgl {mode}: median {statistics.median(times):.4f} s per {unit} "
      f"over {count} (min {min(times):.4f})")
