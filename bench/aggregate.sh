#!/usr/bin/env bash
# bench/aggregate.sh - the CPU aggregation kernels (GCN's sum with self loops
# and its transpose) on a generated random graph, in GB/s beside a copy
# measured in the same run; optionally against another libgnnrt.a, the two
# taking turns. See bench/README.md.
#
#   bench/aggregate.sh                                  # 1M nodes, 40M edges, width 128
#   BASELINE=/tmp/old/libgnnrt.a THREADS=1 EDGES=5000000 WIDTHS=16,128 bench/aggregate.sh
#
# Environment (defaults in brackets):
#   BENCH_DIR [/tmp/gnnc-bench]  built harnesses, results
#   NODES [1000000] EDGES [40000000]  the random graph (uniform endpoints)
#   WIDTHS [128]     row widths in floats, comma-separated
#   THREADS [1]      OpenMP threads of the kernels and the copy
#   REPS [3]         timed calls per kernel in a run (the run reports the median)
#   ROUNDS [3]       runs per library, taking turns; each figure is the median
#   GNNRT_LIBRARY [build/lib/libgnnrt.a]  BASELINE [none]  a second library
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-1000000}"
EDGES="${EDGES:-40000000}"
WIDTHS="${WIDTHS:-128}"
THREADS="${THREADS:-1}"
REPS="${REPS:-3}"
ROUNDS="${ROUNDS:-3}"
GNNRT_LIBRARY="${GNNRT_LIBRARY:-$ROOT/build/lib/libgnnrt.a}"
BASELINE="${BASELINE:-}"
PY="${PYTHON:-python3}"

NAME=aggregate
source "$ROOT/bench/common.sh"

[[ -f "$GNNRT_LIBRARY" ]] || die "no $GNNRT_LIBRARY (build first: make)"
[[ -z "$BASELINE" || -f "$BASELINE" ]] || die "no $BASELINE"
mkdir -p "$BENCH_DIR"/{bin,run}
RUN="$BENCH_DIR/run/aggregate-n$NODES-e$EDGES-t$THREADS"
mkdir -p "$RUN"
OUT="$RUN/runs.txt"
: >"$OUT"

# One harness per library: the library's kernels, the same harness source.
build() { # library, harness
  c++ -O3 -std=c++17 -fopenmp -I"$ROOT/runtime/include" \
    "$ROOT/bench/aggregate/aggregate_bench.cpp" "$1" \
    -lopenblas -lmetis -lz -lpthread -o "$2"
}
LIBS=(current)
build "$GNNRT_LIBRARY" "$BENCH_DIR/bin/aggregate_bench-current"
if [[ -n "$BASELINE" ]]; then
  LIBS+=(baseline)
  build "$BASELINE" "$BENCH_DIR/bin/aggregate_bench-baseline"
fi

LOAD_START="$(load_avg)"
for ((r = 1; r <= ROUNDS; ++r)); do
  for lib in "${LIBS[@]}"; do
    log "round $r: $lib"
    "$BENCH_DIR/bin/aggregate_bench-$lib" --nodes "$NODES" --edges "$EDGES" \
      --widths "$WIDTHS" --threads "$THREADS" --reps "$REPS" |
      sed "s/^/library=$lib /" >>"$OUT"
  done
done
LOAD_END="$(load_avg)"

{
  echo "aggregate: $NODES nodes, $EDGES random edges, $THREADS thread(s), $ROUNDS round(s) of $REPS calls;"
  echo "load average $LOAD_START at the start, $LOAD_END at the end"
  "$PY" - "$OUT" <<'EOF'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    kv = dict(f.split("=", 1) for f in line.split())
    runs[(kv["kernel"], kv.get("width", ""), kv["library"])].append(kv)
print(f"{'kernel':<10} {'width':>5} {'library':<9} {'wall s':>8} {'GB/s':>7} "
      f"{'CPU s':>8} {'GB/s':>7} {'of copy':>8}")
copy = {lib: statistics.median(float(r["cpu_GBps"]) for r in rs)
        for (k, _, lib), rs in runs.items() if k == "copy"}
for (kernel, width, lib), rs in sorted(
        runs.items(), key=lambda kv: (kv[0][0], int(kv[0][1] or 0), kv[0][2])):
    med = lambda key: statistics.median(float(r[key]) for r in rs)
    share = f"{med('cpu_GBps') / copy[lib]:.2f}" if kernel != "copy" else ""
    print(f"{kernel:<10} {width:>5} {lib:<9} {med('seconds'):>8.3f} "
          f"{med('GBps'):>7.2f} {med('cpu_seconds'):>8.3f} "
          f"{med('cpu_GBps'):>7.2f} {share:>8}")
EOF
} | tee "$BENCH_DIR/aggregate-n$NODES-e$EDGES-t$THREADS.txt"
