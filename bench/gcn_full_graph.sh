#!/usr/bin/env bash
# bench/gcn_full_graph.sh - full-graph 2-layer GCN epoch time: gnnc's trainer
# against the floor of this machine (bytes / STREAM bandwidth + FLOPs / SGEMM
# peak, both measured here) and against DGL's GraphConv and PyG's GCNConv in
# the same run, taking turns for ROUNDS rounds.
# See bench/README.md for the model behind the floor and how to read the output.
#
#   bench/gcn_full_graph.sh                        # 1M nodes, 20M edges, 128 features
#   NODES=100000 EDGES=2000000 bench/gcn_full_graph.sh   # a quick trial
#
# Environment (defaults in brackets):
#   BENCH_DIR [/tmp/gnnc-bench]  data, the PyG venv, built programs, results
#   NODES [1000000] EDGES [20000000] FEATURES [128] CLASSES [16] HIDDEN [128]
#   EPOCHS [10]      epochs per trainer; the median leaves out the first
#   ROUNDS [3]       rounds of runs, peers taking turns; each figure is the
#                    median over rounds of a run's median epoch
#   THREADS [2]      OpenMP / BLAS / torch threads for every measurement
#   ORDERS [auto original]  gnnc's --node-order values to run (the first is
#                    the one compared with the peers and the goals)
#   DGL [1]          0 skips DGL (a venv of its own: DGL_PACKAGES in common.sh)
#   PYG [1]          0 skips PyG
#   PYG_ADJ [auto]   edge_index | sparse | auto (both; the faster one that
#                    completes is compared)
#   PYG_MEM_GIB      address-space limit of the PyG process (default: 75% of
#                    MemAvailable), so running out of memory fails cleanly
#   GNNC, GNN_DATA   the tools [build/bin/gnnc, build/bin/gnn-data]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-1000000}"
EDGES="${EDGES:-20000000}"
FEATURES="${FEATURES:-128}"
CLASSES="${CLASSES:-16}"
HIDDEN="${HIDDEN:-128}"
EPOCHS="${EPOCHS:-10}"
ROUNDS="${ROUNDS:-3}"
THREADS="${THREADS:-2}"
ORDERS="${ORDERS:-auto original}"
DGL="${DGL:-1}"
PYG="${PYG:-1}"
PYG_ADJ="${PYG_ADJ:-auto}"
GNNC="${GNNC:-$ROOT/build/bin/gnnc}"
GNN_DATA="${GNN_DATA:-$ROOT/build/bin/gnn-data}"
GNNRT_LIBRARY="${GNNRT_LIBRARY:-$ROOT/build/lib/libgnnrt.a}"
PY="${PYTHON:-python3}" # the floor arithmetic and JSON parsing (stdlib only)

NAME=gcn_full_graph
source "$ROOT/bench/common.sh"

[[ -x "$GNNC" ]] || die "no $GNNC (build first: make)"
[[ -x "$GNN_DATA" ]] || die "no $GNN_DATA (build first: make)"
(( EPOCHS >= 2 )) || die "EPOCHS must be at least 2 (the first is warm-up)"
(( ROUNDS >= 1 )) || die "ROUNDS must be at least 1"
[[ -f "$GNNRT_LIBRARY" ]] || die "no $GNNRT_LIBRARY (build first: make)"
case "$PYG_ADJ" in edge_index|sparse|auto) ;; *) die "PYG_ADJ: edge_index, sparse or auto";; esac
command -v "$PY" >/dev/null || die "no $PY"

mkdir -p "$BENCH_DIR"/{data,bin,run}
TAG="sbm-n${NODES}-e${EDGES}-f${FEATURES}-c${CLASSES}-s1"
RUN="$BENCH_DIR/run/$TAG-h${HIDDEN}-t${THREADS}"
mkdir -p "$RUN"
RESULT="$BENCH_DIR/gcn_full_graph-$TAG-h${HIDDEN}-t${THREADS}.txt"
LOAD_START="$(load_avg)"

# Keep the numbers honest: every step below uses THREADS threads.
export OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS="$THREADS" MKL_NUM_THREADS="$THREADS"

#--- 1. The graph (generated once, cached) -----------------------------------
DATA="$(bench_graph)"
# The edge count the trainer trains on: reverse edges added, duplicates
# dropped (runtime/lib/train/cli/Driver.cpp loads with dedupe). This also writes the
# trainer's binary cache, so its load below is fast.
E_LOADED="$("$GNN_DATA" info --reverse --dedupe "$DATA" | awk '$1 == "edges" {print $2}')"
[[ -n "$E_LOADED" ]] || die "gnn-data info printed no edge count"

#--- 2. The machine: STREAM bandwidth and SGEMM peak -------------------------
build_floor stream
build_floor gemm_peak -lopenblas
log "measuring memory bandwidth and SGEMM peak ($THREADS threads)"
BW="$("$BENCH_DIR/bin/stream" "$THREADS")"
PEAK="$("$BENCH_DIR/bin/gemm_peak" "$THREADS")"

# Gathered rows the last-level cache serves, in the trainer's node order
# (--node-order auto) and in the original one: floor/gather_model.cpp.
MODEL_EXE="$BENCH_DIR/bin/gather_model"
MODEL_SRC="$ROOT/bench/floor/gather_model.cpp"
if [[ ! -x "$MODEL_EXE" || "$MODEL_SRC" -nt "$MODEL_EXE" || "$GNNRT_LIBRARY" -nt "$MODEL_EXE" ]]; then
  c++ -O3 -std=c++17 -fopenmp -I"$ROOT/runtime/include" "$MODEL_SRC" "$GNNRT_LIBRARY" \
    -lopenblas -lmetis -lz -lpthread -o "$MODEL_EXE"
fi
log "modeling the cache misses of the gathers"
GATHER_MODEL="$("$MODEL_EXE" "$DATA" "$HIDDEN" "$CLASSES")"
model_field() { # width field
  sed -n "s/^gather_model: width=$1 .*$2=\([^ ]*\).*/\1/p" <<<"$GATHER_MODEL"; }
AUTO_ORDER="$(model_field "$HIDDEN" order)"
floor_table() { # miss-hidden miss-classes
  "$PY" "$ROOT/bench/floor/gcn_floor.py" --nodes "$NODES" --edges "$E_LOADED" \
    --features "$FEATURES" --hidden "$HIDDEN" --classes "$CLASSES" --bandwidth "$BW" \
    --peak "$PEAK" --miss-hidden "$1" --miss-classes "$2"; }
FLOOR_TABLE="$(floor_table "$(model_field "$HIDDEN" miss)" "$(model_field "$CLASSES" miss)")"
ORIGINAL_TABLE="$(floor_table "$(model_field "$HIDDEN" miss_original)" \
  "$(model_field "$CLASSES" miss_original)")"
field() { sed -n "s/^floor:.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }
FLOOR_S="$(field "$FLOOR_TABLE" floor_s)"
STRICT_S="$(field "$FLOOR_TABLE" strict_floor_s)"
MOVED_S="$(field "$FLOOR_TABLE" moved_floor_s)"
HOISTED_S="$(field "$FLOOR_TABLE" hoisted_floor_s)"
MOVED_ORIGINAL_S="$(field "$ORIGINAL_TABLE" moved_floor_s)"
MEM_S="$(field "$FLOOR_TABLE" mem_s)"
GEMM_S="$(field "$FLOOR_TABLE" gemm_s)"

#--- 3. The programs ---------------------------------------------------------
cat >"$RUN/gcn.gnn" <<EOF
// Written by bench/gcn_full_graph.sh: a 2-layer GCN, hidden $HIDDEN, full graph,
// no dropout, Adam; evaluation only after the last epoch (never timed).
import nn

dataset graph = npy("$DATA")

model GCN(hidden: int = $HIDDEN) {
  c1 = GCNConv(graph.features, hidden)
  c2 = GCNConv(hidden, graph.classes)
  forward(g, x) {
    return c2(g, relu(c1(g, x)))
  }
}

train GCN on graph {
  batches   = full_graph
  loss      = cross_entropy
  optimizer = adam(lr = 0.01)
  epochs    = $EPOCHS
  evaluate  = [valid, test] every 1000000 epochs
}
EOF
log "compiling $RUN/gcn.gnn"
t0=$(date +%s.%N)
"$GNNC" "$RUN/gcn.gnn" -o "$RUN/gcn"
COMPILE_S="$("$PY" -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$t0" "$(date +%s.%N)")"

if [[ "$DGL" != 0 ]]; then ensure_venv "$BENCH_DIR/venv-dgl" "torch, dgl" "${DGL_PACKAGES[@]}"; fi
if [[ "$PYG" != 0 ]]; then ensure_venv "$BENCH_DIR/venv" "torch, torch_geometric" torch torch_geometric; fi
MEM_KIB="$(awk '$1 == "MemAvailable:" {print $2}' /proc/meminfo)"
LIMIT_KIB="$(( ${PYG_MEM_GIB:-0} > 0 ? ${PYG_MEM_GIB:-0} * 1024 * 1024 : MEM_KIB * 3 / 4 ))"

#--- 4. Rounds: gnnc (each node order), DGL, PyG, in turn ----------------------
declare -A RUNS_S=() RSS=() NOTE=()
PYG_MODES=("$PYG_ADJ")
if [[ "$PYG_ADJ" == auto ]]; then PYG_MODES=(edge_index sparse); fi
declare -A PYG_DEAD=() # modes that failed once (out of memory) are not retried

run_gnnc() { # order round
  local out="$RUN/gnnc-$1-r$2"
  log "round $2: gnnc --node-order $1 ($EPOCHS epochs, $THREADS threads)"
  /usr/bin/time -f "%M" -o "$out.rss" "$RUN/gcn" --data "$DATA" --threads "$THREADS" \
    --epochs "$EPOCHS" --node-order "$1" --metrics "$out.jsonl" --stats >"$out.out" 2>"$out.err" ||
    { cat "$out.err" >&2; die "the trainer failed"; }
  RUNS_S[gnnc-$1]+=" $(median_epoch "$out.jsonl")"
  RSS[gnnc-$1]="$(( $(tail -1 "$out.rss") / 1024 ))"
}
peer_field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }
run_dgl() { # round
  local out="$RUN/dgl-r$1" rc=0 line
  log "round $1: DGL ($EPOCHS epochs, $THREADS threads)"
  ( ulimit -v "$LIMIT_KIB"
    exec "$BENCH_DIR/venv-dgl/bin/python" -W ignore "$ROOT/bench/dgl_gcn.py" --data "$DATA" \
      --epochs "$EPOCHS" --threads "$THREADS" --hidden "$HIDDEN" ) >"$out.out" 2>"$out.err" || rc=$?
  line="$(grep '^dgl: nodes=' "$out.out" | tail -1 || true)"
  if (( rc == 0 )); then
    RUNS_S[dgl]+=" $(peer_field "$line" median_epoch_s)"
    RSS[dgl]="$(peer_field "$line" peak_rss_mib)"
    NOTE[dgl_edges]="$(peer_field "$line" edges)"
  else
    tail -3 "$out.err" >&2
    NOTE[dgl]="failed (exit $rc, see $out.err)"
  fi
}
run_pyg() { # adj round
  local out="$RUN/pyg-$1-r$2" rc=0 line
  log "round $2: PyG (adj=$1, $EPOCHS epochs, $THREADS threads, limit $((LIMIT_KIB / 1024 / 1024)) GiB)"
  ( ulimit -v "$LIMIT_KIB"
    exec "$BENCH_DIR/venv/bin/python" -W ignore "$ROOT/bench/pyg_gcn.py" --data "$DATA" \
      --epochs "$EPOCHS" --threads "$THREADS" --hidden "$HIDDEN" --adj "$1" ) \
    >"$out.out" 2>"$out.err" || rc=$?
  line="$(grep '^pyg: adj=' "$out.out" | tail -1 || true)"
  if (( rc == 0 )); then
    RUNS_S[pyg-$1]+=" $(peer_field "$line" median_epoch_s)"
    RSS[pyg-$1]="$(peer_field "$line" peak_rss_mib)"
    NOTE[pyg_edges]="$(peer_field "$line" edges)"
  elif (( rc == 3 )); then
    PYG_DEAD[$1]=1
    NOTE[pyg-$1]="out of memory (address-space limit $((LIMIT_KIB / 1024 / 1024)) GiB)"
  else
    tail -5 "$out.err" >&2
    PYG_DEAD[$1]=1
    NOTE[pyg-$1]="failed (exit $rc, see $out.err)"
  fi
}

for ((r = 1; r <= ROUNDS; ++r)); do
  for order in $ORDERS; do run_gnnc "$order" "$r"; done
  if [[ "$DGL" != 0 ]]; then run_dgl "$r"; fi
  if [[ "$PYG" != 0 ]]; then
    for mode in "${PYG_MODES[@]}"; do
      [[ -n "${PYG_DEAD[$mode]:-}" ]] || run_pyg "$mode" "$r"
    done
  fi
done

# shellcheck disable=SC2086 # the lists are space-separated numbers
med() { median ${RUNS_S[$1]:-}; }
FIRST_ORDER="${ORDERS%% *}"
OURS_S="$(med "gnnc-$FIRST_ORDER")"
DGL_S="skipped"
[[ "$DGL" == 0 ]] || DGL_S="$(med dgl)"
PYG_S="skipped" PYG_MODE="-"
if [[ "$PYG" != 0 ]]; then
  PYG_S="failed"
  for mode in "${PYG_MODES[@]}"; do
    s="$(med "pyg-$mode")"
    # The faster mode that completed is the peer.
    if [[ "$s" != - ]] && { [[ "$PYG_MODE" == - ]] ||
        "$PY" -c "import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))" "$s" "$PYG_S"; }; then
      PYG_MODE="$mode" PYG_S="$s"
    fi
  done
fi

#--- 5. The table -------------------------------------------------------------
{
  echo "GCN, 2 layers, hidden $HIDDEN, full graph: $NODES nodes, $EDGES generated edges ->"
  echo "$E_LOADED after reverse + dedupe (gnnc; DGL: ${NOTE[dgl_edges]:--}; PyG: ${NOTE[pyg_edges]:--}),"
  echo "$FEATURES features, $CLASSES classes, $THREADS threads. $ROUNDS rounds of gnnc (--node-order"
  echo "$ORDERS), DGL and PyG in turn; each figure is the median over rounds of a run's median"
  echo "of epochs 2..$EPOCHS. Load average at start $LOAD_START, end $(load_avg)."
  echo
  echo "machine: STREAM triad $BW GB/s, SGEMM peak $PEAK GFLOP/s ($THREADS threads)"
  sed 's/^/cache model: /' <<<"$GATHER_MODEL"
  echo "floor model (bytes and FLOPs per op, see bench/README.md; 'moved': the gathered"
  echo "rows that miss the modeled cache in the trainer's node order, $AUTO_ORDER):"
  grep -v '^floor:' <<<"$FLOOR_TABLE" | sed 's/^/  /'
  echo
  grep '^stats:' "$RUN/gnnc-$FIRST_ORDER-r1.out" | sed 's/^/gnnc /' || true
  echo "gnnc compile time: $COMPILE_S s"
  echo
  printf '%-32s %9s  %s\n' "" "epoch s" "runs"
  for order in $ORDERS; do
    printf '%-32s %9s  %s\n' "gnnc --node-order $order" "$(med "gnnc-$order")" \
      "${RUNS_S[gnnc-$order]# } (peak RSS ${RSS[gnnc-$order]} MiB)"
  done
  printf '%-32s %9s  %s\n' "floor (naive: rows from memory)" "$FLOOR_S" "memory $MEM_S s + GEMM $GEMM_S s"
  printf '%-32s %9s  %s\n' "floor (bytes moved, $AUTO_ORDER)" "$MOVED_S" "in the original order: $MOVED_ORIGINAL_S s"
  printf '%-32s %9s  %s\n' "strict floor (rows once)" "$STRICT_S" ""
  printf '%-32s %9s  %s\n' "floor (A.X once per run)" "$HOISTED_S" "the naive floor of gnnc's dataflow: no layer-1 aggregation per epoch"
  printf '%-32s %9s  %s\n' "gnnc / naive floor" "$(ratio "$OURS_S" "$FLOOR_S")" "goal: at most 1.3x"
  printf '%-32s %9s  %s\n' "gnnc / moved floor" "$(ratio "$OURS_S" "$MOVED_S")" ""
  printf '%-32s %9s  %s\n' "gnnc / floor (A.X once)" "$(ratio "$OURS_S" "$HOISTED_S")" ""
  printf '%-32s %9s  %s\n' "DGL GraphConv" "$DGL_S" "${RUNS_S[dgl]:- } (peak RSS ${RSS[dgl]:-n/a} MiB) ${NOTE[dgl]:-}"
  printf '%-32s %9s  %s\n' "speedup DGL / gnnc" "$(ratio "$DGL_S" "$OURS_S")" "goal: at least 4x"
  printf '%-32s %9s  %s\n' "PyG (adj=$PYG_MODE)" "$PYG_S" "peak RSS ${RSS[pyg-$PYG_MODE]:-n/a} MiB"
  printf '%-32s %9s  %s\n' "speedup PyG / gnnc" "$(ratio "$PYG_S" "$OURS_S")" ""
  if [[ "$PYG" != 0 ]]; then
    for mode in "${PYG_MODES[@]}"; do
      echo "PyG adj=$mode runs:${RUNS_S[pyg-$mode]:- none} ${NOTE[pyg-$mode]:-}"
    done
  fi
} | tee "$RESULT"
echo "(saved to $RESULT; logs in $RUN)" >&2
