"""What the full-graph GCN peers (dgl_gcn.py, pyg_gcn.py) share: the arguments,
the .npy arrays gnn-data writes, the labeled train nodes, and the timed epoch
loop with its machine-readable last line.

The timed span of an epoch is the same on both sides (and as gnnc's
epoch_seconds): forward, loss over the train split, backward, optimizer step.
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


def arguments(doc, extra=None):
    """The peers' command line (`extra(ap)` adds a peer's own options)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--data", required=True, help="gnn-data .npy directory")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu",
                    help="torch device to train on (cuda: bench/cuda_gcn.sh)")
    ap.add_argument("--input-dropout", type=float, default=0.0,
                    help="dropout on the input features every epoch (Kipf's "
                         "GCN; what keeps gnnc from hoisting A.X)")
    ap.add_argument("--autocast", choices=["none", "bf16"], default="none",
                    help="bf16: the forward pass under torch.autocast(device, "
                         "torch.bfloat16), the peer of gnnc --precision bf16")
    if extra:
        extra(ap)
    args = ap.parse_args()
    if args.epochs < 2:
        ap.error("--epochs must be at least 2 (the first is warm-up)")
    return args


def load(data_dir):
    """src, dst, features, labels, train ids: the arrays gnn-data writes (see
    runtime/lib/data/NpyDataset.cpp)."""
    def arr(name):
        return np.load(os.path.join(data_dir, name))

    if os.path.exists(os.path.join(data_dir, "edge_index.npy")):
        src, dst = arr("edge_index.npy")
    else:
        src, dst = arr("src.npy"), arr("dst.npy")
    x = arr("features.npy").astype(np.float32, copy=False)
    return src, dst, x, arr("labels.npy"), arr("train_idx.npy")


def tensors(torch, x_np, y_np, train_np):
    """x, y, the labeled train ids (-1 marks an unlabeled node), classes."""
    x = torch.from_numpy(x_np)
    y = torch.from_numpy(y_np.astype(np.int64, copy=False))
    train_idx = torch.from_numpy(train_np.astype(np.int64, copy=False))
    train_idx = train_idx[y[train_idx] >= 0]
    return x, y, train_idx, int(y.max().item()) + 1


def time_epochs(torch, tag, summary, model, forward, y, train_idx, args):
    """Trains `args.epochs` epochs with Adam and prints, last, the line
    `TAG: SUMMARY median_epoch_s=S peak_rss_mib=M` (the first epoch left out
    of the median); out of memory prints median_epoch_s=oom and exits 3."""
    F = torch.nn.functional
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    times = []
    # A GPU's work is asynchronous: an epoch ends when the device is done.
    cuda = args.device.startswith("cuda")
    try:
        for epoch in range(1, args.epochs + 1):
            t0 = time.perf_counter()
            model.train()
            opt.zero_grad()
            with torch.autocast(args.device.split(":")[0], dtype=torch.bfloat16,
                                enabled=args.autocast == "bf16"):
                out = forward()
            loss = F.cross_entropy(out.float()[train_idx], y[train_idx])
            loss.backward()
            opt.step()
            if cuda:
                torch.cuda.synchronize()
            sec = time.perf_counter() - t0
            times.append(sec)
            print(f"{tag}: epoch {epoch} loss {loss.item():.4f} {sec:.3f} s "
                  f"(peak rss {peak_rss_mib():.0f} MiB)", file=sys.stderr, flush=True)
    except (MemoryError, RuntimeError) as e:
        if isinstance(e, MemoryError) or "alloc" in str(e).lower() \
                or "out of memory" in str(e).lower():
            print(f"{tag}: out of memory at epoch {len(times) + 1} ({summary}): "
                  f"{str(e).splitlines()[0]}", file=sys.stderr)
            print(f"{tag}: {summary} median_epoch_s=oom "
                  f"peak_rss_mib={peak_rss_mib():.0f}")
            sys.exit(3)
        raise
    median = statistics.median(times[1:])
    print(f"{tag}: {summary} median_epoch_s={median:.4f} "
          f"peak_rss_mib={peak_rss_mib():.0f}")
