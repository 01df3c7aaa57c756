#!/usr/bin/env bash
# bench/distributed_partition.sh - `mpirun -np R gnn-partition --distributed`
# (PT-Scotch or the multilevel partitioner across R ranks) against the serial
# METIS partitioner on the same generated graph: edge cut, balance, wall time
# and peak RSS per process.
#
#   bench/distributed_partition.sh                       # 1M nodes, 20M edges
#   NODES=100000 EDGES=2000000 bench/distributed_partition.sh   # a quick trial
#   KIND=mag NODES=2000000 PARTS=2 RANKS=2 BALANCE=nodes TRIES=1 \
#     METHODS="multilevel ptscotch" bench/distributed_partition.sh
#
# Environment (defaults in brackets):
#   BENCH_DIR [/tmp/gnnc-bench]  data and partition directories
#   NODES [1000000] EDGES [20000000] FEATURES [128] CLASSES [16]
#   PARTS [4]        parts of every partitioning
#   RANKS ["2 4"]    rank counts of the distributed runs
#   BALANCE [nodes,edges,train]
#   TRIES ["1 5"]    --tries of the distributed runs (best of N seeds)
#   METHODS ["multilevel ptscotch"]  distributed methods (either alone)
#   KIND [sbm]       sbm, or mag (gnn-data generate --kind mag, typed .npy;
#                    EDGES, FEATURES and CLASSES do not apply)
#   SERIAL [1]       0 skips the serial METIS run (its result is reused if
#                    present)
#   GNN_PARTITION, GNN_DATA   the tools [build/bin/...]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-1000000}"
EDGES="${EDGES:-20000000}"
FEATURES="${FEATURES:-128}"
CLASSES="${CLASSES:-16}"
PARTS="${PARTS:-4}"
RANKS="${RANKS:-2 4}"
BALANCE="${BALANCE:-nodes,edges,train}"
TRIES="${TRIES:-1 5}"
METHODS="${METHODS:-multilevel ptscotch}"
KIND="${KIND:-sbm}"
SERIAL="${SERIAL:-1}"
GNN_PARTITION="${GNN_PARTITION:-$ROOT/build/bin/gnn-partition}"
GNN_DATA="${GNN_DATA:-$ROOT/build/bin/gnn-data}"
CHECK="$ROOT/test/Distributed/check-partitions.py"

# mpirun refuses root without these (containers, CI).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

NAME=distributed_partition
source "$ROOT/bench/common.sh"

if [[ "$KIND" == mag ]]; then
  data="$BENCH_DIR/data/mag-n$NODES-s1"
  [[ -f "$data/types.json" ]] || "$GNN_DATA" generate --kind mag --nodes "$NODES" \
    --seed 1 --format npy --out "$data" > /dev/null
else
  data="$(bench_graph)"
fi
out="$BENCH_DIR/$NAME/$(basename "$data")"
mkdir -p "$out"
log "graph $data; load average $(load_avg)"

# Peak RSS of one process from GNU time's report, in MiB.
peak_mib() { awk '/Maximum resident set size/ { printf "%.1f", $6 / 1024 }' "$1"; }

metis="$out/metis-p$PARTS"
if [[ "$SERIAL" == 1 || ! -f "$metis/manifest.json" ]]; then
  log "serial METIS, $PARTS parts"
  /usr/bin/time -v "$GNN_PARTITION" --data "$data" --parts "$PARTS" \
    --balance "$BALANCE" --no-cache --out "$metis" > "$out/metis.log" 2> "$out/metis.time"
  echo "serial METIS: $(grep -E 'assigned nodes' "$out/metis.log"); wall $(awk '/Elapsed/ { print $8 }' "$out/metis.time"), peak RSS $(peak_mib "$out/metis.time") MiB"
fi
grep -E '^(edge cut|balance)' "$metis/../metis.log" || "$GNN_PARTITION" info "$metis" | grep -E '^(edge cut|balance)'

for method in $METHODS; do
  for r in $RANKS; do
    for tries in $TRIES; do
      dist="$out/$method-r$r-p$PARTS-t$tries"
      log "$method on $r ranks, $PARTS parts, best of $tries"
      mpirun --oversubscribe -np "$r" /usr/bin/time -f "peak %M KiB" "$GNN_PARTITION" \
        --distributed --method "$method" --data "$data" --parts "$PARTS" \
        --balance "$BALANCE" --tries "$tries" --out "$dist" > "$out/$method-r$r-t$tries.log" 2>&1
      echo "distributed $method, $r ranks, --tries $tries:"
      grep -E '^(partitioned|levels|objective|peak|edge cut|balance)' "$out/$method-r$r-t$tries.log"
      "${PYTHON:-python3}" "$CHECK" cut-within "$dist" "$metis" 0.15 || true
    done
  done
done
