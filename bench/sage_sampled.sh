#!/usr/bin/env bash
# bench/sage_sampled.sh - sampled GraphSAGE training, time per batch: gnnc's
# trainer against the floor of a batch on this machine (the input gather, the
# sampled edges' gathers and the GEMMs of the mean batch the trainer reports)
# and against DGL (NeighborSampler + DataLoader + SAGEConv) in the same run,
# the two taking turns for ROUNDS rounds. See bench/README.md.
#
#   bench/sage_sampled.sh                          # 1M nodes, 20M edges, 128 features
#   NODES=300000 EDGES=6000000 bench/sage_sampled.sh
#
# Environment (defaults in brackets):
#   BENCH_DIR [/tmp/gnnc-bench]  data, the DGL venv, built programs, results
#   NODES [1000000] EDGES [20000000] FEATURES [128] CLASSES [16] HIDDEN [128]
#   FANOUTS [5,10,15]  per layer, layer 0 (the input side) first, as in the
#                      language and in DGL; the model has one SAGEConv each
#   BATCH [1024]       seeds per batch
#   BATCHES [10]       timed batches per run: each run trains on
#                      (WARMUP + BATCHES) x BATCH seeds drawn from the train split
#   WARMUP [2]         DGL's untimed batches per run (gnnc: its first epoch)
#   EPOCHS [3]         gnnc's epochs per run (the median leaves out the first)
#   ROUNDS [3]         rounds of runs, gnnc and DGL in turn
#   THREADS [2]        OpenMP / BLAS / torch threads
#   DGL_WORKERS [0,1]  DataLoader worker counts DGL tries (the faster counts)
#   PRECISIONS [fp32]  gnnc's --precision values to run each round ("fp32 bf16":
#                      both, the first compared with the floor and DGL)
#   GNNC, GNN_DATA     the tools [build/bin/gnnc, build/bin/gnn-data]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-1000000}"
EDGES="${EDGES:-20000000}"
FEATURES="${FEATURES:-128}"
CLASSES="${CLASSES:-16}"
HIDDEN="${HIDDEN:-128}"
FANOUTS="${FANOUTS:-5,10,15}"
BATCH="${BATCH:-1024}"
BATCHES="${BATCHES:-10}"
WARMUP="${WARMUP:-2}"
EPOCHS="${EPOCHS:-3}"
ROUNDS="${ROUNDS:-3}"
THREADS="${THREADS:-2}"
DGL_WORKERS="${DGL_WORKERS:-0,1}"
GNNC="${GNNC:-$ROOT/build/bin/gnnc}"
GNN_DATA="${GNN_DATA:-$ROOT/build/bin/gnn-data}"
PY="${PYTHON:-python3}"

NAME=sage_sampled
source "$ROOT/bench/common.sh"

[[ -x "$GNNC" ]] || die "no $GNNC (build first: make)"
[[ -x "$GNN_DATA" ]] || die "no $GNN_DATA (build first: make)"
(( EPOCHS >= 2 )) || die "EPOCHS must be at least 2 (the first is warm-up)"

mkdir -p "$BENCH_DIR"/{data,bin,run}
TAG="sbm-n${NODES}-e${EDGES}-f${FEATURES}-c${CLASSES}-s1"
SEEDS=$(( (WARMUP + BATCHES) * BATCH ))
RUN="$BENCH_DIR/run/sage-$TAG-h${HIDDEN}-f${FANOUTS//,/_}-b${BATCH}-t${THREADS}"
mkdir -p "$RUN"
RESULT="$BENCH_DIR/sage_sampled-$TAG-h${HIDDEN}-f${FANOUTS//,/_}-b${BATCH}-t${THREADS}.txt"
LOAD_START="$(load_avg)"
export OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS="$THREADS" MKL_NUM_THREADS="$THREADS"

#--- 1. The graph, and a train split of SEEDS nodes ----------------------------
DATA="$(bench_graph)"
ensure_venv "$BENCH_DIR/venv-dgl" "torch, dgl" "${DGL_PACKAGES[@]}"
VPY="$BENCH_DIR/venv-dgl/bin/python"
# The same arrays, but SEEDS training nodes (a fixed shuffle of the train
# split) and small valid/test splits: the runs time training only.
SPLIT="$BENCH_DIR/data/$TAG-seeds$SEEDS"
if [[ ! -f "$SPLIT/.bench-complete" ]]; then
  rm -rf "$SPLIT"
  mkdir -p "$SPLIT"
  for f in "$DATA"/*.npy; do
    case "$(basename "$f")" in *_idx.npy) ;; *) ln -s "$f" "$SPLIT/" ;; esac
  done
  "$VPY" - "$DATA" "$SPLIT" "$SEEDS" <<'PYEOF'
import sys, numpy as np
src, dst, seeds = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = np.random.default_rng(1)
train = rng.permutation(np.load(f"{src}/train_idx.npy"))
if train.size < seeds:
    sys.exit(f"the train split has {train.size} nodes, {seeds} needed")
np.save(f"{dst}/train_idx.npy", np.sort(train[:seeds]))
for split in ("valid", "test"):
    np.save(f"{dst}/{split}_idx.npy", np.load(f"{src}/{split}_idx.npy")[:1024])
PYEOF
  touch "$SPLIT/.bench-complete"
fi

#--- 2. The machine: STREAM bandwidth and SGEMM peak -------------------------
build_floor stream
build_floor gemm_peak -lopenblas
log "measuring memory bandwidth and SGEMM peak ($THREADS threads)"
BW="$("$BENCH_DIR/bin/stream" "$THREADS")"
PEAK="$("$BENCH_DIR/bin/gemm_peak" "$THREADS")"

#--- 3. gnnc's program ---------------------------------------------------------
IFS=, read -r -a FAN <<<"$FANOUTS"
LAYERS=${#FAN[@]}
{
  echo "// Written by bench/sage_sampled.sh: GraphSAGE-mean, $LAYERS layers, hidden $HIDDEN,"
  echo "// sampled [$FANOUTS], batch $BATCH, no dropout, Adam; evaluated after the last epoch only."
  echo "import nn"
  echo "dataset graph = npy(\"$SPLIT\")"
  echo "model SAGE(hidden: int = $HIDDEN) {"
  for ((l = 0; l < LAYERS; ++l)); do
    in=hidden out=hidden
    (( l == 0 )) && in=graph.features
    (( l == LAYERS - 1 )) && out=graph.classes
    echo "  c$l = SAGEConv($in, $out, mean)"
  done
  body=x
  for ((l = 0; l < LAYERS; ++l)); do
    body="c$l(g, $body)"
    (( l < LAYERS - 1 )) && body="relu($body)"
  done
  echo "  forward(g, x) { return $body }"
  echo "}"
  echo "train SAGE on graph {"
  echo "  batches   = neighbor(fanout = [${FANOUTS//,/, }], batch = $BATCH)"
  echo "  optimizer = adam(lr = 0.01)"
  echo "  epochs    = $EPOCHS"
  echo "  evaluate  = [valid, test] every 1000000 epochs"
  echo "}"
} >"$RUN/sage.gnn"
log "compiling $RUN/sage.gnn"
# gnnc reads the dataset's widths (--data): with 128 features (= hidden) the
# first layer aggregates first, so its GEMMs run on the block's destinations
# and the input needs no gather adjoint. DGL's SAGEConv makes the same choice
# at these widths. Without --data the cost model would assume 512 features
# and transform the input first.
"$GNNC" "$RUN/sage.gnn" --data "$SPLIT" -o "$RUN/sage"

#--- 4. Rounds: gnnc, DGL, in turn ---------------------------------------------
GNNC_RUNS="" DGL_RUNS="" DGL_NOTE=""
BATCHES_PER_EPOCH=$(( SEEDS / BATCH ))
read -r -a PRECISION_LIST <<<"${PRECISIONS:-fp32}"
declare -A PRECISION_RUNS=()
for ((r = 1; r <= ROUNDS; ++r)); do
  for precision in "${PRECISION_LIST[@]}"; do
  # The first precision's files keep their names (the floor reads them).
  out="$RUN/gnnc-r$r"
  [[ "$precision" == "${PRECISION_LIST[0]}" ]] || out="$RUN/gnnc-$precision-r$r"
  log "round $r: gnnc --precision $precision ($EPOCHS epochs of $BATCHES_PER_EPOCH batches, $THREADS threads)"
  /usr/bin/time -f "%M" -o "$out.rss" "$RUN/sage" --data "$SPLIT" --threads "$THREADS" \
    --epochs "$EPOCHS" --precision "$precision" --metrics "$out.jsonl" --stats >"$out.out" 2>"$out.err" ||
    { cat "$out.err" >&2; die "the trainer failed"; }
  PRECISION_RUNS[$precision]+=" $(median_epoch "$out.jsonl" "$BATCHES_PER_EPOCH")"
  done
  GNNC_RUNS="${PRECISION_RUNS[${PRECISION_LIST[0]}]}"
  out="$RUN/dgl-r$r" rc=0
  log "round $r: DGL ($WARMUP + $BATCHES batches, workers $DGL_WORKERS, $THREADS threads)"
  "$VPY" -W ignore "$ROOT/bench/sampling/dgl_sage.py" --data "$SPLIT" --fanouts "$FANOUTS" \
    --batch "$BATCH" --hidden "$HIDDEN" --threads "$THREADS" --batches "$BATCHES" \
    --warmup "$WARMUP" --runs 1 --workers "$DGL_WORKERS" >"$out.out" 2>"$out.err" || rc=$?
  if (( rc == 0 )); then
    line="$(grep '^dgl: workers=' "$out.out" | tail -1)"
    DGL_RUNS+=" $(sed -n 's/.* batch_s=\([^ ]*\).*/\1/p' <<<"$line")"
    DGL_NOTE="$line"
  else
    tail -3 "$out.err" >&2
    DGL_NOTE="failed (exit $rc, see $out.err)"
  fi
done
# shellcheck disable=SC2086 # space-separated numbers
OURS_S="$(median $GNNC_RUNS)"
# shellcheck disable=SC2086
DGL_S="$(median $DGL_RUNS)"

#--- 5. The floor of the mean batch ------------------------------------------
MEAN_BATCH="$(grep 'mean batch:' "$RUN/gnnc-r1.out" | sed 's/.*mean batch://')"
BLOCKS="$(echo "$MEAN_BATCH" | grep -o 'sources [0-9]* destinations [0-9]* edges [0-9]*' |
  awk '{printf "%s%s,%s,%s", (NR > 1 ? ";" : ""), $2, $4, $6}')"
FLOOR_TABLE="$("$PY" "$ROOT/bench/floor/sage_floor.py" --blocks "$BLOCKS" --features "$FEATURES" \
  --hidden "$HIDDEN" --classes "$CLASSES" --bandwidth "$BW" --peak "$PEAK")"
FLOOR_S="$(sed -n 's/^floor:.* floor_s=\([^ ]*\).*/\1/p' <<<"$FLOOR_TABLE")"
BEST_S="$(sed -n 's/^floor:.* best_s=\([^ ]*\).*/\1/p' <<<"$FLOOR_TABLE")"
# gnnc's own dataflow: when every batch read layer 0's rows in place (its
# --stats line), that is the best dataflow, and its floor is the best one.
FLOOR_WHAT="of gnnc's dataflow (input rows copied into the batch)"
read -r IN_PLACE_BATCHES ALL_BATCHES < <(sed -n \
  's/.* \([0-9]*\) of \([0-9]*\) batches\/epoch read the others in place.*/\1 \2/p' \
  "$RUN/gnnc-r1.out" | head -1) || true
if [[ -n "${IN_PLACE_BATCHES:-}" && "$IN_PLACE_BATCHES" != 0 && "$IN_PLACE_BATCHES" == "$ALL_BATCHES" ]]; then
  FLOOR_S="$BEST_S"
  FLOOR_WHAT="of gnnc's dataflow (layer 0 reads the rows in place: the best one)"
fi

{
  echo "GraphSAGE-mean, $LAYERS layers, hidden $HIDDEN, sampled [$FANOUTS] (layer 0 first), batch $BATCH:"
  echo "$NODES nodes, $EDGES generated edges (+ reverse, deduplicated), $FEATURES features, $CLASSES classes,"
  echo "$THREADS threads. $ROUNDS rounds of gnnc then DGL; each figure is the median over rounds of a"
  echo "run's seconds per batch (gnnc: median epoch of 2..$EPOCHS / $BATCHES_PER_EPOCH batches; DGL: mean"
  echo "of $BATCHES batches after $WARMUP). Load average at start $LOAD_START, end $(load_avg)."
  echo
  echo "machine: STREAM triad $BW GB/s, SGEMM peak $PEAK GFLOP/s ($THREADS threads)"
  echo "gnnc mean batch:$MEAN_BATCH"
  echo "floor of that batch (see bench/README.md):"
  grep -v '^floor:' <<<"$FLOOR_TABLE" | sed 's/^/  /'
  grep '^stats:' "$RUN/gnnc-r1.out" | sed 's/^/gnnc /' || true
  echo
  printf '%-24s %10s  %s\n' "" "s/batch" "runs"
  printf '%-24s %10s  %s\n' "gnnc" "$OURS_S" "${GNNC_RUNS# } (peak RSS $(( $(tail -1 "$RUN/gnnc-r1.rss") / 1024 )) MiB)"
  printf '%-24s %10s  %s\n' "floor" "$FLOOR_S" "$FLOOR_WHAT"
  printf '%-24s %10s  %s\n' "floor, best dataflow" "$BEST_S" "layer 0 reads the dataset's rows in place"
  printf '%-24s %10s  %s\n' "gnnc / floor" "$(ratio "$OURS_S" "$FLOOR_S")" "goal: at most 2x"
  printf '%-24s %10s  %s\n' "gnnc / best floor" "$(ratio "$OURS_S" "$BEST_S")" ""
  printf '%-24s %10s  %s\n' "DGL" "$DGL_S" "${DGL_RUNS# } ($DGL_NOTE)"
  printf '%-24s %10s  %s\n' "speedup DGL / gnnc" "$(ratio "$DGL_S" "$OURS_S")" "goal: at least 5x"
  for precision in "${PRECISION_LIST[@]:1}"; do
    # shellcheck disable=SC2086
    other="$(median ${PRECISION_RUNS[$precision]})"
    printf '%-24s %10s  %s\n' "gnnc $precision" "$other" "${PRECISION_RUNS[$precision]# }"
    printf '%-24s %10s  %s\n' "speedup DGL / gnnc $precision" "$(ratio "$DGL_S" "$other")" ""
  done
} | tee "$RESULT"
echo "(saved to $RESULT; logs in $RUN)" >&2
