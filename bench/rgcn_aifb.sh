#!/usr/bin/env bash
# bench/rgcn_aifb.sh - R-GCN on AIFB, accuracy against DGL on the same files:
# examples/rgcn_aifb.gnn (the paper's one-hot input layer) and a variant with
# learned input rows (embed = 16, as DGL's entity-classification example),
# each over SEEDS seeds, beside DGL's RelGraphConv models of the same two
# designs (bench/rgcn/dgl_rgcn_aifb.py) in the same run. Prints one line per
# model: the mean test accuracy and each seed's. See bench/README.md.
#
#   bench/rgcn_aifb.sh            # 10 seeds
#   SEEDS=3 DGL=0 bench/rgcn_aifb.sh
#
# Environment (defaults in brackets): BENCH_DIR [/tmp/gnnc-bench] (the DGL
# venv and the built programs), SEEDS [10], DGL [1] (0 skips DGL), GNNC
# [build/bin/gnnc].
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NAME=rgcn_aifb
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
SEEDS="${SEEDS:-10}"
DGL="${DGL:-1}"
GNNC="${GNNC:-$ROOT/build/bin/gnnc}"
DATA="$ROOT/examples/data/aifb"
source "$ROOT/bench/common.sh"
[[ -x "$GNNC" ]] || die "no $GNNC: build first (make)"

RUN="$BENCH_DIR/run/rgcn_aifb"
mkdir -p "$RUN"
# The example, and the same model on learned input rows.
cp "$ROOT/examples/rgcn_aifb.gnn" "$RUN/onehot.gnn"
sed -e 's/self_loops = true)/self_loops = true, embed = 16)/' \
    -e 's/RGCNInputConv(aifb.nodes, hidden, aifb.relations)/RGCNConv(aifb.features, hidden, aifb.relations)/' \
    -e 's/relu(c1(g))/relu(c1(g, x))/' \
    -e 's/adam(lr = 0.01)/adam(lr = 0.01, weight_decay = 5e-4)/' \
    "$ROOT/examples/rgcn_aifb.gnn" > "$RUN/embedding.gnn"

ours() { # ours MODE: one line, as the DGL script prints it
  "$GNNC" "$RUN/$1.gnn" -o "$RUN/$1" >/dev/null
  local accs=()
  for ((s = 0; s < SEEDS; ++s)); do
    accs+=("$("$RUN/$1" --data "$DATA" --seed "$s" --threads 1 2>/dev/null |
      awk '/^final:/ {print $NF}')")
  done
  printf '%s\n' "${accs[@]}" | awk -v mode="$1" -v n="$SEEDS" \
    '{s += $1; a = a " " sprintf("%.4f", $1)} END {printf "gnnc %s: mean test accuracy %.4f over %d seeds:%s\n", mode, s / NR, n, a}'
}

log "load average $(load_avg)"
ours onehot
ours embedding
if [[ "$DGL" != 0 ]]; then
  ensure_venv "$BENCH_DIR/venv-dgl" "torch, dgl" "${DGL_PACKAGES[@]}"
  for mode in onehot embedding; do
    "$BENCH_DIR/venv-dgl/bin/python" -W ignore "$ROOT/bench/rgcn/dgl_rgcn_aifb.py" \
      "$DATA" "$SEEDS" "$mode"
  done
fi
