#!/usr/bin/env bash
# bench/sampler_ranks.sh - separate sampler and trainer ranks against worker
# mode: sampled GraphSAGE (as bench/sage_sampled.sh: 3 layers, hidden 128,
# fanouts [5, 10, 15], batch 1024) on the generated 1M-node graph,
#   workers:  mpirun -np W ./sage --data parts-W            (W ranks sample and train)
#   samplers: mpirun -np S+T ./sage --data parts-S --samplers S
# Both train the same seeds per epoch (a split of SEEDS training nodes), so
# throughput is compared as batches of BATCH seeds per second over all
# ranks. Also prints the share of each trainer's training time spent
# waiting for batches (--stats), and worker mode with a sampling thread per
# rank (--sampler-threads 1). Not a timed test; see bench/README.md.
#
# Environment (defaults in brackets):
#   BENCH_DIR [/tmp/gnnc-bench]  NODES [1000000] EDGES [20000000] FEATURES [128]
#   WORKERS [4]  SAMPLERS [2]  TRAINERS [2]  PREFETCH [2]
#   BATCHES [24]  batches of BATCH [1024] seeds per epoch (all ranks together)
#   EPOCHS [3]    the median epoch leaves out the first (unless it is the only one)
#   THREADS [1]   OpenMP threads per rank
#   ASYNC [1]     also worker mode with a sampling thread per rank (0: not)
#   PREPARE_ONLY  set: stop once the data and the partitions are there
#   REUSE         set: keep the results of runs that finished before
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-1000000}" EDGES="${EDGES:-20000000}" FEATURES="${FEATURES:-128}"
CLASSES=16 HIDDEN=128 FANOUTS="5, 10, 15"
WORKERS="${WORKERS:-4}" SAMPLERS="${SAMPLERS:-2}" TRAINERS="${TRAINERS:-2}"
PREFETCH="${PREFETCH:-2}" BATCH="${BATCH:-1024}" BATCHES="${BATCHES:-24}"
EPOCHS="${EPOCHS:-3}" THREADS="${THREADS:-1}"
GNNC="$ROOT/build/bin/gnnc" GNN_DATA="$ROOT/build/bin/gnn-data"
PART="$ROOT/build/bin/gnn-partition"
PY="${PYTHON:-python3}"
NAME=sampler_ranks
source "$ROOT/bench/common.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS=1

DATA="$(bench_graph)"
SEEDS=$(( BATCHES * BATCH ))
TAG="sbm-n${NODES}-e${EDGES}-f${FEATURES}-c${CLASSES}-s1-seeds$SEEDS"
RUN="$BENCH_DIR/sampler_ranks/$TAG"
mkdir -p "$RUN"
LOAD_START="$(load_avg)"

# The graph's arrays with SEEDS training nodes (a fixed shuffle of its train
# split) and 1024-node valid and test splits: the runs time training.
SPLIT="$BENCH_DIR/data/$TAG"
if [[ ! -f "$SPLIT/.bench-complete" ]]; then
  # numpy for the split: the DGL peer's environment (bench/sage_sampled.sh).
  ensure_venv "$BENCH_DIR/venv-dgl" "numpy" "numpy<2"
  rm -rf "$SPLIT" && mkdir -p "$SPLIT"
  for f in "$DATA"/*.npy; do
    case "$(basename "$f")" in *_idx.npy) ;; *) ln -s "$f" "$SPLIT/" ;; esac
  done
  "$BENCH_DIR/venv-dgl/bin/python" - "$DATA" "$SPLIT" "$SEEDS" <<'PYEOF'
import sys, numpy as np
src, dst, seeds = sys.argv[1], sys.argv[2], int(sys.argv[3])
train = np.random.default_rng(1).permutation(np.load(f"{src}/train_idx.npy"))
np.save(f"{dst}/train_idx.npy", np.sort(train[:seeds]))
for split in ("valid", "test"):
    np.save(f"{dst}/{split}_idx.npy", np.load(f"{src}/{split}_idx.npy")[:1024])
PYEOF
  touch "$SPLIT/.bench-complete"
fi
for p in "$WORKERS" "$SAMPLERS"; do
  if [[ ! -f "$RUN/parts-$p/manifest.json" ]]; then
    log "partitioning into $p parts (METIS, balance nodes, edges, train)"
    "$PART" --data "$SPLIT" --parts "$p" --balance nodes,edges,train \
      --out "$RUN/parts-$p" >/dev/null
  fi
done

[[ -z "${PREPARE_ONLY:-}" ]] || exit 0

cat >"$RUN/sage.gnn" <<GNN
// Written by bench/sampler_ranks.sh.
import nn
dataset graph = npy("$SPLIT")
model SAGE(hidden: int = $HIDDEN) {
  c0 = SAGEConv(graph.features, hidden, mean)
  c1 = SAGEConv(hidden, hidden, mean)
  c2 = SAGEConv(hidden, graph.classes, mean)
  forward(g, x) { return c2(g, relu(c1(g, relu(c0(g, x))))) }
}
train SAGE on graph {
  batches   = neighbor(fanout = [$FANOUTS], batch = $BATCH)
  optimizer = adam(lr = 0.01)
  epochs    = $EPOCHS
  evaluate  = [valid, test] every 1000000 epochs
}
GNN
"$GNNC" "$RUN/sage.gnn" -o "$RUN/sage"

# run NAME RANKS ARGS...: one training run; prints "batches/s".
run() {
  local name="$1" ranks="$2"
  shift 2
  if [[ -n "${REUSE:-}" && -s "$RUN/$name.out" ]] && grep -q '^final:' "$RUN/$name.out"; then
    log "$name: reusing $RUN/$name.out"
  else
    log "$name: mpirun -np $ranks sage $*"
    # The trainers wait for the sampler ranks' load of their parts (minutes
    # on a loaded machine) under the communication timeout.
    mpirun --oversubscribe -np "$ranks" "$RUN/sage" --threads "$THREADS" \
      --epochs "$EPOCHS" --metrics "$RUN/$name.jsonl" --stats --comm-timeout 900 "$@" \
      >"$RUN/$name.out" 2>"$RUN/$name.err" || { tail -5 "$RUN/$name.err" >&2; die "$name failed"; }
  fi
  "$PY" - "$RUN/$name.jsonl" "$BATCHES" <<'PYEOF'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
timed = rows[1:] or rows  # one epoch: that one
print(f"{int(sys.argv[2]) / statistics.median(r['epoch_seconds'] for r in timed):.3f}")
PYEOF
}
WORKER_RATE="$(run workers "$WORKERS" --data "$RUN/parts-$WORKERS")"
ASYNC_RATE=-
if [[ "${ASYNC:-1}" == 1 ]]; then
  ASYNC_RATE="$(run workers-async "$WORKERS" --data "$RUN/parts-$WORKERS" --sampler-threads 1)"
fi
SAMPLER_RATE="$(run samplers $(( SAMPLERS + TRAINERS )) --data "$RUN/parts-$SAMPLERS" \
  --samplers "$SAMPLERS" --prefetch "$PREFETCH")"

{
  echo "GraphSAGE-mean, 3 layers, hidden $HIDDEN, fanouts [$FANOUTS], batch $BATCH, $SEEDS seeds per epoch;"
  echo "$NODES nodes, $EDGES generated edges (+ reverse), $FEATURES features; $(getconf _NPROCESSORS_ONLN) cores,"
  echo "$THREADS thread(s) per rank. Load average at start $LOAD_START, end $(load_avg)."
  echo "batches/s: $BATCHES batches of $BATCH seeds over the median epoch of 2..$EPOCHS (of 1 if EPOCHS=1)."
  echo
  printf '%-40s %10s\n' "" "batches/s"
  printf '%-40s %10s\n' "$WORKERS workers" "$WORKER_RATE"
  printf '%-40s %10s\n' "$WORKERS workers, a sampling thread each" "$ASYNC_RATE"
  printf '%-40s %10s\n' "$SAMPLERS samplers + $TRAINERS trainers (prefetch $PREFETCH)" "$SAMPLER_RATE"
  echo
  grep -h 'waited for batches\|sampler rank' "$RUN/samplers.out" | sed 's/^/samplers: /'
  grep -h 'sampling [0-9]* batches/epoch' "$RUN/workers.out" | sed 's/^/workers: /'
  grep -h 'sampling [0-9]* batches/epoch' "$RUN/workers-async.out" 2>/dev/null |
    sed 's/^/workers-async: /' || true
} | tee "$BENCH_DIR/sampler_ranks-$TAG.txt"
