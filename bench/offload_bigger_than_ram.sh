#!/usr/bin/env bash
# A graph bigger than this machine's RAM, trained out of core (issue 15).
# `gnn-data generate` streams an SBM graph of NODES x FEATURES float32
# features (default 1M x 6600: 26.4 GB, more than a 23.5 GiB machine's RAM)
# and EDGES edges to disk in chunks; then a 2-layer GCN (hidden HIDDEN,
# compiled with --no-hoist, so that its first layer transforms the features
# before it aggregates and nothing but the features is nodes x features)
# trains EPOCHS epochs with `--offload --memory-budget BUDGET`: the
# start-up partitions the dataset into node blocks in the budget, and each
# part maps its slice of features.npy in place (the graph is on disk once).
# The script reports the bytes on disk against the machine's total and
# free memory, the generator's and the trainer's peak RSS and time, the
# epoch times and losses, what DIR held, and the load average.
#
# KEEP=1 keeps the dataset (and reuses a complete one); by default it is
# deleted at the end, with DIR. Disk: the dataset plus the partitions and
# the parts' files (about 4 GB at the defaults; they grow with the nodes
# and edges, the halos with both: few, wide nodes keep them small).
#
# Environment: BENCH_DIR (/tmp/gnnc-bench), NODES (1000000), EDGES
# (6000000), FEATURES (6600), CLASSES (16), HIDDEN (16), EPOCHS (3),
# BUDGET (4G), THREADS (2), KEEP (0). Never run in CI.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NAME=offload_bigger_than_ram
source "$ROOT/bench/common.sh"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-1000000}" EDGES="${EDGES:-6000000}" FEATURES="${FEATURES:-6600}"
CLASSES="${CLASSES:-16}" HIDDEN="${HIDDEN:-16}" EPOCHS="${EPOCHS:-3}"
BUDGET="${BUDGET:-4G}" THREADS="${THREADS:-2}" KEEP="${KEEP:-0}"
DATA="$BENCH_DIR/bigger-than-ram/sbm-n$NODES-e$EDGES-f$FEATURES-c$CLASSES-s1"
RUN="$BENCH_DIR/bigger-than-ram/run"
SPILL="$BENCH_DIR/bigger-than-ram/spill"

cleanup() {
  rm -rf "$SPILL" "$RUN"
  if [[ $KEEP != 1 ]]; then rm -rf "$DATA"; fi
}
trap cleanup EXIT

machine() {
  echo "machine: $(awk '/MemTotal/ {printf "%.1f", $2 / 1048576}' /proc/meminfo) GiB RAM," \
    "$(awk '/MemAvailable/ {printf "%.1f", $2 / 1048576}' /proc/meminfo) GiB available," \
    "$(nproc) cores; load $(load_avg)"
  free -g
}

mkdir -p "$(dirname "$DATA")"
if [[ ! -f "$DATA/.bench-complete" ]]; then
  need=$(python3 -c "print(($NODES * $FEATURES * 4 + $EDGES * 16 + $NODES * 16) >> 20)")
  free_disk=$(df -m --output=avail "$(dirname "$DATA")" | tail -1)
  ((need + 4096 < free_disk)) || die "the dataset and its run need about $((need + 4096)) MiB, $free_disk MiB are free"
  machine
  rm -rf "$DATA"
  /usr/bin/time -f 'generator: %e s wall, %U s user, %S s system, peak RSS %M KiB' \
    "$ROOT/build/bin/gnn-data" generate --kind sbm --nodes "$NODES" --edges "$EDGES" \
    --features "$FEATURES" --classes "$CLASSES" --seed 1 --format npy --out "$DATA"
  touch "$DATA/.bench-complete"
fi
bytes=$(du -sb --apparent-size "$DATA" | cut -f1)
echo "dataset $DATA: $bytes bytes ($(python3 -c "print(f'{$bytes / 2**30:.1f}')") GiB)" \
  "against $(awk '/MemTotal/ {printf "%.1f", $2 / 1048576}' /proc/meminfo) GiB of RAM"

rm -rf "$RUN" "$SPILL" && mkdir -p "$RUN"
cat > "$RUN/gcn.gnn" <<GNN
// Written by $NAME.sh.
import nn
dataset graph = npy("$DATA")
model GCN(hidden: int = $HIDDEN) {
  c1 = GCNConv(graph.features, hidden)
  c2 = GCNConv(hidden, graph.classes)
  forward(g, x) { return c2(g, relu(c1(g, x))) }
}
train GCN on graph {
  optimizer = adam(lr = 0.01)
  epochs    = $EPOCHS
  evaluate  = [valid, test] every 1000000 epochs
}
GNN
"$ROOT/build/bin/gnnc" --no-hoist "$RUN/gcn.gnn" -o "$RUN/gcn"
machine
# The parts' files are unlinked as soon as they are made: only the file
# system's use shows them (sampled every 5 s; other jobs' writes count too).
used() { df -B1M --output=used "$(dirname "$DATA")" | tail -1; }
before=$(used)
(peak=$before; while sleep 5; do u=$(used); ((u > peak)) && peak=$u; echo "$peak" > "$RUN/disk-peak"; done) &
sampler=$!
log "training $EPOCHS epochs under --memory-budget $BUDGET"
/usr/bin/time -f 'trainer: %e s wall, %U s user, %S s system, peak RSS %M KiB' \
  "$RUN/gcn" --data "$DATA" --offload "$SPILL" --memory-budget "$BUDGET" \
  --threads "$THREADS" --stats --metrics "$RUN/metrics.jsonl" 2>&1 |
  grep -E '^(epoch|final|stats: (mean epoch|offload)|trainer:)'
kill "$sampler"
echo "after training: load $(load_avg)"
echo "disk: at most $(($(cat "$RUN/disk-peak") - before)) MiB more in use during the run" \
  "than before it (DIR's partitions and the parts' files), beside the dataset's" \
  "$((bytes >> 20)) MiB"
free -g
echo "DIR $SPILL: $(du -sb "$SPILL" | cut -f1) bytes on disk (the partitions;" \
  "the parts' files are unlinked), features.npy copies: $(find "$SPILL" -name 'features*' | wc -l)"
