#!/usr/bin/env bash
# A graph bigger than this machine's RAM, made for out-of-core training
# (issue 15): `gnn-data generate` streams an SBM graph of NODES x FEATURES
# float32 features (default 12.5M x 512: 25.6 GB, more than a 24 GiB
# machine's RAM) and EDGES edges to disk in chunks, and this script reports
# its bytes on disk against the machine's total and free memory, the
# generator's peak RSS and time, and the load average.
#
# The training step of the recipe is not run yet: out-of-core training
# from it needs the parts' feature rows read in place (see
# docs/out-of-core.md, "Not yet"); today the start-up's partition directory
# and the parts' files would each hold another copy of the features, more
# disk than the 30 GB this machine's engineers may use each. KEEP=1 keeps
# the dataset; by default it is deleted at the end.
#
# Environment: BENCH_DIR (/tmp/gnnc-bench), NODES (12500000), EDGES
# (50000000), FEATURES (512), CLASSES (16), KEEP (0). Never run in CI.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NAME=offload_bigger_than_ram
source "$ROOT/bench/common.sh"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-12500000}" EDGES="${EDGES:-50000000}" FEATURES="${FEATURES:-512}"
CLASSES="${CLASSES:-16}" KEEP="${KEEP:-0}"
DATA="$BENCH_DIR/bigger-than-ram/sbm-n$NODES-e$EDGES-f$FEATURES-c$CLASSES-s1"

need=$(python3 -c "print(($NODES * $FEATURES * 4 + $EDGES * 16 + $NODES * 16) >> 20)")
free_disk=$(df -m --output=avail "$(dirname "$BENCH_DIR")" | tail -1)
((need < free_disk)) || die "the dataset needs about $need MiB, $free_disk MiB are free"
echo "machine: $(awk '/MemTotal/ {printf "%.1f", $2 / 1048576}' /proc/meminfo) GiB RAM," \
  "$(awk '/MemAvailable/ {printf "%.1f", $2 / 1048576}' /proc/meminfo) GiB available," \
  "$(nproc) cores; load $(load_avg)"
rm -rf "$DATA"
mkdir -p "$(dirname "$DATA")"
/usr/bin/time -f 'generator: %e s wall, %U s user, %S s system, peak RSS %M KiB' \
  "$ROOT/build/bin/gnn-data" generate --kind sbm --nodes "$NODES" --edges "$EDGES" \
  --features "$FEATURES" --classes "$CLASSES" --seed 1 --format npy --out "$DATA"
bytes=$(du -sb --apparent-size "$DATA" | cut -f1)
echo "dataset $DATA: $bytes bytes ($(python3 -c "print(f'{$bytes / 2**30:.1f}')") GiB)" \
  "against $(awk '/MemTotal/ {printf "%.1f", $2 / 1048576}' /proc/meminfo) GiB of RAM; load $(load_avg)"
if [[ $KEEP != 1 ]]; then
  rm -rf "$DATA"
fi
