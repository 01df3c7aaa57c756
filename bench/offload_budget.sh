#!/usr/bin/env bash
# Whether --memory-budget holds as a limit (docs/out-of-core.md, "The budget
# is a limit"): the 2-layer GCN (hidden 128) with input dropout and
# `aggregation = one_shot` on a generated SBM graph, trained out of core
# from the .npy dataset (the start-up's blocks), from METIS parts made by
# gnn-partition, and from the program's own generate(...) (no --data), at
# each budget. Prints the whole run's peak RSS as /usr/bin/time reports it
# against the budget, the parts, the epoch and the losses against the
# in-memory run's.
#
# Environment: BENCH_DIR (default /tmp/gnnc-bench), NODES, EDGES, FEATURES,
# CLASSES (200000, 3000000, 128, 16), EPOCHS (2), BUDGETS ("200M 300M 512M"),
# METIS_PARTS (12), THREADS (2), TRAINER_GNNC (the gnnc that compiles the
# program: build/bin/gnnc; another checkout's to measure its trainer).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NAME=offload_budget
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
GNN_DATA="$ROOT/build/bin/gnn-data"
NODES="${NODES:-200000}" EDGES="${EDGES:-3000000}" FEATURES="${FEATURES:-128}"
CLASSES="${CLASSES:-16}" EPOCHS="${EPOCHS:-2}" BUDGETS="${BUDGETS:-200M 300M 512M}"
METIS_PARTS="${METIS_PARTS:-12}" THREADS="${THREADS:-2}"
GNNC="${TRAINER_GNNC:-$ROOT/build/bin/gnnc}"
source "$ROOT/bench/common.sh"
DATA="$(bench_graph)"
RUN="$BENCH_DIR/offload-budget-n$NODES-e$EDGES-f$FEATURES"
mkdir -p "$RUN"

# program DATASET: the GCN on `DATASET` (a dataset declaration).
program() {
  cat <<GNN
// Written by bench/offload_budget.sh.
import nn
$1
model GCN(hidden: int = 128, p: float = 0.5) {
  c1 = GCNConv(graph.features, hidden)
  c2 = GCNConv(hidden, graph.classes)
  forward(g, x) { return c2(g, relu(c1(g, dropout(x, p)))) }
}
train GCN on graph {
  optimizer   = adam(lr = 0.01)
  epochs      = $EPOCHS
  evaluate    = [valid, test] every 1000000 epochs
  aggregation = one_shot
}
GNN
}
program "dataset graph = npy(\"$DATA\")" >"$RUN/gcn.gnn"
program "dataset graph = generate(sbm, nodes = $NODES, edges = $EDGES, features = $FEATURES, classes = $CLASSES, seed = 1)" >"$RUN/gen.gnn"
"$GNNC" "$RUN/gcn.gnn" -o "$RUN/gcn"
"$GNNC" "$RUN/gen.gnn" -o "$RUN/gen"
if [[ ! -d "$RUN/metis$METIS_PARTS" ]]; then
  "$ROOT/build/bin/gnn-partition" --data "$DATA" --parts "$METIS_PARTS" \
    --out "$RUN/metis$METIS_PARTS" >/dev/null
fi

# row NAME BUDGET TRAINER ARGS...: one run, one line.
row() {
  local name="$1" budget="$2" trainer="$3"
  shift 3
  rm -rf "$RUN/spill"
  /usr/bin/time -f 'maxrss %M' "$RUN/$trainer" --threads "$THREADS" --stats \
    --metrics "$RUN/$name.jsonl" "$@" >"$RUN/$name.out" 2>&1 || true
  local peak parts epoch over
  peak=$(grep -o 'maxrss [0-9]*' "$RUN/$name.out" | awk '{print $2}')
  parts=$(grep -o 'offload [0-9]* partitions' "$RUN/$name.out" | awk '{print $2}' || true)
  epoch=$(grep -o 'mean epoch [0-9.]*' "$RUN/$name.out" | awk '{print $3}' | head -1 || true)
  over=$(grep -c 'warning' "$RUN/$name.out" || true)
  printf '%-16s %6s %6s %10s %8s %9s %8s  %s\n' "$name" "$budget" "${parts:-1}" \
    "$((peak / 1024))" "$(awk -v p="$peak" -v b="${budget%M}" 'BEGIN { if (b > 0) printf "%.2f", p / 1024 / b; else print "-" }')" \
    "${epoch:--}" "$over" \
    "$(python3 "$ROOT/test/Train/compare-losses.py" "$RUN/memory.jsonl" "$RUN/$name.jsonl" 1e-5 2>&1 || true)"
}

printf '%-16s %6s %6s %10s %8s %9s %8s  %s\n' run budget parts "peak MiB" "x budget" "epoch s" warnings "losses vs memory"
row memory - gcn --data "$DATA"
for budget in $BUDGETS; do
  row "npy-$budget" "$budget" gcn --data "$DATA" --offload "$RUN/spill" --memory-budget "$budget"
  row "metis-$budget" "$budget" gcn --data "$RUN/metis$METIS_PARTS" --offload "$RUN/spill" --memory-budget "$budget"
  row "generated-$budget" "$budget" gen --offload "$RUN/spill" --memory-budget "$budget"
done
