#!/usr/bin/env python3
"""DGL's sampled link prediction: the peer of bench/link_sampled.sh.

The same model as the gnnc program the script compiles: two SAGEConv layers
(mean, root weight + neighbour weight + bias, as stdlib's SAGEConv), ReLU
between, an inner-product score per pair (u_dot_v), binary cross-entropy with
logits over the batch's links and their negatives, Adam. Batches come from
DGL's recommended pipeline for link prediction: NeighborSampler (fanouts
layer 0 first, without replacement, the input rows gathered by the sampler)
wrapped by as_edge_prediction_sampler with exclude='reverse_id' (the batch's
links and their reverses are not in its blocks) and negative_sampler
Uniform(1), through dgl.dataloading.DataLoader over the train links, shuffled.

The graph is the trainer's: each generated edge once as an undirected link
(duplicates and self loops dropped), stored in both directions with
reverse_eids pairing them; the train links are the first direction of each.
(gnnc holds out 0.1% of the links for its valid and test splits; DGL trains
on all of them: the graphs differ by 0.2% of their edges.)

One timed "batch" spans what gnnc's epoch_seconds spans per batch: taking the
next batch from the loader, forward, loss, backward, the optimizer step. Each
run trains BATCHES batches after WARMUP untimed ones; the figure is the
median over RUNS runs of the mean batch time, with 0 and with each count of
--workers DataLoader processes; the faster setting is the one compared.

The last line printed is machine-readable:
  dgl: workers=W batch_s=S batches=B pairs_per_batch=P edges_per_batch=E peak_rss_mib=M
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


def undirected_links(src, dst, n):
    """Each edge once as (min, max), without self loops or repeats."""
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    keep = lo != hi
    key = np.unique(lo[keep].astype(np.int64) * n + hi[keep])
    return key // n, key % n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="gnn-data .npy directory")
    ap.add_argument("--fanouts", default="10,10", help="layer 0 (input side) first")
    ap.add_argument("--batch", type=int, default=1024, help="links per batch")
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batches", type=int, default=20, help="timed batches per run")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--workers", default="0,1", help="DataLoader worker counts to try")
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import torch
    import torch.nn.functional as F
    import dgl
    import dgl.function as fn
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
    n = x.size(0)
    u, v = undirected_links(src, dst, n)
    del src, dst
    links = u.size
    g = dgl.graph((torch.from_numpy(np.concatenate([u, v])),
                   torch.from_numpy(np.concatenate([v, u]))), num_nodes=n)
    del u, v
    g.create_formats_()
    g.ndata["feat"] = x
    reverse = torch.cat([torch.arange(links, 2 * links), torch.arange(0, links)])
    train = torch.arange(0, links)
    fanouts = [int(f) for f in args.fanouts.split(",")]
    print(f"dgl: dgl {dgl.__version__}, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads, {n} nodes, {links} links "
          f"({g.num_edges()} edges), fanouts {fanouts}, batch {args.batch}",
          file=sys.stderr, flush=True)

    class LinkSAGE(torch.nn.Module):
        def __init__(self):
            super().__init__()
            widths = [x.size(1)] + [args.hidden] * len(fanouts)
            self.layers = torch.nn.ModuleList(
                SAGEConv(widths[i], widths[i + 1], "mean") for i in range(len(fanouts)))

        def forward(self, blocks, h):
            for i, (layer, block) in enumerate(zip(self.layers, blocks)):
                h = layer(block, h)
                if i + 1 < len(self.layers):
                    h = F.relu(h)
            return h

    def score(pair_graph, h):
        with pair_graph.local_scope():
            pair_graph.ndata["h"] = h
            pair_graph.apply_edges(fn.u_dot_v("h", "h", "s"))
            return pair_graph.edata["s"].view(-1)

    sampler = dgl.dataloading.as_edge_prediction_sampler(
        dgl.dataloading.NeighborSampler(fanouts, prefetch_node_feats=["feat"]),
        exclude="reverse_id", reverse_eids=reverse,
        negative_sampler=dgl.dataloading.negative_sampler.Uniform(1))
    results = {}
    for workers in [int(w) for w in args.workers.split(",")]:
        per_run, edges, pairs = [], [], []
        for run in range(args.runs):
            model = LinkSAGE()
            opt = torch.optim.Adam(model.parameters(), lr=args.lr)
            loader = dgl.dataloading.DataLoader(
                g, train, sampler, batch_size=args.batch, shuffle=True,
                drop_last=True, num_workers=workers, persistent_workers=False)
            it = iter(loader)
            t0 = None
            for b in range(args.warmup + args.batches):
                if b == args.warmup:
                    t0 = time.perf_counter()
                _, pos_graph, neg_graph, blocks = next(it)
                h = model(blocks, blocks[0].srcdata["feat"])
                pos, neg = score(pos_graph, h), score(neg_graph, h)
                logits = torch.cat([pos, neg])
                labels = torch.cat([torch.ones_like(pos), torch.zeros_like(neg)])
                loss = F.binary_cross_entropy_with_logits(logits, labels)
                opt.zero_grad()
                loss.backward()
                opt.step()
                if b >= args.warmup:
                    edges.append(sum(bl.num_edges() for bl in blocks))
                    pairs.append(pos.numel() + neg.numel())
            per_run.append((time.perf_counter() - t0) / args.batches)
            del it, loader
            print(f"dgl: workers {workers} run {run + 1}: {per_run[-1]:.4f} s/batch, "
                  f"loss {loss.item():.4f} (peak rss {peak_rss_mib():.0f} MiB)",
                  file=sys.stderr, flush=True)
        results[workers] = (statistics.median(per_run), int(statistics.median(edges)),
                            int(statistics.median(pairs)))
    best = min(results, key=lambda w: results[w][0])
    for w, (s, e, p) in results.items():
        print(f"dgl: workers={w} batch_s={s:.4f} pairs_per_batch={p} edges_per_batch={e}",
              file=sys.stderr)
    s, e, p = results[best]
    print(f"dgl: workers={best} batch_s={s:.4f} batches={args.batches} "
          f"pairs_per_batch={p} edges_per_batch={e} peak_rss_mib={peak_rss_mib():.0f}")


if __name__ == "__main__":
    main()
