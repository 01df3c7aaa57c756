#!/usr/bin/env python3
"""PyG's GAE on a gnn-data .npy directory and a fixed link split: the peer of
bench/gae_full_graph.sh.

The model of examples/gae_cora.gnn: a 2-layer GCN encoder (GCNConv in -> 32,
ReLU, GCNConv 32 -> 16; self loops and D^-1/2 (A + I) D^-1/2, as stdlib's
GCNConv) and torch_geometric.nn.GAE's inner-product decoder, Adam lr 0.01,
full graph. Each epoch is PyG's GAE example step: encode over the train
links (both directions: the message-passing graph), then recon_loss(z,
train links), which draws as many uniform negatives as links
(negative_sampling) and sums the binary cross-entropy of both.

The split is the trainer's: `gnn-data link-split` writes the same train /
valid / test pairs gnnc draws at the same seed (SPLIT/train_pos.csv, ...), so
both sides train on the same links and message-passing graph.

Prints the median epoch time with the first epoch (warm-up) left out, and the
test AUC / AP of the last epoch's encoder (torch_geometric's GAE.test). The
last line is machine-readable:
  pyg: nodes=N links=L median_epoch_s=S test_auc=A test_ap=P peak_rss_mib=M
"""
import argparse
import os
import resource
import statistics
import time

import numpy as np


def pairs(path):
    a = np.loadtxt(path, delimiter=",", dtype=np.int64, ndmin=2)
    return a.T  # [2, n]


def auc_ap(pos, neg):
    """ROC AUC and average precision of scores (positives against negatives),
    in numpy (GAE.test would need scikit-learn)."""
    scores = np.concatenate([pos, neg])
    labels = np.concatenate([np.ones(pos.size), np.zeros(neg.size)])
    order = np.argsort(-scores, kind="stable")
    hits = labels[order]
    # AUC: the share of (positive, negative) pairs ranked right, ties half.
    ranks = np.empty(scores.size)
    sorted_scores = scores[np.argsort(scores, kind="stable")]
    lo = np.searchsorted(sorted_scores, scores, side="left")
    hi = np.searchsorted(sorted_scores, scores, side="right")
    ranks = (lo + hi + 1) / 2.0
    auc = (ranks[:pos.size].sum() - pos.size * (pos.size + 1) / 2) / (pos.size * neg.size)
    precision = np.cumsum(hits) / np.arange(1, hits.size + 1)
    ap = (precision * hits).sum() / pos.size
    return float(auc), float(ap)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="gnn-data .npy directory")
    ap.add_argument("--split", required=True, help="gnn-data link-split output")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--out", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import torch
    from torch_geometric.nn import GAE, GCNConv

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    x = torch.from_numpy(np.load(os.path.join(args.data, "features.npy")).astype(np.float32))
    train = torch.from_numpy(pairs(os.path.join(args.split, "train_pos.csv")))
    # The message-passing graph: the train links, both directions.
    edge_index = torch.cat([train, train.flip(0)], dim=1)
    test_pos = torch.from_numpy(pairs(os.path.join(args.split, "test_pos.csv")))
    test_neg = torch.from_numpy(pairs(os.path.join(args.split, "test_neg.csv")))

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            # cached: the normalization once, as PyG's GAE example does
            # (gnnc hoists it out of the step: the graph does not change).
            self.c1 = GCNConv(x.size(1), args.hidden, cached=True)
            self.c2 = GCNConv(args.hidden, args.out, cached=True)

        def forward(self, h, ei):
            return self.c2(self.c1(h, ei).relu(), ei)

    model = GAE(Encoder())
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    times = []
    for epoch in range(args.epochs):
        t0 = time.perf_counter()
        model.train()
        opt.zero_grad()
        z = model.encode(x, edge_index)
        loss = model.recon_loss(z, train)
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - t0)
        print(f"pyg: epoch {epoch + 1} loss {loss.item():.4f} ({times[-1]:.3f} s)",
              flush=True)
    model.eval()
    with torch.no_grad():
        z = model.encode(x, edge_index)
        pos = model.decoder(z, test_pos, sigmoid=False).numpy()
        neg = model.decoder(z, test_neg, sigmoid=False).numpy()
    auc, ap_ = auc_ap(pos, neg)
    median = statistics.median(times[1:]) if len(times) > 1 else times[0]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"pyg: nodes={x.size(0)} links={train.size(1)} median_epoch_s={median:.4f} "
          f"test_auc={auc:.4f} test_ap={ap_:.4f} peak_rss_mib={rss:.0f}")


if __name__ == "__main__":
    main()
