#!/usr/bin/env python3
"""The floor of one training epoch of examples/gin_nci1.gnn's GIN (bench/
gin_graphs.sh): the FLOPs of its GEMMs over the measured SGEMM peak plus the
bytes a perfect implementation of its dataflow must move over the measured
memory bandwidth (bench/README.md, "The floor of a GIN epoch").

  gin_floor.py --steps S --nodes N --edges E --graphs G --features F \
               [--hidden 64 --classes 2 --layers 5] --bandwidth GBS --peak GFLOPS

N, E and G are the epoch's totals over its steps (the trainer's --stats line
gives per-step means: multiply by the steps). Prints a breakdown, then one
machine-readable line:
  floor: flops=F bytes=B gemm_s=S mem_s=S floor_s=S
"""
import argparse

FLOAT = 4  # float32 values
INDEX = 4  # int32 node ids and offsets suffice within a batch


def model(s, n, e, g, f, h, c, layers):
    """[(op, bytes, flops)] of one epoch: s steps over n nodes, e edges and
    g graphs in all. Elementwise work is fused into the op next to it; every
    dense tensor an op touches is read or written once by it."""
    ops = []

    def add(name, nbytes, flops=0):
        ops.append((name, nbytes, flops))

    widths = [f] + [h] * (layers - 1)
    params = 0
    for d in widths:
        params += d * h + h + 2 * h + h * h + h + 2 * h + h * c + c
    # Packing: the batch's feature rows and its CSR (offsets, sources).
    add("pack features and CSR", 2 * n * f * FLOAT + (n + s + e) * INDEX)
    for layer, d in enumerate(widths):
        p = f"layer {layer}"
        csr = (n + s + e) * INDEX
        # aggregate(g, x, sum) + (1 + eps) x: a row per edge and per node in,
        # a row per node out.
        add(f"{p} fwd aggregate", csr + (e + n) * d * FLOAT + n * d * FLOAT)
        # Linear (+ bias, the batch norm's column sums in its epilogue).
        add(f"{p} fwd linear 1", (n * d + n * h + s * d * h) * FLOAT, 2 * n * d * h)
        # Batch norm and ReLU applied as the second Linear reads its input.
        add(f"{p} fwd linear 2", (2 * n * h + s * h * h) * FLOAT, 2 * n * h * h)
        # The layer's batch norm and ReLU; the readout sums the written rows
        # as they go, and its head is [graphs, hidden] x [hidden, classes].
        add(f"{p} fwd norm, relu, readout, head", (2 * n * h + g * c) * FLOAT, 2 * g * h * c)
    add("loss and its gradient", (2 * g * c) * FLOAT + g * INDEX)
    for layer, d in reversed(list(enumerate(widths))):
        p = f"layer {layer}"
        # The head's and the readout's gradient broadcast into the rows, with
        # the outer batch norm's backward: two passes over the rows and the
        # saved normalized values (the column sums, then the gradient).
        add(f"{p} bwd head, readout, norm", (5 * n * h + g * c) * FLOAT, 2 * g * h * c * 2)
        # Linear 2: dX and dW.
        add(f"{p} bwd linear 2", (4 * n * h + 2 * s * h * h) * FLOAT, 4 * n * h * h)
        add(f"{p} bwd inner norm, relu", 5 * n * h * FLOAT)
        # Linear 1: dW always, dX except for the input features.
        dx = layer > 0
        add(f"{p} bwd linear 1",
            (n * d + n * h + (n * h + n * d if dx else 0) + 2 * s * d * h) * FLOAT,
            2 * n * d * h * (2 if dx else 1))
        if dx:
            # The aggregation's adjoint, added into the previous layer's rows.
            add(f"{p} bwd aggregate", (n + s + e) * INDEX + (e + 2 * n) * d * FLOAT)
    # Adam: parameter, gradient, two moments read; parameter and moments
    # written; the gradients zeroed before the step.
    add("optimizer (Adam) and zeroing", s * params * 8 * FLOAT)
    return ops, params


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("steps", "nodes", "edges", "graphs", "features"):
        ap.add_argument(f"--{name}", type=float, required=True)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--classes", type=int, default=2)
    ap.add_argument("--layers", type=int, default=5)
    ap.add_argument("--bandwidth", type=float, required=True, help="GB/s")
    ap.add_argument("--peak", type=float, required=True, help="GFLOP/s")
    a = ap.parse_args()
    ops, params = model(a.steps, a.nodes, a.edges, a.graphs, int(a.features), a.hidden,
                        a.classes, a.layers)
    total_bytes = sum(o[1] for o in ops)
    total_flops = sum(o[2] for o in ops)
    print(f"{int(a.steps)} steps, {int(a.nodes)} nodes, {int(a.edges)} edges, {int(a.graphs)} graphs, "
          f"{int(a.features)} features, hidden {a.hidden}, {a.layers} layers, {params} parameters")
    print(f"{'op':40s} {'MB':>10s} {'GFLOP':>10s}")
    for name, b, fl in ops:
        print(f"{name:40s} {b / 1e6:10.1f} {fl / 1e9:10.3f}")
    mem_s = total_bytes / (a.bandwidth * 1e9)
    gemm_s = total_flops / (a.peak * 1e9)
    print(f"{'total':40s} {total_bytes / 1e6:10.1f} {total_flops / 1e9:10.3f}")
    print(f"floor: flops={total_flops:.0f} bytes={total_bytes:.0f} gemm_s={gemm_s:.4f} "
          f"mem_s={mem_s:.4f} floor_s={gemm_s + mem_s:.4f}")


if __name__ == "__main__":
    main()
