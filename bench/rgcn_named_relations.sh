#!/usr/bin/env bash
# bench/rgcn_named_relations.sh - a layer written with relation(g, "name")
# (a matrix per relation of ogbn-mag's 4 and their inverses, mean over each
# relation's messages, self connection) on a generated mag-shaped graph,
# full graph or sampled: the epoch time and the process CPU time per epoch.
# Each relation's subgraph comes from the graph's relation index, built on
# first use and kept with the graph (a sampled block's for its step).
# Pass GNNC of another build to compare (its libgnnrt is the one it links).
#
#   bench/rgcn_named_relations.sh                 # 100k nodes, 1 thread
#   MODE=sampled bench/rgcn_named_relations.sh
#   GNNC=/other/build/bin/gnnc bench/rgcn_named_relations.sh
#
# Environment (defaults in brackets): BENCH_DIR [/tmp/gnnc-bench], NODES
# [100000], HIDDEN [16], EPOCHS [4] (the first is warm-up), THREADS [1],
# MODE [full] (or sampled: fanouts [10, 10], batches of 1024), GNNC,
# GNN_DATA.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NAME=rgcn_named_relations
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-100000}"
HIDDEN="${HIDDEN:-16}"
EPOCHS="${EPOCHS:-4}"
THREADS="${THREADS:-1}"
MODE="${MODE:-full}"
GNNC="${GNNC:-$ROOT/build/bin/gnnc}"
GNN_DATA="${GNN_DATA:-$ROOT/build/bin/gnn-data}"
source "$ROOT/bench/common.sh"
[[ -x "$GNNC" && -x "$GNN_DATA" ]] || die "build first (make)"
(( EPOCHS >= 2 )) || die "EPOCHS must be at least 2 (the first is warm-up)"
export OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS="$THREADS" MKL_NUM_THREADS="$THREADS"

# The graph bench/rgcn_mag.sh trains on (the same directory).
DATA="$(mag_graph)"

RUN="$BENCH_DIR/run/rgcn-named-n$NODES-h$HIDDEN-$MODE-$(echo "$GNNC" | md5sum | cut -c1-8)"
g0=g g1=g batches=""
if [[ "$MODE" == sampled ]]; then
  g0="g[0]" g1="g[1]"
  batches="  batches   = neighbor(fanout = [10, 10], batch = 1024)"
fi
mkdir -p "$RUN"
relations=(cites cites_inv writes writes_inv affiliated_with affiliated_with_inv
           has_topic has_topic_inv)
{
  echo "// Written by bench/rgcn_named_relations.sh."
  echo "import nn"
  echo "dataset mag = ogb(\"mag\", split = \"random\", embed = 128)"
  echo "layer NamedConv(in: int, out: int) {"
  for r in "${relations[@]}" self; do echo "  param w_$r: [in, out] = glorot"; done
  echo "  param b: [out] = zeros"
  echo "  forward(g: graph, x: [g.src, in]) -> [g.dst, out] {"
  printf "    return "
  for r in "${relations[@]}"; do
    printf "aggregate(relation(g, \"%s\"), x, mean) @ w_%s + " "$r" "$r"
  done
  echo "dst(x) @ w_self + b"
  echo "  }"
  echo "}"
  echo "model M(hidden: int = $HIDDEN) {"
  echo "  c1 = NamedConv(mag.features, hidden)"
  echo "  c2 = NamedConv(hidden, mag.classes)"
  echo "  forward(g, x) { return c2($g1, relu(c1($g0, x))) }"
  echo "}"
  echo "train M on mag {"
  [[ -z "$batches" ]] || echo "$batches"
  echo "  optimizer = adam(lr = 0.01)"
  echo "  epochs    = 100"
  echo "  evaluate  = test every 100 epochs"
  echo "}"
} > "$RUN/named.gnn"

"$GNNC" "$RUN/named.gnn" -o "$RUN/named" >/dev/null
log "load average $(load_avg)"
"$RUN/named" --data "$DATA" --epochs "$EPOCHS" --threads "$THREADS" \
  --metrics "$RUN/named.jsonl" > "$RUN/named.out" 2> "$RUN/named.err" ||
  die "$RUN/named failed: $(tail -3 "$RUN/named.err")"
python3 - "$RUN/named.jsonl" "$MODE" <<'PYEOF'
import json, statistics, sys
epochs = [json.loads(l) for l in open(sys.argv[1])][1:]
wall = statistics.median(e["epoch_seconds"] for e in epochs)
cpu = statistics.median(e["epoch_cpu_seconds"] for e in epochs)
print(f"gnnc named relations, {sys.argv[2]}: median {wall:.3f} s per epoch, "
      f"{cpu:.3f} s CPU, over {len(epochs)} epochs")
PYEOF
log "load average $(load_avg)"
