#!/usr/bin/env python3
"""PyG's NeighborLoader on the graph sample_bench samples: the peer of bench/sampling.sh.

The graph comes from `sample_bench --export` (the trainer's graph: reverse edges
added, duplicates dropped) as the in-neighbour CSR, which is PyG's CSC; it is
handed to NeighborLoader as an edge_index sorted by destination with
is_sorted=True, so PyG uses it as is. Features and labels come from the gnn-data
directory. Same fanouts (num_neighbors, the seeds' hop first), batch size and
training nodes as ours.

Two measurements, each the median over RUNS runs of BATCHES batches (after 2
warm-up batches per run), with 0 and with 2 DataLoader worker processes:
  sampling  NeighborSampler.sample_from_nodes only (the C++ sampler of
            torch-sparse or pyg-lib); a worker returns just the edge count
  loader    iterating NeighborLoader: sampling plus PyG's filter step, which
            gathers x[n_id] and y[n_id] into the batch (our "gather")

The last lines printed are machine-readable:
  pyg: mode=sampling|loader workers=W backend=B edges_per_batch=E edges_per_s=S batches_per_s=R
"""
import argparse
import os
import statistics
import time
import warnings

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graph", required=True, help="sample_bench --export directory")
    ap.add_argument("--data", required=True, help="gnn-data .npy directory")
    ap.add_argument("--fanouts", default="15,10,5")
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batches", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workers", default="0,2", help="DataLoader worker counts to try")
    args = ap.parse_args()

    import torch
    import torch_geometric.typing as pyg_typing
    from torch_geometric.data import Data
    from torch_geometric.loader import NeighborLoader
    from torch_geometric.sampler import NodeSamplerInput

    warnings.filterwarnings("ignore")
    torch.set_num_threads(args.threads)
    backend = ("pyg-lib" if pyg_typing.WITH_PYG_LIB else
               "torch-sparse" if pyg_typing.WITH_TORCH_SPARSE else "none")

    indptr = torch.from_numpy(np.load(os.path.join(args.graph, "indptr.npy")))
    indices = torch.from_numpy(np.load(os.path.join(args.graph, "indices.npy")))
    train = torch.from_numpy(np.load(os.path.join(args.graph, "train.npy")))
    n = indptr.numel() - 1
    dst = torch.repeat_interleave(torch.arange(n), indptr[1:] - indptr[:-1])
    x = torch.from_numpy(np.load(os.path.join(args.data, "features.npy")))
    y = torch.from_numpy(np.load(os.path.join(args.data, "labels.npy")).astype(np.int64))
    data = Data(x=x, y=y, edge_index=torch.stack([indices, dst]), num_nodes=n)
    del dst
    fanouts = [int(f) for f in args.fanouts.split(",")]

    def make_loader(workers):
        return NeighborLoader(data, num_neighbors=fanouts, batch_size=args.batch,
                              input_nodes=train, shuffle=True, is_sorted=True,
                              num_workers=workers)

    def timed(batches):
        """Rates over args.batches batches of an iterator of edge counts."""
        for _ in range(2):  # warm-up: worker start, first allocations
            next(batches)
        start, edges = time.perf_counter(), 0
        for _ in range(args.batches):
            edges += next(batches)
        seconds = time.perf_counter() - start
        return edges / seconds, args.batches / seconds, edges / args.batches

    def report(mode, workers, rates):
        eps = statistics.median(r[0] for r in rates)
        bps = statistics.median(r[1] for r in rates)
        epb = statistics.median(r[2] for r in rates)
        print(f"pyg: mode={mode} workers={workers} backend={backend} "
              f"edges_per_batch={epb:.0f} edges_per_s={eps:.0f} batches_per_s={bps:.3f}",
              flush=True)

    for workers in [int(w) for w in args.workers.split(",")]:
        loader = make_loader(workers)
        sampler = loader.node_sampler

        def sampled_edges(index):
            seeds = train[torch.tensor(index)]
            out = sampler.sample_from_nodes(NodeSamplerInput(input_id=None, node=seeds))
            return out.row.numel()

        seeds = torch.utils.data.DataLoader(range(train.numel()), batch_size=args.batch,
                                            shuffle=True, num_workers=workers,
                                            collate_fn=sampled_edges)
        report("sampling", workers,
               [timed(iter(seeds)) for _ in range(args.runs)])
        report("loader", workers,
               [timed(b.edge_index.size(1) for b in loader) for _ in range(args.runs)])


if __name__ == "__main__":
    main()
