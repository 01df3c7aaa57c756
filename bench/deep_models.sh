#!/usr/bin/env bash
# bench/deep_models.sh - issue 31's deep models on the bundled Cora (public
# split): the test accuracy each seed ends with (the early-stopped epoch's,
# best weights restored), their mean and standard deviation over SEEDS seeds,
# the compile time and the epochs trained, for examples/appnp_cora.gnn and
# examples/gcnii_cora.gnn (or the files given).
#
#   bench/deep_models.sh [FILE.gnn ...]
#
# Environment: SEEDS [10], THREADS [1], GNNC [build/bin/gnnc].
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GNNC="${GNNC:-$ROOT/build/bin/gnnc}"
SEEDS="${SEEDS:-10}" THREADS="${THREADS:-1}"
[[ -x "$GNNC" ]] || { echo "deep_models: no $GNNC (build first: make)" >&2; exit 1; }
if (( $# )); then files=("$@"); else files=("$ROOT/examples/appnp_cora.gnn" "$ROOT/examples/gcnii_cora.gnn"); fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

echo "$(nproc) cores, $THREADS threads, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for src in "${files[@]}"; do
  name="$(basename "$src" .gnn)"
  t0="$(date +%s.%N)"
  "$GNNC" "$src" -o "$WORK/$name"
  t1="$(date +%s.%N)"
  echo "$name: $(wc -l < "$src") lines, compiled in $(echo "$t1 - $t0" | bc) s"
  for ((seed = 0; seed < SEEDS; ++seed)); do
    "$WORK/$name" --data "$ROOT/examples/data/cora" --seed "$seed" \
      --threads "$THREADS" > "$WORK/$name.$seed.out" 2> "$WORK/$name.$seed.err"
    final="$(grep '^final:' "$WORK/$name.$seed.out")"
    stop="$(grep '^early_stopping:' "$WORK/$name.$seed.out" || echo 'early_stopping: ran every epoch')"
    echo "  seed $seed: $final ($stop)"
    echo "$final" | sed 's/.*test_acc \([0-9.]*\).*/\1/' >> "$WORK/$name.acc"
  done
  python3 - "$WORK/$name.acc" "$name" <<'PY'
import statistics, sys
acc = [100 * float(line) for line in open(sys.argv[1]) if line.strip()]
sd = statistics.stdev(acc) if len(acc) > 1 else 0.0
print(f"{sys.argv[2]}: test accuracy {statistics.mean(acc):.2f} ± {sd:.2f} over {len(acc)} seeds")
PY
done
