#!/usr/bin/env bash
# bench/precision_accuracy.sh - the accuracy effect of mixed precision
# (issue 32): the final test accuracy of examples/gcn_cora.gnn,
# gat_cora.gnn, sage_cora_sampled.gnn and rgcn_aifb.gnn on the bundled data
# for SEEDS seeds (--seed 0..SEEDS-1), trained with --precision fp32 and
# with --precision bf16; prints per model the mean ± std of each and the
# difference of the means.
#
#   bench/precision_accuracy.sh            # 10 seeds
# Environment: SEEDS [10], THREADS [2], BENCH_DIR [/tmp/gnnc-bench], GNNC.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SEEDS="${SEEDS:-10}"
THREADS="${THREADS:-2}"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
GNNC="${GNNC:-$ROOT/build/bin/gnnc}"
[[ -x "$GNNC" ]] || { echo "precision_accuracy: no $GNNC (build first: make)" >&2; exit 1; }
RUN="$BENCH_DIR/run/precision-accuracy"
mkdir -p "$RUN"

data_of() { case "$1" in rgcn_aifb) echo "$ROOT/examples/data/aifb";; *) echo "$ROOT/examples/data/cora";; esac; }
{
  echo "precision_accuracy: final test accuracy over seeds 0..$((SEEDS - 1)), $THREADS threads"
  printf '%-18s %-16s %-16s %s\n' model fp32 bf16 "bf16 - fp32"
  for model in gcn_cora gat_cora sage_cora_sampled rgcn_aifb; do
    "$GNNC" "$ROOT/examples/$model.gnn" -o "$RUN/$model"
    : >"$RUN/$model.acc"
    for seed in $(seq 0 $((SEEDS - 1))); do
      for precision in fp32 bf16; do
        acc="$("$RUN/$model" --data "$(data_of "$model")" --threads "$THREADS" --seed "$seed" \
          --precision "$precision" 2>/dev/null | sed -n 's/^final:.* test_acc \([0-9.]*\).*/\1/p')"
        [[ -n "$acc" ]] || { echo "precision_accuracy: $model seed $seed $precision printed no final line" >&2; exit 1; }
        echo "$precision $acc" >>"$RUN/$model.acc"
      done
    done
    python3 - "$model" "$RUN/$model.acc" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[2])]
acc = {p: [100 * float(a) for q, a in rows if q == p] for p in ("fp32", "bf16")}
cell = lambda v: f"{statistics.mean(v):.2f} ± {statistics.stdev(v):.2f}"
print(f"{sys.argv[1]:<18} {cell(acc['fp32']):<16} {cell(acc['bf16']):<16} "
      f"{statistics.mean(acc['bf16']) - statistics.mean(acc['fp32']):+.2f}")
PY
  done
} | tee "$BENCH_DIR/precision_accuracy.txt"
