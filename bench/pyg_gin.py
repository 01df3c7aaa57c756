#!/usr/bin/env python3
"""PyG's GIN on a graph collection: the peer of bench/gin_graphs.sh.

The model of examples/gin_nci1.gnn, written with PyG's own pieces: 5 GINConv
layers (eps 0, not trained), each around Linear -> BatchNorm1d -> ReLU ->
Linear, each followed by BatchNorm1d and ReLU; every layer's rows summed per
graph (global_add_pool) and scored by its own Linear, dropout 0.5 on each
score, the 5 scores added; cross-entropy, Adam lr 0.01, StepLR(50, 0.5),
batches of 32 graphs from torch_geometric.loader.DataLoader (shuffled, no
worker processes). Batch norm uses the batch's statistics only
(track_running_stats=False), as nn.BatchNorm does.

The data is read here with numpy, as our trainer reads it, so nothing is
downloaded:
  TU raw layout (DS_graph_indicator, DS_A, DS_graph_labels, DS_node_labels
      one-hot over [min, max], DS_node_attributes), edges as stored, the
      training graphs of fold --fold of DS_splits.json;
  OGB graph-property layout (raw/num-node-list, num-edge-list, edge,
      node-feat, graph-label; split/<name>/train), each bond stored once,
      so each graph's reversed edges are appended (add_reverse_edges).
The graphs are held the way PyG's TUDataset holds them (an InMemoryDataset:
one concatenated Data and its slices), so the DataLoader indexes and collates
graphs exactly as it does for TUDataset(...).

The timed span of an epoch is the same as gnnc's epoch_seconds: the whole
loop over the training batches (the loader's collation, zero_grad, forward,
loss, backward, step); evaluation is not run. The last line printed is
machine-readable:
  pyg_gin: graphs=G train=T nodes=N edges=E epoch_s=S,S,... median_epoch_s=M
           median_epoch_cpu_s=C peak_rss_mib=R last_loss=L
(medians over epochs 2.., the first being warm-up; C is the process's CPU
time, which other work on a shared machine inflates less than the wall
clock).
"""
import argparse
import json
import os
import resource
import statistics
import sys
import time

import numpy as np


def read_table(path, dtype):
    """A comma-separated text table (or its .gz) as a 2-d numpy array, None
    when neither exists. pandas' C parser: a million molecules' node rows
    would not fit in memory as Python strings."""
    import pandas
    for name in (path + ".gz", path):
        if os.path.exists(name):
            try:
                frame = pandas.read_csv(name, header=None, dtype=dtype, skipinitialspace=True)
            except pandas.errors.EmptyDataError:
                return np.zeros((0, 1), dtype)
            return frame.to_numpy()
    return None


def class_ranks(values):
    """Graph classes as ranks of the distinct label values (as gnnc)."""
    _, ranks = np.unique(values, return_inverse=True)
    return ranks.astype(np.int64)


def read_tu(data, fold):
    prefix = next(n for n in os.listdir(data)
                  if n.endswith("_graph_indicator.txt") or
                  n.endswith("_graph_indicator.txt.gz")).split("_graph_indicator")[0]
    base = os.path.join(data, prefix + "_")
    graph_of = read_table(base + "graph_indicator.txt", np.int64)[:, 0] - 1
    num_graphs = int(graph_of[-1]) + 1
    node_offsets = np.zeros(num_graphs + 1, np.int64)
    np.add.at(node_offsets, graph_of + 1, 1)
    node_offsets = np.cumsum(node_offsets)
    edges = read_table(base + "A.txt", np.int64) - 1
    # Edges grouped by graph, in file order within a graph (as gnnc).
    edge_graph = graph_of[edges[:, 0]]
    order = np.argsort(edge_graph, kind="stable")
    edges, edge_graph = edges[order], edge_graph[order]
    edge_offsets = np.concatenate([[0], np.cumsum(np.bincount(edge_graph, minlength=num_graphs))])
    columns = []
    attributes = read_table(base + "node_attributes.txt", np.float32)
    if attributes is not None:
        columns.append(attributes)
    labels = read_table(base + "node_labels.txt", np.int64)
    if labels is not None:
        for c in range(labels.shape[1]):
            lo, hi = labels[:, c].min(), labels[:, c].max()
            one_hot = np.zeros((labels.shape[0], hi - lo + 1), np.float32)
            one_hot[np.arange(labels.shape[0]), labels[:, c] - lo] = 1
            columns.append(one_hot)
    x = np.concatenate(columns, axis=1)
    y = class_ranks(read_table(base + "graph_labels.txt", np.int64)[:, 0])
    # Ids local to each graph, as TUDataset stores them.
    local = edges - node_offsets[edge_graph][:, None]
    with open(base + "splits.json") as f:
        train = np.array(json.load(f)[fold]["model_selection"][0]["train"], np.int64)
    return x, local.T.copy(), node_offsets, edge_offsets, y, train


def read_ogbg(data, split):
    raw = os.path.join(data, "raw")
    nodes = read_table(os.path.join(raw, "num-node-list.csv"), np.int64)[:, 0]
    counts = read_table(os.path.join(raw, "num-edge-list.csv"), np.int64)[:, 0]
    edges = read_table(os.path.join(raw, "edge.csv"), np.int64)
    x = read_table(os.path.join(raw, "node-feat.csv"), np.float32)
    y = class_ranks(read_table(os.path.join(raw, "graph-label.csv"), np.int64)[:, 0])
    node_offsets = np.concatenate([[0], np.cumsum(nodes)])
    offsets = np.concatenate([[0], np.cumsum(counts)])
    # Each graph's edges, then the same reversed (gnnc's addReverseEdges).
    graph = np.repeat(np.arange(len(counts)), counts)
    both = np.concatenate([edges, edges[:, ::-1]])
    order = np.argsort(np.concatenate([graph, graph]), kind="stable")
    edge_offsets = 2 * offsets
    train = read_table(os.path.join(data, "split", split, "train.csv"), np.int64)[:, 0]
    return x, both[order].T.copy(), node_offsets, edge_offsets, y, train


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="TU or OGB graph-property directory")
    ap.add_argument("--fold", type=int, default=0, help="TU: the Errica fold to train on")
    ap.add_argument("--split", default="random", help="OGB: the split directory")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.epochs < 2:
        ap.error("--epochs must be at least 2 (the first is warm-up)")

    import torch
    import torch.nn.functional as F
    from torch.nn import BatchNorm1d, Linear, ReLU, Sequential
    from torch_geometric.data import Data, InMemoryDataset
    from torch_geometric.loader import DataLoader
    from torch_geometric.nn import GINConv, global_add_pool

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    tu = os.path.isdir(os.path.join(args.data, "raw")) is False
    x, edge_index, node_offsets, edge_offsets, y, train = (
        read_tu(args.data, args.fold) if tu else read_ogbg(args.data, args.split))
    num_graphs = len(y)
    classes = int(y.max()) + 1

    class Collection(InMemoryDataset):
        """The graphs as TUDataset keeps them: one Data and its slices."""

        def __init__(self):
            super().__init__(None)
            self.data = Data(x=torch.from_numpy(x), edge_index=torch.from_numpy(edge_index),
                             y=torch.from_numpy(y))
            self.slices = {"x": torch.from_numpy(node_offsets),
                           "edge_index": torch.from_numpy(edge_offsets),
                           "y": torch.arange(num_graphs + 1)}

    dataset = Collection()[torch.from_numpy(train)]
    loader = DataLoader(dataset, batch_size=args.batch, shuffle=True)

    def mlp(width_in):
        return Sequential(Linear(width_in, args.hidden),
                          BatchNorm1d(args.hidden, track_running_stats=False), ReLU(),
                          Linear(args.hidden, args.hidden))

    class GIN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.convs = torch.nn.ModuleList(
                [GINConv(mlp(x.shape[1] if i == 0 else args.hidden)) for i in range(5)])
            self.norms = torch.nn.ModuleList(
                [BatchNorm1d(args.hidden, track_running_stats=False) for _ in range(5)])
            self.heads = torch.nn.ModuleList([Linear(args.hidden, classes) for _ in range(5)])

        def forward(self, h, edge_index, batch):
            score = 0
            for conv, norm, head in zip(self.convs, self.norms, self.heads):
                h = F.relu(norm(conv(h, edge_index)))
                score = score + F.dropout(head(global_add_pool(h, batch)), 0.5, self.training)
            return score

    model = GIN()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    schedule = torch.optim.lr_scheduler.StepLR(optimizer, step_size=50, gamma=0.5)
    print(f"pyg_gin: torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"{num_graphs} graphs ({len(train)} training), {x.shape[0]} nodes, "
          f"{edge_index.shape[1]} edges, {x.shape[1]} features, {classes} classes",
          file=sys.stderr, flush=True)

    times, cpu, loss_mean = [], [], 0.0
    model.train()
    for epoch in range(1, args.epochs + 1):
        total, steps = 0.0, 0
        start, start_cpu = time.perf_counter(), time.process_time()
        for batch in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(batch.x, batch.edge_index, batch.batch), batch.y)
            loss.backward()
            optimizer.step()
            total += loss.item()
            steps += 1
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        schedule.step()
        loss_mean = total / steps
        print(f"pyg_gin: epoch {epoch} loss {loss_mean:.4f} ({times[-1]:.3f} s)",
              file=sys.stderr, flush=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"pyg_gin: graphs={num_graphs} train={len(train)} nodes={x.shape[0]} "
          f"edges={edge_index.shape[1]} epoch_s={','.join(f'{t:.4f}' for t in times)} "
          f"median_epoch_s={statistics.median(times[1:]):.4f} "
          f"median_epoch_cpu_s={statistics.median(cpu[1:]):.4f} peak_rss_mib={rss:.0f} "
          f"last_loss={loss_mean:.4f}", flush=True)


if __name__ == "__main__":
    main()
