#!/usr/bin/env bash
# bench/kg_wn18rr.sh - knowledge-graph link prediction on WN18RR (the
# bundled examples/data/wn18rr): trains each program of PROGRAMS on it and
# reports its wall time, its median epoch, and the filtered test MRR and
# Hits@1/3/10 of its final epoch and of its best valid epoch. See
# bench/README.md.
#
#   bench/kg_wn18rr.sh                                   # DistMult 1vsAll
#   PROGRAMS="examples/distmult_wn18rr.gnn examples/rgcn_wn18rr.gnn" bench/kg_wn18rr.sh
#   EPOCHS=10 THREADS=1 bench/kg_wn18rr.sh
#
# Environment (defaults in brackets):
#   BENCH_DIR [/tmp/gnnc-bench]  built programs, their output, results
#   PROGRAMS [examples/distmult_wn18rr_1vsall.gnn]  .gnn files on kg("wn18rr")
#   EPOCHS [the program's]  --epochs for every program
#   THREADS [2]   OpenMP / BLAS threads
#   DATA [examples/data/wn18rr]  the knowledge graph's directory
#   GNNC          the compiler [build/bin/gnnc]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
PROGRAMS="${PROGRAMS:-examples/distmult_wn18rr_1vsall.gnn}"
EPOCHS="${EPOCHS:-}"
THREADS="${THREADS:-2}"
GNNC="${GNNC:-$ROOT/build/bin/gnnc}"
DATA="${DATA:-$ROOT/examples/data/wn18rr}"

NAME=kg_wn18rr
source "$ROOT/bench/common.sh"

[[ -x "$GNNC" ]] || die "no $GNNC (build first: make)"
[[ -f "$DATA/train.txt.gz" || -f "$DATA/train.txt" ]] || die "no WN18RR in $DATA"
RUN="$BENCH_DIR/run/kg_wn18rr-t$THREADS"
RESULT="$BENCH_DIR/kg_wn18rr-t$THREADS.txt"
mkdir -p "$RUN"
LOAD_START="$(load_avg)"
export OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS="$THREADS"

# `KEY VALUE` of the last line of $1 that starts with $2.
field() { grep "^$2" "$1" | tail -n 1 | sed -E "s/.* $3 ([0-9.]+).*/\1/"; }

{
  echo "# $DATA: filtered ranking (every entity as head and tail), $THREADS threads"
  echo "# load average at start: $LOAD_START"
  printf '%-40s %6s %9s %8s | %-27s | %-16s\n' program epochs wall_s epoch_s \
    "final: MRR H@1 H@3 H@10" "best valid: epoch MRR H@10"
} > "$RESULT"
for program in $PROGRAMS; do
  name="$(basename "$program" .gnn)"
  log "compiling $program"
  [[ "$program" = /* ]] || program="$ROOT/$program"
  "$GNNC" "$program" -o "$RUN/$name"
  args=(--data "$DATA" --metrics "$RUN/$name.jsonl")
  [[ -n "$EPOCHS" ]] && args+=(--epochs "$EPOCHS")
  log "training $name (${EPOCHS:-its} epochs, $THREADS threads)"
  start=$(date +%s.%N)
  "$RUN/$name" "${args[@]}" > "$RUN/$name.out" 2> "$RUN/$name.err" ||
    die "$name failed: $(tail -n 3 "$RUN/$name.err")"
  wall=$("${PY:-python3}" -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.0f}')" "$start" "$(date +%s.%N)")
  out="$RUN/$name.out"
  epochs=$(grep '^final:' "$out" | sed -E 's/^final: epoch ([0-9]+).*/\1/')
  final="$(field "$out" final: test_mrr) $(field "$out" final: 'test_hits@1') $(field "$out" final: 'test_hits@3') $(field "$out" final: 'test_hits@10')"
  best="$(grep '^best_valid:' "$out" | sed -E 's/^best_valid: epoch ([0-9]+).*/\1/') $(field "$out" best_valid: test_mrr) $(field "$out" best_valid: 'test_hits@10')"
  printf '%-40s %6s %9s %8s | %-27s | %-16s\n' "$name" "$epochs" "$wall" \
    "$(median_epoch "$RUN/$name.jsonl")" "$final" "$best" >> "$RESULT"
done
echo "# load average at end: $(load_avg)" >> "$RESULT"
cat "$RESULT"
