"""The DGL peer of examples/rgcn_aifb.gnn: R-GCN on the same AIFB files.

usage: dgl_rgcn_aifb.py DATA_DIR SEEDS INPUT
  INPUT = onehot     the paper's input layer (a learned row per relation and
                     node, mean per relation, a self-connection), as the
                     example: every relation and its inverse, 2 layers,
                     hidden 16, Adam lr 0.01, 50 epochs, no weight decay;
  INPUT = embedding  DGL's entity-classification example instead: one
                     learned embedding per node into RelGraphConv layers
                     (weight decay 5e-4), as `embed = 16` with RGCNConv.
Prints one line: the mean test accuracy over seeds 0..SEEDS-1, then each.
"""
import gzip
import sys

import dgl
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from dgl.nn import RelGraphConv

root, seeds, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
torch.set_num_threads(1)


def rows(path):
    return [l.strip().split(",") for l in gzip.open(path, "rt") if l.strip()]


header, counts = rows(f"{root}/raw/num-node-dict.csv.gz")
num_nodes = dict(zip(header, map(int, counts)))
edges = {}
for s, r, d in rows(f"{root}/raw/triplet-type-list.csv.gz"):
    e = torch.tensor(np.array(rows(f"{root}/raw/relations/{s}___{r}___{d}/edge.csv.gz"), dtype=np.int64))
    edges[(s, r, d)] = (e[:, 0], e[:, 1])
    edges[(d, r + "_inv", s)] = (e[:, 1], e[:, 0])
hg = dgl.heterograph(edges, num_nodes_dict=num_nodes)
for etype in hg.canonical_etypes:  # 1 / |N_r(i)|: a mean per relation
    hg.edges[etype].data["norm"] = dgl.norm_by_dst(hg, etype).unsqueeze(1)
target = "Personen"
labels = torch.tensor([int(float(x[0])) for x in rows(f"{root}/raw/node-label/{target}/node-label.csv.gz")])
train = torch.tensor([int(x[0]) for x in rows(f"{root}/split/rdf/{target}/train.csv.gz")])
test = torch.tensor([int(x[0]) for x in rows(f"{root}/split/rdf/{target}/test.csv.gz")])
g = dgl.to_homogeneous(hg, edata=["norm"])
num_rels = len(hg.canonical_etypes)
target_rows = (g.ndata[dgl.NTYPE] == hg.ntypes.index(target)).nonzero().squeeze(1)
etype, norm = g.edata[dgl.ETYPE], g.edata["norm"]


class OneHotRGCN(nn.Module):
    def __init__(self, n, hidden, classes):
        super().__init__()
        gain = nn.init.calculate_gain("relu")
        self.w = nn.Parameter(nn.init.xavier_uniform_(torch.empty(num_rels, n, hidden), gain=gain))
        self.w_self = nn.Parameter(nn.init.xavier_uniform_(torch.empty(n, hidden), gain=gain))
        self.b = nn.Parameter(torch.zeros(hidden))
        self.c2 = RelGraphConv(hidden, classes, num_rels, self_loop=True)

    def forward(self, g):
        src, dst = g.edges()
        messages = self.w[etype, src] * norm
        h = torch.zeros(g.num_nodes(), self.w.shape[2]).index_add_(0, dst, messages)
        h = F.relu(h + self.w_self + self.b)
        return self.c2(g, h, etype, norm)


class EmbeddingRGCN(nn.Module):
    def __init__(self, n, hidden, classes):
        super().__init__()
        self.emb = nn.Embedding(n, hidden)
        self.c1 = RelGraphConv(hidden, hidden, num_rels, self_loop=True)
        self.c2 = RelGraphConv(hidden, classes, num_rels, self_loop=True)

    def forward(self, g):
        h = F.relu(self.c1(g, self.emb.weight, etype, norm))
        return self.c2(g, h, etype, norm)


accuracies = []
for seed in range(seeds):
    torch.manual_seed(seed)
    if mode == "onehot":
        model = OneHotRGCN(g.num_nodes(), 16, 4)
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
    else:
        model = EmbeddingRGCN(g.num_nodes(), 16, 4)
        opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    for epoch in range(50):
        logits = model(g)[target_rows]
        loss = F.cross_entropy(logits[train], labels[train])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        predicted = model(g)[target_rows][test].argmax(1)
    accuracies.append((predicted == labels[test]).float().mean().item())
print(f"dgl {mode}: mean test accuracy {np.mean(accuracies):.4f} over {seeds} seeds: "
      + " ".join(f"{a:.4f}" for a in accuracies))
