#!/usr/bin/env bash
# bench/link_sampled.sh - sampled link prediction, time per step: gnnc's
# trainer (batches = neighbor(...) on a program that scores pairs(g)) against
# DGL's as_edge_prediction_sampler loop (exclude='reverse_id', Uniform(1))
# in the same run, the two taking turns for ROUNDS rounds, and against the
# floor of the mean batch on this machine. See bench/README.md.
#
#   bench/link_sampled.sh                          # 1M nodes, 20M edges, 128 features
#   NODES=300000 EDGES=6000000 bench/link_sampled.sh
#
# Environment (defaults in brackets):
#   BENCH_DIR [/tmp/gnnc-bench]  data, the DGL venv, built programs, results
#   NODES [1000000] EDGES [20000000] FEATURES [128] HIDDEN [128]
#   FANOUTS [10,10]    per layer, layer 0 (the input side) first; one SAGEConv each
#   BATCH [1024]       positive links per step, one uniform negative each
#   STEPS [200]        gnnc's steps per epoch (--steps-per-epoch; an epoch's
#                      order is a permutation evaluated per batch, so a short
#                      epoch costs its steps)
#   EPOCHS [3]         gnnc's epochs per run (the median leaves out the first)
#   BATCHES [20]       DGL's timed batches per run, after WARMUP [3]
#   ROUNDS [3]         rounds of runs, gnnc and DGL in turn
#   THREADS [2]        OpenMP / BLAS / torch threads
#   DGL_WORKERS [0,1]  DataLoader worker counts DGL tries (the faster counts)
#   GNNC, GNN_DATA     the tools [build/bin/gnnc, build/bin/gnn-data]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-1000000}"
EDGES="${EDGES:-20000000}"
FEATURES="${FEATURES:-128}"
CLASSES=16
HIDDEN="${HIDDEN:-128}"
FANOUTS="${FANOUTS:-10,10}"
BATCH="${BATCH:-1024}"
STEPS="${STEPS:-200}"
EPOCHS="${EPOCHS:-3}"
BATCHES="${BATCHES:-20}"
WARMUP="${WARMUP:-3}"
ROUNDS="${ROUNDS:-3}"
THREADS="${THREADS:-2}"
DGL_WORKERS="${DGL_WORKERS:-0,1}"
GNNC="${GNNC:-$ROOT/build/bin/gnnc}"
GNN_DATA="${GNN_DATA:-$ROOT/build/bin/gnn-data}"
PY="${PYTHON:-python3}"

NAME=link_sampled
source "$ROOT/bench/common.sh"

[[ -x "$GNNC" ]] || die "no $GNNC (build first: make)"
[[ -x "$GNN_DATA" ]] || die "no $GNN_DATA (build first: make)"
(( EPOCHS >= 2 )) || die "EPOCHS must be at least 2 (the first is warm-up)"

mkdir -p "$BENCH_DIR"/{data,bin,run}
TAG="sbm-n${NODES}-e${EDGES}-f${FEATURES}-c${CLASSES}-s1"
RUN="$BENCH_DIR/run/link-$TAG-h${HIDDEN}-f${FANOUTS//,/_}-b${BATCH}-t${THREADS}"
mkdir -p "$RUN"
RESULT="$BENCH_DIR/link_sampled-$TAG-h${HIDDEN}-f${FANOUTS//,/_}-b${BATCH}-t${THREADS}.txt"
LOAD_START="$(load_avg)"
export OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS="$THREADS" MKL_NUM_THREADS="$THREADS"

#--- 1. The graph and the peers' environment ----------------------------------
DATA="$(bench_graph)"
ensure_venv "$BENCH_DIR/venv-dgl" "torch, dgl" "${DGL_PACKAGES[@]}"
VPY="$BENCH_DIR/venv-dgl/bin/python"

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
  echo "// Written by bench/link_sampled.sh: GraphSAGE-mean, $LAYERS layers, hidden $HIDDEN,"
  echo "// a dot-product score, sampled [$FANOUTS], $BATCH links + 1 negative each, Adam."
  echo "import nn"
  echo "dataset graph = npy(\"$DATA\")"
  echo "model LinkSAGE(hidden: int = $HIDDEN) {"
  for ((l = 0; l < LAYERS; ++l)); do
    in=hidden
    (( l == 0 )) && in=graph.features
    echo "  c$l = SAGEConv($in, hidden, mean)"
  done
  echo "  score = DotScore()"
  body=x
  for ((l = 0; l < LAYERS; ++l)); do
    body="c$l(g, $body)"
    (( l < LAYERS - 1 )) && body="relu($body)"
  done
  echo "  forward(g, x) { return score(g, $body) }"
  echo "}"
  echo "train LinkSAGE on graph {"
  echo "  loss       = bce"
  echo "  batches    = neighbor(fanout = [${FANOUTS//,/, }], batch = $BATCH)"
  echo "  link_split = split(valid = 0.001, test = 0.001)"
  echo "  negatives  = uniform(1)"
  echo "  optimizer  = adam(lr = 0.01)"
  echo "  epochs     = $EPOCHS"
  echo "  evaluate   = [valid, test] every 1000000 epochs"
  echo "}"
} >"$RUN/link.gnn"
log "compiling $RUN/link.gnn"
"$GNNC" "$RUN/link.gnn" --data "$DATA" -o "$RUN/link"

#--- 4. Rounds: gnnc, DGL, in turn ---------------------------------------------
GNNC_RUNS="" DGL_RUNS="" DGL_NOTE=""
for ((r = 1; r <= ROUNDS; ++r)); do
  out="$RUN/gnnc-r$r"
  log "round $r: gnnc ($EPOCHS epochs of $STEPS steps, $THREADS threads)"
  /usr/bin/time -f "%M" -o "$out.rss" "$RUN/link" --data "$DATA" --threads "$THREADS" \
    --epochs "$EPOCHS" --steps-per-epoch "$STEPS" --metrics "$out.jsonl" --stats \
    >"$out.out" 2>"$out.err" || { cat "$out.err" >&2; die "the trainer failed"; }
  GNNC_RUNS+=" $(median_epoch "$out.jsonl" "$STEPS")"
  out="$RUN/dgl-r$r" rc=0
  log "round $r: DGL ($WARMUP + $BATCHES batches, workers $DGL_WORKERS, $THREADS threads)"
  "$VPY" -W ignore "$ROOT/bench/sampling/dgl_link.py" --data "$DATA" --fanouts "$FANOUTS" \
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
MEAN_BATCH="$(grep 'mean link batch:' "$RUN/gnnc-r1.out" | sed 's/.*mean link batch://; s/;.*//')"
BLOCKS="$(echo "$MEAN_BATCH" | grep -o 'sources [0-9]* destinations [0-9]* edges [0-9]*' |
  awk '{printf "%s%s,%s,%s", (NR > 1 ? ";" : ""), $2, $4, $6}')"
# The last layer's width is the hidden width (the score reads it): the
# floor script's "classes".
FLOOR_TABLE="$("$PY" "$ROOT/bench/floor/sage_floor.py" --blocks "$BLOCKS" --features "$FEATURES" \
  --hidden "$HIDDEN" --classes "$HIDDEN" --bandwidth "$BW" --peak "$PEAK")"
BEST_S="$(sed -n 's/^floor:.* best_s=\([^ ]*\).*/\1/p' <<<"$FLOOR_TABLE")"

{
  echo "Link prediction, GraphSAGE-mean, $LAYERS layers, hidden $HIDDEN, dot-product score,"
  echo "sampled [$FANOUTS] (layer 0 first), $BATCH links + 1 uniform negative per step, the batch's"
  echo "links excluded from its blocks: $NODES nodes, $EDGES generated edges (undirected links),"
  echo "$FEATURES features, $THREADS threads. $ROUNDS rounds of gnnc then DGL; each figure is the"
  echo "median over rounds of a run's seconds per step (gnnc: median epoch of 2..$EPOCHS / $STEPS"
  echo "steps; DGL: mean of $BATCHES batches after $WARMUP). Load average at start $LOAD_START,"
  echo "end $(load_avg)."
  echo
  echo "machine: STREAM triad $BW GB/s, SGEMM peak $PEAK GFLOP/s ($THREADS threads)"
  echo "gnnc mean link batch:$MEAN_BATCH"
  echo "floor of that batch (bench/floor/sage_floor.py; the score's 2048 dot products are noise):"
  grep -v '^floor:' <<<"$FLOOR_TABLE" | sed 's/^/  /'
  grep '^stats:' "$RUN/gnnc-r1.out" | sed 's/^/gnnc /' || true
  echo
  printf '%-24s %10s  %s\n' "" "s/step" "runs"
  printf '%-24s %10s  %s\n' "gnnc" "$OURS_S" "${GNNC_RUNS# } (peak RSS $(( $(tail -1 "$RUN/gnnc-r1.rss") / 1024 )) MiB)"
  printf '%-24s %10s  %s\n' "floor" "$BEST_S" "layer 0 reads the dataset's rows in place"
  printf '%-24s %10s  %s\n' "gnnc / floor" "$(ratio "$OURS_S" "$BEST_S")" ""
  printf '%-24s %10s  %s\n' "DGL" "$DGL_S" "${DGL_RUNS# } ($DGL_NOTE)"
  printf '%-24s %10s  %s\n' "speedup DGL / gnnc" "$(ratio "$DGL_S" "$OURS_S")" "goal: at least 3x"
} | tee "$RESULT"
echo "(saved to $RESULT; logs in $RUN)" >&2
