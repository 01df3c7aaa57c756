#!/usr/bin/env bash
# bench/rgcn_mag.sh - R-GCN with basis decomposition on a generated
# ogbn-mag-shaped graph (gnn-data generate --kind mag: paper, author,
# institution, field_of_study; 4 relations and their inverses; 128 features
# on papers, learned input rows for the other types), full-graph epoch and
# sampled batch time, beside DGL's RelGraphConv model of the same design
# (bench/rgcn/dgl_rgcn_mag.py) in the same run. See bench/README.md.
#
#   bench/rgcn_mag.sh                       # 1M nodes
#   NODES=100000 EPOCHS=3 bench/rgcn_mag.sh
#
# Environment (defaults in brackets): BENCH_DIR [/tmp/gnnc-bench], NODES
# [1000000], HIDDEN [64], BASES [2], EPOCHS [4] (full graph: the first is
# warm-up), FANOUTS [10,10], BATCH [1024], BATCHES [8] (timed batches per
# sampled epoch; gnnc runs 3 such epochs, the first warm-up), THREADS [2],
# DGL [1] (0 skips DGL), MODES ["full sampled"] (either alone: a 1M-node
# full-graph DGL epoch takes minutes), GNNC, GNN_DATA.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NAME=rgcn_mag
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-1000000}"
HIDDEN="${HIDDEN:-64}"
BASES="${BASES:-2}"
EPOCHS="${EPOCHS:-4}"
FANOUTS="${FANOUTS:-10,10}"
BATCH="${BATCH:-1024}"
BATCHES="${BATCHES:-8}"
THREADS="${THREADS:-2}"
DGL="${DGL:-1}"
MODES="${MODES:-full sampled}"
GNNC="${GNNC:-$ROOT/build/bin/gnnc}"
GNN_DATA="${GNN_DATA:-$ROOT/build/bin/gnn-data}"
source "$ROOT/bench/common.sh"
[[ -x "$GNNC" && -x "$GNN_DATA" ]] || die "build first (make)"
(( EPOCHS >= 2 )) || die "EPOCHS must be at least 2 (the first is warm-up)"
export OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS="$THREADS" MKL_NUM_THREADS="$THREADS"

DATA="$(mag_graph)"
# A split whose train papers are the sampled run's seeds: BATCHES batches.
SPLIT="bench-b${BATCH}x${BATCHES}"
if [[ ! -f "$DATA/split/$SPLIT/.bench-complete" ]]; then
  python3 - "$DATA" "$SPLIT" "$(( BATCH * BATCHES ))" <<'PYEOF'
import gzip, os, random, sys
root, split, seeds = sys.argv[1], sys.argv[2], int(sys.argv[3])
ids = lambda s: [l.strip() for l in gzip.open(f"{root}/split/random/paper/{s}.csv.gz", "rt") if l.strip()]
train = ids("train")
if len(train) < seeds:
    sys.exit(f"the train split has {len(train)} papers, {seeds} needed")
random.Random(1).shuffle(train)
out = f"{root}/split/{split}/paper"
os.makedirs(out, exist_ok=True)
for name, rows in (("train", sorted(train[:seeds], key=int)), ("test", ids("test")[:1024])):
    with gzip.open(f"{out}/{name}.csv.gz", "wt") as f:
        f.write("\n".join(rows) + "\n")
PYEOF
  touch "$DATA/split/$SPLIT/.bench-complete"
fi

RUN="$BENCH_DIR/run/rgcn-mag-n$NODES-h$HIDDEN-b$BASES"
mkdir -p "$RUN"
program() { # program MODE: the .gnn of full-graph or sampled training
  local batches="" g0=g g1=g
  if [[ "$1" == sampled ]]; then
    batches="  batches   = neighbor(fanout = [${FANOUTS//,/, }], batch = $BATCH)"
    g0="g[0]" g1="g[1]"
  fi
  cat <<GNN
// Written by bench/rgcn_mag.sh: R-GCN, 2 layers, hidden $HIDDEN, $BASES bases,
// learned input rows for the featureless types, Adam; evaluated once.
import nn
dataset mag = ogb("mag", split = "$SPLIT", embed = 128)
model RGCN(hidden: int = $HIDDEN) {
  c1 = RGCNBasisConv(mag.features, hidden, mag.relations, $BASES)
  c2 = RGCNBasisConv(hidden, mag.classes, mag.relations, $BASES)
  forward(g, x) { return c2($g1, relu(c1($g0, x))) }
}
train RGCN on mag {
$batches
  optimizer = adam(lr = 0.01)
  epochs    = 100
  evaluate  = test every 100 epochs
}
GNN
}

# ours MODE EPOCHS DIVISOR: the median train time of the epochs after the
# first, divided by DIVISOR (1 per epoch, BATCHES per batch).
ours() {
  program "$1" > "$RUN/$1.gnn"
  "$GNNC" "$RUN/$1.gnn" -o "$RUN/$1" >/dev/null
  "$RUN/$1" --data "$DATA" --epochs "$2" --threads "$THREADS" \
    --metrics "$RUN/$1.jsonl" > "$RUN/$1.out" 2> "$RUN/$1.err" ||
    die "$RUN/$1 failed: $(tail -3 "$RUN/$1.err")"
  local times
  times=$(python3 -c 'import json, sys
print(" ".join(str(json.loads(l)["epoch_seconds"] / float(sys.argv[2])) for l in list(open(sys.argv[1]))[1:]))' \
    "$RUN/$1.jsonl" "$3")
  # shellcheck disable=SC2086
  echo "$(median $times)"
}

log "load average $(load_avg)"
# The first load parses the CSV files and writes the binary cache: untimed.
[[ -f "$RUN/.cache-warm" ]] || { ours full 1 1 >/dev/null; touch "$RUN/.cache-warm"; }
runs() { [[ " $MODES " == *" $1 "* ]]; }
if runs full; then
  FULL="$(ours full "$EPOCHS" 1)"
  echo "gnnc full: median $FULL s per epoch over $(( EPOCHS - 1 ))"
fi
if runs sampled; then
  SAMPLED="$(ours sampled 3 "$BATCHES")"
  echo "gnnc sampled: median $SAMPLED s per batch ($BATCHES batches of $BATCH, fanouts [$FANOUTS]) over 2 epochs"
fi
if [[ "$DGL" != 0 ]]; then
  ensure_venv "$BENCH_DIR/venv-dgl" "torch, dgl" "${DGL_PACKAGES[@]}"
  VPY="$BENCH_DIR/venv-dgl/bin/python"
  if runs full; then
    "$VPY" -W ignore "$ROOT/bench/rgcn/dgl_rgcn_mag.py" "$DATA" "$SPLIT" full \
      "$HIDDEN" "$BASES" "$(( EPOCHS - 1 ))" 1 "$THREADS"
  fi
  if runs sampled; then
    "$VPY" -W ignore "$ROOT/bench/rgcn/dgl_rgcn_mag.py" "$DATA" "$SPLIT" sampled \
      "$HIDDEN" "$BASES" "$BATCHES" 2 "$THREADS" "$FANOUTS" "$BATCH"
  fi
fi
log "load average $(load_avg)"
