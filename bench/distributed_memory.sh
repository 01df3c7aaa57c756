#!/usr/bin/env bash
# Peak memory per rank of distributed full-graph training on the generated
# 1M-node graph: 1 process against 2 and 4 ranks, in each aggregation mode.
# MODEL=gcn (2 layers, hidden 128; modes one_shot and sequential) or gat (4
# heads of 64; mode sequential_remat, where the attention-weighted
# aggregations go around SAR's ring too: one-shot GAT on 4 ranks needs more
# than a 24 GiB machine has). Prints one row per run: the largest per-rank
# peak RSS, its ratio to the 1-process peak, and the mean epoch time. Not a
# timed test; see bench/README.md.
#
# Environment: BENCH_DIR (default /tmp/gnnc-bench), NODES, EDGES, FEATURES
# (1000000, 20000000, 128), EPOCHS (2), RANKS ("2 4"), METHOD (metis),
# MODEL (gcn), MODES (by model, as above).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NAME=distributed_memory
source "$ROOT/bench/common.sh"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-1000000}" EDGES="${EDGES:-20000000}" FEATURES="${FEATURES:-128}"
EPOCHS="${EPOCHS:-2}" RANKS="${RANKS:-2 4}" METHOD="${METHOD:-metis}"
MODEL="${MODEL:-gcn}"
case "$MODEL" in
  gcn) MODES="${MODES:-one_shot sequential}" ;;
  gat) MODES="${MODES:-sequential_remat}" ;;
  *) echo "MODEL must be gcn or gat, got '$MODEL'" >&2; exit 2 ;;
esac
GNNC="$ROOT/build/bin/gnnc"
DATA="$BENCH_DIR/data/sbm-n$NODES-e$EDGES-f$FEATURES-c16-s1"
RUN="$BENCH_DIR/distributed"
mkdir -p "$RUN"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [[ ! -d "$DATA" ]]; then
  "$ROOT/build/bin/gnn-data" generate --kind sbm --nodes "$NODES" --edges "$EDGES" \
    --features "$FEATURES" --classes 16 --seed 1 --format npy --out "$DATA" >/dev/null
fi
for p in $RANKS; do
  if [[ ! -f "$RUN/parts-$METHOD-$p/manifest.json" ]]; then
    echo "partitioning into $p parts ($METHOD)..." >&2
    "$ROOT/build/bin/gnn-partition" --data "$DATA" --parts "$p" --method "$METHOD" \
      --out "$RUN/parts-$METHOD-$p" >/dev/null
  fi
done

# The baseline is the one-shot program in one process (it exchanges nothing).
for mode in $(echo one_shot $MODES | tr ' ' '\n' | sort -u); do
  "${MODEL}_program" bench/distributed_memory.sh "$DATA" "$EPOCHS" "$mode" \
    >"$RUN/$MODEL-$mode.gnn"
  "$GNNC" "$RUN/$MODEL-$mode.gnn" -o "$RUN/$MODEL-$mode"
done

# peak RSS (KiB) of every rank, from /usr/bin/time; mean epoch from --stats.
measure() {
  local out="$1"
  local peak epoch
  peak=$(grep -o 'maxrss [0-9]*' "$out" | awk '{print $2}' | sort -n | tail -1)
  epoch=$(grep -o 'mean epoch [0-9.]*' "$out" | awk '{print $3}' | head -1)
  echo "$peak $epoch"
}

printf '%-22s %5s %14s %8s %10s\n' mode ranks "peak RSS MiB" "x 1-rank" "epoch s"
/usr/bin/time -f 'maxrss %M' "$RUN/$MODEL-one_shot" --data "$DATA" --epochs "$EPOCHS" \
  --threads 2 --stats >"$RUN/$MODEL-np1.out" 2>&1
read -r base epoch < <(measure "$RUN/$MODEL-np1.out")
printf '%-22s %5d %14.0f %8.2f %10s\n' "$MODEL (1 process)" 1 "$((base / 1024))" 1 "$epoch"
for mode in $MODES; do
  for p in $RANKS; do
    mpirun --oversubscribe -np "$p" /usr/bin/time -f 'maxrss %M' "$RUN/$MODEL-$mode" \
      --data "$RUN/parts-$METHOD-$p" --epochs "$EPOCHS" --threads 1 --stats \
      >"$RUN/$MODEL-$mode-np$p.out" 2>&1
    read -r peak epoch < <(measure "$RUN/$MODEL-$mode-np$p.out")
    printf '%-22s %5d %14.0f %8.2f %10s\n' "$MODEL $mode" "$p" "$((peak / 1024))" \
      "$(echo "$peak / $base" | bc -l)" "$epoch"
  done
done
