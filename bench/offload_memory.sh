#!/usr/bin/env bash
# Out-of-core training (--offload DIR --memory-budget SIZE) against the same
# program in memory: full-graph GCN (2 layers, hidden 128) on the generated
# 1M-node graph. Prints the peak RSS (VmHWM, from /usr/bin/time), the mean
# epoch time and the largest relative difference of the per-epoch losses.
#
# Three runs:
#   memory     --data DATA                                   (in memory)
#   start-up   --data DATA --offload DIR --memory-budget B   (partitions the
#              .npy dataset into DIR/partitions first, in the budget too)
#   offload    --data DIR/partitions --offload DIR --memory-budget B
#              (the partitions it wrote: the peak of training itself)
# Not a timed test; the machine's load average is printed beside the times.
#
# Environment: BENCH_DIR (default /tmp/gnnc-bench), NODES, EDGES, FEATURES
# (1000000, 20000000, 128), EPOCHS (3), BUDGET (1G), THREADS (2).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NAME=offload_memory
source "$ROOT/bench/common.sh"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-1000000}" EDGES="${EDGES:-20000000}" FEATURES="${FEATURES:-128}"
EPOCHS="${EPOCHS:-3}" BUDGET="${BUDGET:-1G}" THREADS="${THREADS:-2}"
DATA="$BENCH_DIR/data/sbm-n$NODES-e$EDGES-f$FEATURES-c16-s1"
RUN="$BENCH_DIR/offload-n$NODES-e$EDGES-f$FEATURES"
OFFLOAD="$RUN/offload-$BUDGET"
mkdir -p "$RUN"

if [[ ! -d "$DATA" ]]; then
  "$ROOT/build/bin/gnn-data" generate --kind sbm --nodes "$NODES" --edges "$EDGES" \
    --features "$FEATURES" --classes 16 --seed 1 --format npy --out "$DATA" >/dev/null
fi
gcn_program bench/offload_memory.sh "$DATA" "$EPOCHS" >"$RUN/gcn.gnn"
"$ROOT/build/bin/gnnc" "$RUN/gcn.gnn" -o "$RUN/gcn"

# name, then the trainer's arguments; prints one row.
run() {
  local name="$1"
  shift
  /usr/bin/time -f 'maxrss %M' "$RUN/gcn" --epochs "$EPOCHS" --threads "$THREADS" \
    --stats --metrics "$RUN/$name.jsonl" "$@" >"$RUN/$name.out" 2>&1
  local peak epoch parts
  peak=$(grep -o 'maxrss [0-9]*' "$RUN/$name.out" | awk '{print $2}')
  epoch=$(grep -o 'mean epoch [0-9.]*' "$RUN/$name.out" | awk '{print $3}' | head -1)
  parts=$(grep -o 'offload [0-9]* partitions' "$RUN/$name.out" | awk '{print $2}' || true)
  printf '%-9s %6s %14.0f %10s %8s  %s\n' "$name" "${parts:-1}" "$((peak / 1024))" \
    "$epoch" "$(cut -d' ' -f1 /proc/loadavg)" \
    "$(python3 "$ROOT/test/Train/compare-losses.py" "$RUN/memory.jsonl" "$RUN/$name.jsonl" 1e-5 || true)"
}

printf '%-9s %6s %14s %10s %8s  %s\n' run parts "peak RSS MiB" "epoch s" load "losses vs memory"
run memory --data "$DATA"
rm -rf "$OFFLOAD"
run start-up --data "$DATA" --offload "$OFFLOAD" --memory-budget "$BUDGET"
run offload --data "$OFFLOAD/partitions" --offload "$OFFLOAD" --memory-budget "$BUDGET"
