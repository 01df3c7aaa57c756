#!/usr/bin/env python3
"""DGL's GraphConv on a gnn-data .npy directory: a peer of bench/gcn_full_graph.sh.

Trains a 2-layer GCN (GraphConv -> ReLU -> GraphConv, no dropout), full graph, Adam,
cross-entropy over the train split, and prints the median epoch time with the first
epoch (warm-up) left out: the same model and the same timed span as pyg_gcn.py.

The graph is made the way our trainer loads it: each edge plus its reverse,
duplicates dropped (dgl.to_bidirected makes a simple graph), then one self loop per
node (dgl.add_self_loop), so GraphConv's norm='both' is D^-1/2 (A + I) D^-1/2 with
D counting the self loop, as stdlib's GCNConv. GraphConv multiplies by the weight
before it aggregates when that is narrower (in > out), as gnnc's gnn-reorder does.

The last line printed is machine-readable:
  dgl: nodes=N edges=E median_epoch_s=S peak_rss_mib=M
where E counts the edges after reverse + dedupe, self loops not included.
Exit status 3 means the run ran out of memory.
"""
import sys

import numpy as np

import peer_gcn


def main():
    def extra(ap):
        ap.add_argument("--model", choices=["gcn", "sage", "gat"], default="gcn",
                        help="gcn: GraphConv (the default); sage: SAGEConv "
                             "mean (no self loops); gat: GATConv, 4 heads "
                             "of hidden/4 concatenated, then 1 head")

    args = peer_gcn.arguments(__doc__, extra)

    import torch
    import torch.nn.functional as F
    import dgl
    from dgl.nn import GATConv, GraphConv, SAGEConv

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    src, dst, x_np, y_np, train_np = peer_gcn.load(args.data)
    n = x_np.shape[0]
    g = dgl.graph((torch.from_numpy(src.astype(np.int64, copy=False)),
                   torch.from_numpy(dst.astype(np.int64, copy=False))), num_nodes=n)
    del src, dst
    g = dgl.to_bidirected(g)
    num_edges = g.num_edges()
    if args.model != "sage":  # GraphSAGE's root weight is its self term
        g = dgl.add_self_loop(g)
    g.create_formats_()  # CSR and CSC now, not inside the first epoch
    x, y, train_idx, classes = peer_gcn.tensors(torch, x_np, y_np, train_np)
    print(f"dgl: dgl {dgl.__version__}, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads, {n} nodes, {num_edges} edges after "
          f"reverse + dedupe (+{n} self loops)", file=sys.stderr, flush=True)

    class GCN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = GraphConv(x.size(1), args.hidden, norm="both")
            self.c2 = GraphConv(args.hidden, classes, norm="both")

        def forward(self, g, x):
            x = F.dropout(x, args.input_dropout, self.training)
            return self.c2(g, F.relu(self.c1(g, x)))

    class SAGE(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = SAGEConv(x.size(1), args.hidden, "mean")
            self.c2 = SAGEConv(args.hidden, classes, "mean")

        def forward(self, g, x):
            x = F.dropout(x, args.input_dropout, self.training)
            return self.c2(g, F.relu(self.c1(g, x)))

    class GAT(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = GATConv(x.size(1), args.hidden // 4, num_heads=4)
            self.c2 = GATConv(args.hidden, classes, num_heads=1)

        def forward(self, g, x):
            x = F.dropout(x, args.input_dropout, self.training)
            h = F.relu(self.c1(g, x).flatten(1))
            return self.c2(g, h).mean(1)

    model = {"gcn": GCN, "sage": SAGE, "gat": GAT}[args.model]()
    peer_gcn.time_epochs(torch, "dgl", f"nodes={n} edges={num_edges}", model,
                         lambda: model(g, x), y, train_idx, args)


if __name__ == "__main__":
    main()
