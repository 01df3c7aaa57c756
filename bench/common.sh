# bench/common.sh - sourced by the benchmark scripts: messages, the load
# average, and the generated graph they share (made once by gnn-data and
# cached under $BENCH_DIR/data, so every script measures the same graph).
#
# Expects NAME (the script's name for messages), BENCH_DIR, GNN_DATA, NODES,
# EDGES, FEATURES and CLASSES to be set.

die() { echo "$NAME: $*" >&2; exit 1; }
log() { echo "== $*" >&2; }
load_avg() { cut -d' ' -f1-3 /proc/loadavg; }

# The directory of the SBM graph with NODES/EDGES/FEATURES/CLASSES (seed 1),
# generated on first use.
bench_graph() {
  local tag="sbm-n${NODES}-e${EDGES}-f${FEATURES}-c${CLASSES}-s1"
  local data="$BENCH_DIR/data/$tag"
  if [[ ! -f "$data/.bench-complete" ]]; then
    rm -rf "$data"
    log "generating $tag"
    "$GNN_DATA" generate --kind sbm --nodes "$NODES" --edges "$EDGES" \
      --features "$FEATURES" --classes "$CLASSES" --seed 1 --format npy --out "$data" >&2
    touch "$data/.bench-complete"
  fi
  echo "$data"
}
