#!/usr/bin/env bash
# bench/compile_time.sh - gnnc's time from .gnn source to trainer binary, per
# example, with the runtime (libgnnrt.a) already built: the median of RUNS
# wall times of `gnnc X.gnn -o EXE` (parse, Sema, MLIR passes, C++ emission and
# the host C++ compiler, which dominates). See bench/README.md.
#
#   bench/compile_time.sh [FILE.gnn ...]     # default: examples/*.gnn
#
# Environment: RUNS [3], GNNC [build/bin/gnnc], OUT_DIR [a fresh mktemp -d],
# CXX (as gnnc itself reads it; default c++).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GNNC="${GNNC:-$ROOT/build/bin/gnnc}"
RUNS="${RUNS:-3}"
[[ -x "$GNNC" ]] || { echo "compile_time: no $GNNC (build first: make)" >&2; exit 1; }
(( RUNS >= 1 )) || { echo "compile_time: RUNS must be positive" >&2; exit 1; }

if [[ -n "${OUT_DIR:-}" ]]; then
  mkdir -p "$OUT_DIR"
else
  OUT_DIR="$(mktemp -d /tmp/gnnc-compile-time.XXXXXX)"
  trap 'rm -rf "$OUT_DIR"' EXIT
fi
if (( $# )); then files=("$@"); else files=("$ROOT"/examples/*.gnn); fi

now() { date +%s.%N; }
echo "gnnc $GNNC, host compiler ${CXX:-c++} ($(readlink -f "$(command -v "${CXX:-c++}")")), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %s  %8s\n' "example" "$(for ((i = 1; i <= RUNS; ++i)); do printf '%8s ' "run $i"; done)" "median s"
worst=0
for src in "${files[@]}"; do
  name="$(basename "$src" .gnn)"
  times=()
  for ((i = 1; i <= RUNS; ++i)); do
    rm -f "$OUT_DIR/$name"
    t0="$(now)"
    "$GNNC" "$src" -o "$OUT_DIR/$name" >"$OUT_DIR/$name.log" 2>&1 ||
      { cat "$OUT_DIR/$name.log" >&2; echo "compile_time: gnnc failed on $src" >&2; exit 1; }
    t1="$(now)"
    [[ -x "$OUT_DIR/$name" ]] || { echo "compile_time: no binary from $src" >&2; exit 1; }
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')")
  done
  median="$(printf '%s\n' "${times[@]}" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')"
  printf '%-22s %s  %8.2f\n' "$name" "$(for t in "${times[@]}"; do printf '%8s ' "$t"; done)" "$median"
  worst="$(awk -v a="$worst" -v b="$median" 'BEGIN {print (b > a) ? b : a}')"
done
echo "slowest median: $worst s (goal: at most 5 s)"
