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

--model sage trains SAGEConv (mean) layers instead; --device cuda trains on a
GPU (bench/cuda_gcn.sh).

The last line printed is machine-readable:
  pyg: [model=sage ]adj=MODE nodes=N edges=E median_epoch_s=S peak_rss_mib=M
Exit status 3 means the run ran out of memory (the driver script may then
retry with --adj sparse).
"""
import sys

import numpy as np

import peer_gcn


def main():
    def extra(ap):
        ap.add_argument("--adj", choices=["edge_index", "sparse"], default="edge_index")
        ap.add_argument("--model", choices=["gcn", "sage"], default="gcn",
                        help="gcn: GCNConv; sage: SAGEConv with the mean (bench/cuda_gcn.sh)")

    args = peer_gcn.arguments(__doc__, extra)

    import torch
    import torch.nn.functional as F
    from torch_geometric.nn import GCNConv, SAGEConv
    from torch_geometric.utils import to_torch_csr_tensor, to_undirected

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    src, dst, x_np, y_np, train_np = peer_gcn.load(args.data)
    edge_np = np.stack([src, dst])
    del src, dst
    n = x_np.shape[0]
    x, y, train_idx, classes = peer_gcn.tensors(torch, x_np, y_np, train_np)

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

    def conv(width_in, width_out):
        if args.model == "sage":
            return SAGEConv(width_in, width_out, aggr="mean")
        return GCNConv(width_in, width_out, cached=True)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = conv(x.size(1), args.hidden)
            self.c2 = conv(args.hidden, classes)

        def forward(self, x, g):
            x = F.dropout(x, args.input_dropout, self.training)
            return self.c2(F.relu(self.c1(x, g)), g)

    device = torch.device(args.device)
    model = Net().to(device)
    x, y, train_idx, graph = (t.to(device) for t in (x, y, train_idx, graph))
    summary = f"adj={args.adj} nodes={n} edges={num_edges}"
    if args.model != "gcn":
        summary = f"model={args.model} " + summary
    peer_gcn.time_epochs(torch, "pyg", summary, model, lambda: model(x, graph),
                         y, train_idx, args)


if __name__ == "__main__":
    main()
