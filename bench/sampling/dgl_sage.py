#!/usr/bin/env python3
"""DGL's sampled GraphSAGE training: the peer of bench/sage_sampled.sh.

The same model as the gnnc program the script compiles: SAGEConv (mean, with the
root weight: fc_self(x_i) + fc_neigh(mean_j x_j) + b, as stdlib's SAGEConv) per
layer, ReLU between, no dropout, Adam, cross-entropy over each batch's seeds.
Mini-batches come from DGL's NeighborSampler (fanouts layer 0 first, as gnnc's
`neighbor(fanout = [...])` and DGL's own lists; without replacement) through
dgl.dataloading.DataLoader with the seeds shuffled, the input rows and the seeds'
labels gathered by the sampler (prefetch_node_feats / prefetch_labels), which is
DGL's recommended pipeline. The graph is the trainer's: each edge plus its reverse,
duplicates dropped (dgl.to_bidirected).

One timed "batch" spans what gnnc's epoch_seconds spans per batch: taking the next
batch from the loader (sampling and gathering, or waiting for a worker that did),
forward, loss, backward, the optimizer step. Each run trains BATCHES batches after
WARMUP untimed ones; the figure is the median over RUNS runs of the mean batch
time, with 0 and with each count of --workers DataLoader processes; the faster
setting is the one compared.

The last line printed is machine-readable:
  dgl: workers=W batch_s=S batches=B edges_per_batch=E peak_rss_mib=M
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="gnn-data .npy directory")
    ap.add_argument("--train", help="the seeds (.npy of node ids; default: train_idx.npy)")
    ap.add_argument("--fanouts", default="5,10,15", help="layer 0 (input side) first")
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batches", type=int, default=10, help="timed batches per run")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workers", default="0,1", help="DataLoader worker counts to try")
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import torch
    import torch.nn.functional as F
    import dgl
    from dgl.nn import SAGEConv

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    dgl.seed(args.seed)

    def arr(name):
        return np.load(os.path.join(args.data, name))

    if os.path.exists(os.path.join(args.data, "edge_index.npy")):
        src, dst = arr("edge_index.npy")
    else:
        src, dst = arr("src.npy"), arr("dst.npy")
    x = torch.from_numpy(arr("features.npy").astype(np.float32, copy=False))
    y = torch.from_numpy(arr("labels.npy").astype(np.int64, copy=False))
    n = x.size(0)
    g = dgl.graph((torch.from_numpy(src.astype(np.int64, copy=False)),
                   torch.from_numpy(dst.astype(np.int64, copy=False))), num_nodes=n)
    del src, dst
    g = dgl.to_bidirected(g)
    g.create_formats_()
    g.ndata["feat"] = x
    g.ndata["label"] = y
    seeds = np.load(args.train) if args.train else arr("train_idx.npy")
    seeds = torch.from_numpy(seeds.astype(np.int64, copy=False))
    seeds = seeds[y[seeds] >= 0]
    classes = int(y.max().item()) + 1
    fanouts = [int(f) for f in args.fanouts.split(",")]
    need = (args.warmup + args.batches) * args.batch
    if seeds.numel() < need:
        sys.exit(f"dgl_sage.py: {seeds.numel()} seeds, {need} needed "
                 f"((warmup + batches) x batch)")
    print(f"dgl: dgl {dgl.__version__}, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads, {n} nodes, {g.num_edges()} edges, "
          f"fanouts {fanouts}, batch {args.batch}", file=sys.stderr, flush=True)

    class SAGE(torch.nn.Module):
        def __init__(self):
            super().__init__()
            widths = [x.size(1)] + [args.hidden] * (len(fanouts) - 1) + [classes]
            self.layers = torch.nn.ModuleList(
                SAGEConv(widths[i], widths[i + 1], "mean") for i in range(len(fanouts)))

        def forward(self, blocks, h):
            for i, (layer, block) in enumerate(zip(self.layers, blocks)):
                h = layer(block, h)
                if i + 1 < len(self.layers):
                    h = F.relu(h)
            return h

    sampler = dgl.dataloading.NeighborSampler(
        fanouts, prefetch_node_feats=["feat"], prefetch_labels=["label"])
    results = {}
    for workers in [int(w) for w in args.workers.split(",")]:
        per_run = []
        edges = []
        for run in range(args.runs):
            model = SAGE()
            opt = torch.optim.Adam(model.parameters(), lr=args.lr)
            loader = dgl.dataloading.DataLoader(
                g, seeds, sampler, batch_size=args.batch, shuffle=True,
                drop_last=True, num_workers=workers,
                persistent_workers=False)
            it = iter(loader)
            t0 = None
            for b in range(args.warmup + args.batches):
                if b == args.warmup:
                    t0 = time.perf_counter()
                _, _, blocks = next(it)
                out = model(blocks, blocks[0].srcdata["feat"])
                loss = F.cross_entropy(out, blocks[-1].dstdata["label"])
                opt.zero_grad()
                loss.backward()
                opt.step()
                if b >= args.warmup:
                    edges.append(sum(bl.num_edges() for bl in blocks))
            per_run.append((time.perf_counter() - t0) / args.batches)
            del it, loader
            print(f"dgl: workers {workers} run {run + 1}: {per_run[-1]:.4f} s/batch, "
                  f"loss {loss.item():.4f} (peak rss {peak_rss_mib():.0f} MiB)",
                  file=sys.stderr, flush=True)
        results[workers] = (statistics.median(per_run), int(statistics.median(edges)))
    best = min(results, key=lambda w: results[w][0])
    for w, (s, e) in results.items():
        print(f"dgl: workers={w} batch_s={s:.4f} edges_per_batch={e}", file=sys.stderr)
    s, e = results[best]
    print(f"dgl: workers={best} batch_s={s:.4f} batches={args.batches} "
          f"edges_per_batch={e} peak_rss_mib={peak_rss_mib():.0f}")


if __name__ == "__main__":
    main()
