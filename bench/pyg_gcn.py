#!/usr/bin/env python3
"""PyG's GCNConv on a gnn-data .npy directory: the peer of bench/gcn_full_graph.sh.

Trains a 2-layer GCN (GCNConv -> ReLU -> GCNConv, no dropout), full graph, Adam,
cross-entropy over the train split, and prints the median epoch time with the
first epoch (warm-up; with cached=True also the normalization) left out.

The graph is made the way our trainer loads it: each edge plus its reverse,
duplicates dropped (to_undirected = concatenate + coalesce); GCNConv then adds
one self loop per node and normalizes D^-1/2 (A + I) D^-1/2, as stdlib's GCNConv.

--adj picks how the adjacency reaches GCNConv:
  edge_index  PyG's default message passing: gathers an [E, hidden] message
              tensor (and its gradient), so it needs memory ~ E * hidden * 4 * 3
  sparse      a torch.sparse CSR adjacency (adj_t): GCNConv then multiplies
              with torch.sparse.mm and never materializes per-edge messages

The last line printed is machine-readable:
  pyg: adj=MODE nodes=N edges=E median_epoch_s=S peak_rss_mib=M
Exit status 3 means the run ran out of memory (the driver script may then
retry with --adj sparse).
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
        edge_index = arr("edge_index.npy")
    else:
        edge_index = np.stack([arr("src.npy"), arr("dst.npy")])
    x = arr("features.npy").astype(np.float32, copy=False)
    y = arr("labels.npy")
    train_idx = arr("train_idx.npy")
    return edge_index, x, y, train_idx


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="gnn-data .npy directory")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--adj", choices=["edge_index", "sparse"], default="edge_index")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.epochs < 2:
        ap.error("--epochs must be at least 2 (the first is warm-up)")

    import torch
    import torch.nn.functional as F
    from torch_geometric.nn import GCNConv
    from torch_geometric.utils import to_torch_csr_tensor, to_undirected

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    edge_np, x_np, y_np, train_np = load(args.data)
    n = x_np.shape[0]
    x = torch.from_numpy(x_np)
    y = torch.from_numpy(y_np.astype(np.int64, copy=False))
    train_idx = torch.from_numpy(train_np.astype(np.int64, copy=False))
    train_idx = train_idx[y[train_idx] >= 0]  # -1 marks an unlabeled node
    classes = int(y.max().item()) + 1

    edge_index = to_undirected(torch.from_numpy(edge_np.astype(np.int64, copy=False)),
                               num_nodes=n)
    del edge_np
    num_edges = edge_index.size(1)
    if args.adj == "sparse":
        # Row = destination (adj_t), as GCNConv expects of a sparse adjacency.
        graph = to_torch_csr_tensor(edge_index.flip(0), size=(n, n))
        del edge_index
    else:
        graph = edge_index
    print(f"pyg: torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"{n} nodes, {num_edges} edges after reverse + dedupe (self loops added by "
          f"GCNConv), adj={args.adj}", file=sys.stderr, flush=True)

    class GCN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = GCNConv(x.size(1), args.hidden, cached=True)
            self.c2 = GCNConv(args.hidden, classes, cached=True)

        def forward(self, x, g):
            return self.c2(F.relu(self.c1(x, g)), g)

    model = GCN()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    times = []
    try:
        for epoch in range(1, args.epochs + 1):
            t0 = time.perf_counter()
            model.train()
            opt.zero_grad()
            out = model(x, graph)
            loss = F.cross_entropy(out[train_idx], y[train_idx])
            loss.backward()
            opt.step()
            sec = time.perf_counter() - t0
            times.append(sec)
            print(f"pyg: epoch {epoch} loss {loss.item():.4f} {sec:.3f} s "
                  f"(peak rss {peak_rss_mib():.0f} MiB)", file=sys.stderr, flush=True)
    except (MemoryError, RuntimeError) as e:
        if isinstance(e, MemoryError) or "alloc" in str(e).lower():
            print(f"pyg: out of memory at epoch {len(times) + 1} with adj={args.adj}: "
                  f"{str(e).splitlines()[0]}", file=sys.stderr)
            print(f"pyg: adj={args.adj} nodes={n} edges={num_edges} median_epoch_s=oom "
                  f"peak_rss_mib={peak_rss_mib():.0f}")
            sys.exit(3)
        raise
    median = statistics.median(times[1:])
    print(f"pyg: adj={args.adj} nodes={n} edges={num_edges} median_epoch_s={median:.4f} "
          f"peak_rss_mib={peak_rss_mib():.0f}")


if __name__ == "__main__":
    main()
