#!/usr/bin/env bash
# A graph bigger than the machine's memory trains out of core: the machine is
# modelled by a memory cgroup (cgroup v2 memory.max, or v1
# memory.limit_in_bytes, as a child of this shell's own cgroup; needs root).
# The limit is the cgroup's, not the RAM's: the kernel reclaims page cache
# and kills the cgroup's largest process when it cannot stay under it.
#
# Full-graph GCN (2 layers, hidden 128) on the generated 1M-node graph, whose
# in-memory training peaks at about 3.3 GiB, in a LIMIT (2G) cgroup:
#   memory    --data DATA                       (expected: OOM-killed)
#   offload   --data PARTS --offload DIR --memory-budget BUDGET
#             (from a partition directory: expected to train)
# PARTS is made first, outside the cgroup, by
# `mpirun -np RANKS gnn-partition --distributed` (what a user does on a bigger
# machine or across hosts); PARTITIONS names an existing one instead. A
# reference in-memory run without a limit gives the losses to compare. A
# fourth row, offload-noreadahead, is the offload run with the next part's
# read-ahead off (GNNRT_OFFLOAD_READAHEAD=0): its effect on the epoch time. Each row: exit status, the cgroup's OOM kills, peak
# RSS (/usr/bin/time's maxrss), the cgroup's peak usage (page cache
# included), mean epoch, the load average, the losses against the reference.
#
# Environment: BENCH_DIR (/tmp/gnnc-bench), NODES, EDGES, FEATURES (1000000,
# 20000000, 128), LIMIT (2G), BUDGET (1G), PARTS (8), RANKS (2), EPOCHS (1),
# THREADS (2), PARTITIONS, ROWS (the runs to make: "reference memory offload
# offload-noreadahead"). Not a timed test.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NAME=offload_cgroup
source "$ROOT/bench/common.sh"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-1000000}" EDGES="${EDGES:-20000000}" FEATURES="${FEATURES:-128}"
LIMIT="${LIMIT:-2G}" BUDGET="${BUDGET:-1G}" PARTS="${PARTS:-8}" RANKS="${RANKS:-2}"
EPOCHS="${EPOCHS:-1}" THREADS="${THREADS:-2}"
ROWS="${ROWS:-reference memory offload offload-noreadahead}"
DATA="$BENCH_DIR/data/sbm-n$NODES-e$EDGES-f$FEATURES-c16-s1"
RUN="$BENCH_DIR/offload-cgroup-n$NODES-e$EDGES-f$FEATURES"
PARTITIONS="${PARTITIONS:-$RUN/ptscotch-r$RANKS-p$PARTS}"
mkdir -p "$RUN"

limit_bytes=$(python3 -c "
import sys; u = {'K': 10, 'M': 20, 'G': 30, 'T': 40}; s = sys.argv[1]
print(int(float(s[:-1]) * 2**u[s[-1].upper()]) if s[-1].upper() in u else int(s))" "$LIMIT")

# The cgroup: a child of this shell's own, so its accounting stays inside it.
CGROUP=""
if [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then
  parent="/sys/fs/cgroup$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup)"
  kind=v2
else
  parent="/sys/fs/cgroup/memory$(awk -F: '$2 == "memory" {print $3}' /proc/self/cgroup)"
  kind=v1
fi
make_cgroup() {
  CGROUP="$parent/gnnc-offload-$$-$1"
  if ! mkdir "$CGROUP" 2>/dev/null; then
    echo "offload_cgroup.sh: cannot create a memory cgroup under $parent (root and a" \
      "writable cgroup hierarchy are needed)" >&2
    exit 1
  fi
  if [[ $kind == v2 ]]; then
    echo "$limit_bytes" >"$CGROUP/memory.max"
    echo 0 >"$CGROUP/memory.swap.max" 2>/dev/null || true
  else
    echo "$limit_bytes" >"$CGROUP/memory.limit_in_bytes"
    echo "$limit_bytes" >"$CGROUP/memory.memsw.limit_in_bytes" 2>/dev/null || true
  fi
}
cgroup_ooms() {
  if [[ $kind == v2 ]]; then awk '$1 == "oom_kill" {print $2}' "$CGROUP/memory.events"
  else awk '$1 == "oom_kill" {print $2}' "$CGROUP/memory.oom_control"; fi
}
cgroup_peak_mib() {
  local f="$CGROUP/memory.max_usage_in_bytes"
  [[ $kind == v2 ]] && f="$CGROUP/memory.peak"
  if [[ -f $f ]]; then echo $(($(cat "$f") / 1048576)); else echo "?"; fi
}
cleanup() { [[ -n $CGROUP && -d $CGROUP ]] && rmdir "$CGROUP" 2>/dev/null || true; }
trap cleanup EXIT

if [[ ! -d "$DATA" ]]; then
  "$ROOT/build/bin/gnn-data" generate --kind sbm --nodes "$NODES" --edges "$EDGES" \
    --features "$FEATURES" --classes 16 --seed 1 --format npy --out "$DATA" >/dev/null
fi
if [[ ! -f "$PARTITIONS/manifest.json" ]]; then
  /usr/bin/time -f 'partitioning: %e s, peak RSS of rank 0 %M KiB' \
    mpirun --oversubscribe --allow-run-as-root -np "$RANKS" "$ROOT/build/bin/gnn-partition" \
    --distributed --data "$DATA" --parts "$PARTS" --balance nodes,edges,train \
    --out "$PARTITIONS" >"$RUN/partition.out" 2>&1
  grep -E 'partitioned|peak RSS|partitioning:' "$RUN/partition.out" || true
fi
gcn_program bench/offload_cgroup.sh "$DATA" "$EPOCHS" >"$RUN/gcn.gnn"
"$ROOT/build/bin/gnnc" "$RUN/gcn.gnn" -o "$RUN/gcn"

dataset_mib=$(du -sm --apparent-size "$DATA" | cut -f1)
parts_mib=$(du -sm --apparent-size "$PARTITIONS" | cut -f1)
echo "machine: $(free -g | awk '/Mem:/ {print $2}') GiB RAM, $(nproc) cores;" \
  "cgroup ($kind) limit $LIMIT = $limit_bytes bytes"
echo "dataset $DATA: $dataset_mib MiB; partitions $PARTITIONS: $parts_mib MiB"

# name, limited (0/1), then the trainer's arguments; prints one row. The
# trainer's environment: TRAINER_ENV.
TRAINER_ENV=()
run() {
  local name="$1" limited="$2"
  shift 2
  [[ " $ROWS " == *" $name "* ]] || return 0
  local status=0 prefix=()
  if [[ $limited == 1 ]]; then
    make_cgroup "$name"
    prefix=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CGROUP")
  fi
  "${prefix[@]}" env "${TRAINER_ENV[@]}" /usr/bin/time -f 'maxrss %M' "$RUN/gcn" --epochs "$EPOCHS" \
    --threads "$THREADS" --stats --metrics "$RUN/$name.jsonl" "$@" \
    >"$RUN/$name.out" 2>&1 || status=$?
  local peak epoch ooms="-" cgpeak="-" losses="-"
  peak=$(grep -o 'maxrss [0-9]*' "$RUN/$name.out" | awk '{print int($2 / 1024)}' || true)
  epoch=$(grep -o 'mean epoch [0-9.]*' "$RUN/$name.out" | awk '{print $3}' | head -1 || true)
  if [[ $limited == 1 ]]; then
    ooms=$(cgroup_ooms)
    cgpeak=$(cgroup_peak_mib)
    cleanup
    CGROUP=""
  fi
  if [[ -f $RUN/reference.jsonl && -s $RUN/$name.jsonl && $name != reference ]]; then
    losses=$(python3 "$ROOT/test/Train/compare-losses.py" "$RUN/reference.jsonl" \
      "$RUN/$name.jsonl" 1e-5 || true)
  fi
  printf '%-19s %-7s %6s %5s %12s %12s %9s %6s  %s\n' "$name" "$([[ $limited == 1 ]] && echo "$LIMIT" || echo none)" \
    "$status" "$ooms" "${peak:--}" "$cgpeak" "${epoch:--}" "$(cut -d' ' -f1 /proc/loadavg)" "$losses"
}

printf '%-19s %-7s %6s %5s %12s %12s %9s %6s  %s\n' run limit exit ooms "peak RSS MiB" \
  "cgroup MiB" "epoch s" load "losses vs reference"
run reference 0 --data "$DATA"
run memory 1 --data "$DATA"
rm -rf "$RUN/spill"
run offload 1 --data "$PARTITIONS" --offload "$RUN/spill" --memory-budget "$BUDGET"
TRAINER_ENV=(GNNRT_OFFLOAD_READAHEAD=0)
run offload-noreadahead 1 --data "$PARTITIONS" --offload "$RUN/spill" --memory-budget "$BUDGET"
