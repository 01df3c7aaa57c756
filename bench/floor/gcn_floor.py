#!/usr/bin/env python3
"""The floor of one full-graph training epoch of the 2-layer GCN in
bench/gcn_full_graph.sh: bytes a perfect implementation must move over the
measured memory bandwidth, plus the FLOPs of its GEMMs over the measured
SGEMM peak. bench/README.md explains the model; this file is its arithmetic.

  gcn_floor.py --nodes N --edges E --features F --hidden H --classes C \
               --bandwidth GBS --peak GFLOPS [--miss-hidden X --miss-classes Y]

E is the edge count the trainer sees (after reverse edges and dedupe, without
self loops). --miss-hidden and --miss-classes are the shares of gathered edge
rows (of H and C floats) that come from memory rather than the last-level
cache, as floor/gather_model.cpp models them for the trainer's node order;
they give the floor of the bytes actually moved (moved_floor_s). The naive
floor (floor_s) reads every gathered row from memory. The hoisted floor
(hoisted_floor_s) is the naive floor of the dataflow gnnc runs since
gnn-hoist-invariants: layer 1 aggregates the (constant) features once per
run, so an epoch has neither layer-1 aggregation, and its GEMMs read the kept
A.X (N x F) where they read X. Prints a breakdown, then one machine-readable
line:
  floor: bytes=B flops=F mem_s=S gemm_s=S floor_s=S strict_floor_s=S moved_floor_s=S hoisted_floor_s=S
"""
import argparse

FLOAT = 4  # float32 values
INDEX = 4  # int32 node ids and CSR offsets suffice below 2^31 edges


def model(n, e, f, h, c, miss_h=1.0, miss_c=1.0):
    """[(op, bytes, flops, bytes if each gathered row were read once,
    bytes with the modeled cache misses)]."""
    ops = []

    def aggregation(name, width, out_width, extra_reads=0):
        # CSR walk: offsets + one source id per edge; one row per edge plus the
        # self loop's row; one output row per node; the norm vector it fuses.
        idx = (n + 1) * INDEX + e * INDEX
        gathered = (e + n) * width * FLOAT
        written = n * out_width * FLOAT
        norm = n * FLOAT
        strict_gathered = n * width * FLOAT
        # The self loop's rows stream; the edges' rows miss at the modeled rate.
        miss = miss_h if width == h else miss_c
        moved_gathered = (e * miss + n) * width * FLOAT
        base = idx + written + norm + extra_reads
        ops.append((name, base + gathered, 0, base + strict_gathered,
                    base + moved_gathered))

    def gemm(name, m, k, nn, reads, writes, norm=False):
        b = (reads + writes) * FLOAT + (n * FLOAT if norm else 0)
        ops.append((name, b, 2 * m * k * nn, b, b))

    # forward (elementwise ops fused into the producing or consuming op)
    gemm("fwd  X@W1 (*norm_src)", n, f, h, reads=n * f, writes=n * h, norm=True)
    aggregation("fwd  aggregate 1 (*norm_dst, +b1, relu)", h, h)
    gemm("fwd  H1@W2 (*norm_src)", n, h, c, reads=n * h, writes=n * c, norm=True)
    aggregation("fwd  aggregate 2 (*norm_dst, +b2, loss and its grad)", c, c,
                extra_reads=n * INDEX)  # labels
    # backward
    aggregation("bwd  aggregate 2 transposed (*norm_src)", c, c)
    gemm("bwd  dW2 = H1^T @ dZ2", h, n, c, reads=n * h + n * c, writes=0)
    gemm("bwd  dH1 = dZ2 @ W2^T (relu mask, *norm_dst)", n, c, h,
         reads=n * c + n * h, writes=n * h, norm=True)
    aggregation("bwd  aggregate 1 transposed (*norm_src)", h, h)
    gemm("bwd  dW1 = X^T @ dZ1", f, n, h, reads=n * f + n * h, writes=0)
    # X has no gradient: no dX GEMM, no layer-1 input aggregation beyond dZ1.
    return ops


def main():
    ap = argparse.ArgumentParser()
    for name in ("nodes", "edges", "features", "hidden", "classes"):
        ap.add_argument("--" + name, type=int, required=True)
    ap.add_argument("--bandwidth", type=float, required=True, help="GB/s")
    ap.add_argument("--peak", type=float, required=True, help="GFLOP/s")
    ap.add_argument("--miss-hidden", type=float, default=1.0,
                    help="share of gathered rows of width hidden from memory")
    ap.add_argument("--miss-classes", type=float, default=1.0,
                    help="share of gathered rows of width classes from memory")
    a = ap.parse_args()

    ops = model(a.nodes, a.edges, a.features, a.hidden, a.classes,
                a.miss_hidden, a.miss_classes)
    bw, peak = a.bandwidth * 1e9, a.peak * 1e9
    total_b = sum(o[1] for o in ops)
    total_f = sum(o[2] for o in ops)
    strict_b = sum(o[3] for o in ops)
    moved_b = sum(o[4] for o in ops)
    print(f"{'op':<56} {'GB':>8} {'GFLOP':>8} {'floor s':>8} {'moved GB':>9} {'moved s':>8}")
    for name, b, fl, _, mb in ops:
        print(f"{name:<56} {b / 1e9:8.3f} {fl / 1e9:8.2f} {b / bw + fl / peak:8.4f} "
              f"{mb / 1e9:9.3f} {mb / bw + fl / peak:8.4f}")
    mem_s, gemm_s = total_b / bw, total_f / peak
    strict_s = strict_b / bw + gemm_s
    moved_s = moved_b / bw + gemm_s
    hoisted_b = sum(o[1] for o in ops if "aggregate 1" not in o[0])
    hoisted_s = hoisted_b / bw + gemm_s
    print(f"{'total':<56} {total_b / 1e9:8.3f} {total_f / 1e9:8.2f} {mem_s + gemm_s:8.4f} "
          f"{moved_b / 1e9:9.3f} {moved_s:8.4f}")
    print(f"floor: bytes={total_b} flops={total_f} mem_s={mem_s:.4f} gemm_s={gemm_s:.4f} "
          f"floor_s={mem_s + gemm_s:.4f} strict_floor_s={strict_s:.4f} "
          f"moved_floor_s={moved_s:.4f} hoisted_floor_s={hoisted_s:.4f}")


if __name__ == "__main__":
    main()
