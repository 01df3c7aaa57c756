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
import argparse
import os
import resource
import statistics
import sys
import time

import numpy as np


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def load(data_dir):
    """The arrays gnn-data writes (see runtime/lib/data/NpyDataset.cpp)."""
    def arr(name):
        return np.load(os.path.join(data_dir, name))

    if os.path.exists(os.path.join(data_dir, "edge_index.npy")):
        src, dst = arr("edge_index.npy")
    else:
        src, dst = arr("src.npy"), arr("dst.npy")
    x = arr("features.npy").astype(np.float32, copy=False)
    y = arr("labels.npy")
    train_idx = arr("train_idx.npy")
    return src, dst, x, y, train_idx


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="gnn-data .npy directory")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.epochs < 2:
        ap.error("--epochs must be at least 2 (the first is warm-up)")

    import torch
    import torch.nn.functional as F
    import dgl
    from dgl.nn import GraphConv

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    src, dst, x_np, y_np, train_np = load(args.data)
    n = x_np.shape[0]
    g = dgl.graph((torch.from_numpy(src.astype(np.int64, copy=False)),
                   torch.from_numpy(dst.astype(np.int64, copy=False))), num_nodes=n)
    del src, dst
    g = dgl.to_bidirected(g)
    num_edges = g.num_edges()
    g = dgl.add_self_loop(g)
    g.create_formats_()  # CSR and CSC now, not inside the first epoch
    x = torch.from_numpy(x_np)
    y = torch.from_numpy(y_np.astype(np.int64, copy=False))
    train_idx = torch.from_numpy(train_np.astype(np.int64, copy=False))
    train_idx = train_idx[y[train_idx] >= 0]  # -1 marks an unlabeled node
    classes = int(y.max().item()) + 1
    print(f"dgl: dgl {dgl.__version__}, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads, {n} nodes, {num_edges} edges after "
          f"reverse + dedupe (+{n} self loops)", file=sys.stderr, flush=True)

    class GCN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = GraphConv(x.size(1), args.hidden, norm="both")
            self.c2 = GraphConv(args.hidden, classes, norm="both")

        def forward(self, g, x):
            return self.c2(g, F.relu(self.c1(g, x)))

    model = GCN()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    times = []
    try:
        for epoch in range(1, args.epochs + 1):
            t0 = time.perf_counter()
            model.train()
            opt.zero_grad()
            out = model(g, x)
            loss = F.cross_entropy(out[train_idx], y[train_idx])
            loss.backward()
            opt.step()
            sec = time.perf_counter() - t0
            times.append(sec)
            print(f"dgl: epoch {epoch} loss {loss.item():.4f} {sec:.3f} s "
                  f"(peak rss {peak_rss_mib():.0f} MiB)", file=sys.stderr, flush=True)
    except (MemoryError, RuntimeError) as e:
        if isinstance(e, MemoryError) or "alloc" in str(e).lower():
            print(f"dgl: out of memory at epoch {len(times) + 1}: "
                  f"{str(e).splitlines()[0]}", file=sys.stderr)
            print(f"dgl: nodes={n} edges={num_edges} median_epoch_s=oom "
                  f"peak_rss_mib={peak_rss_mib():.0f}")
            sys.exit(3)
        raise
    median = statistics.median(times[1:])
    print(f"dgl: nodes={n} edges={num_edges} median_epoch_s={median:.4f} "
          f"peak_rss_mib={peak_rss_mib():.0f}")


if __name__ == "__main__":
    main()
