#!/usr/bin/env python3
"""The floor of one sampled GraphSAGE training step (bench/sage_sampled.sh):
bytes a perfect implementation must move over the measured memory bandwidth,
plus the FLOPs of its GEMMs over the measured SGEMM peak, for a batch of the
mean sizes the trainer reports (--stats: "mean batch: block l sources S
destinations D edges E").

  sage_floor.py --blocks "S0,D0,E0;S1,D1,E1;..." --features F --hidden H \
                --classes C --bandwidth GBS --peak GFLOPS

Per step (4-byte floats and ids; block l maps S_l sources to D_l destinations,
the destinations being the first sources; layer l has a_l inputs, b_l outputs):
  gather    the input rows of block 0's sources: read S0*F, written once into
            the first layer's input
  layer l   SAGEConv mean with a root weight: the mean over E_l edges gathers
            one row per edge (E_l*w) plus an id per edge, at the narrower side
            w = min(a_l, b_l) (gnn-reorder's choice); the output D_l*b_l
            written; GEMMs 2 * D_l*a_l*b_l * 2 (neighbour and root weights;
            on S_l rows for the neighbour weight when it comes first)
  backward  the same gathers again (the mean's adjoint) and twice the GEMM
            FLOPs (weight gradients, and input gradients except for layer 0,
            whose input needs none)
The floor above is that of gnnc's dataflow, which copies the input rows into
the batch (the gather line). A dataflow whose first aggregation reads the
rows where the dataset keeps them moves less: no copy, only the root term's
D0 rows read (D0*F) besides layer 0's gathered rows. Its floor is printed as
best_s; the GEMM term is the same in both, and is most of either.

Prints one machine-readable line:
  floor: bytes=B flops=F mem_s=S gemm_s=S floor_s=S best_s=S
"""
import argparse

FLOAT = 4
INDEX = 4


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", required=True, help="S,D,E per block, ';'-separated, layer 0 first")
    for name in ("features", "hidden", "classes"):
        ap.add_argument("--" + name, type=int, required=True)
    ap.add_argument("--bandwidth", type=float, required=True, help="GB/s")
    ap.add_argument("--peak", type=float, required=True, help="GFLOP/s")
    a = ap.parse_args()

    blocks = [tuple(float(v) for v in b.split(",")) for b in a.blocks.split(";") if b]
    widths = [a.features] + [a.hidden] * (len(blocks) - 1) + [a.classes]
    s0 = blocks[0][0]
    total_b = 2 * s0 * a.features * FLOAT  # the input gather: read + write
    total_f = 0.0
    rows = [("gather input rows", total_b, 0.0)]
    for l, (s, d, e) in enumerate(blocks):
        ain, bout = widths[l], widths[l + 1]
        w = min(ain, bout)
        gather = e * (w * FLOAT + INDEX) + (d + 1) * INDEX
        written = d * bout * FLOAT
        neighbour_rows = s if bout < ain else d
        fwd_flops = 2 * neighbour_rows * ain * bout + 2 * d * ain * bout
        bwd_flops = fwd_flops * (2 if l > 0 else 1)
        b = 2 * gather + 2 * written
        rows.append((f"layer {l}: {int(s)} -> {int(d)} nodes, {int(e)} edges, "
                     f"{ain} -> {bout}", b, fwd_flops + bwd_flops))
        total_b += b
        total_f += fwd_flops + bwd_flops
    bw, peak = a.bandwidth * 1e9, a.peak * 1e9
    mem_s, gemm_s = total_b / bw, total_f / peak
    # The best dataflow: layer 0 gathers from the dataset in place; only its
    # destinations' own rows are read for the root term.
    in_place_b = blocks[0][1] * a.features * FLOAT
    best_s = (total_b - rows[0][1] + in_place_b) / bw + gemm_s
    rows.append(("best dataflow instead: root rows read in place, no copy",
                 in_place_b - rows[0][1], 0.0))
    print(f"{'op':<60} {'MB':>8} {'GFLOP':>8} {'floor ms':>9}")
    for name, b, f in rows:
        print(f"{name:<60} {b / 1e6:8.2f} {f / 1e9:8.3f} {1e3 * (b / bw + f / peak):9.3f}")
    print(f"floor: bytes={total_b:.0f} flops={total_f:.0f} mem_s={mem_s:.5f} "
          f"gemm_s={gemm_s:.5f} floor_s={mem_s + gemm_s:.5f} best_s={best_s:.5f}")


if __name__ == "__main__":
    main()
