#!/usr/bin/env bash
# bench/gcn_full_graph.sh - full-graph 2-layer GCN epoch time: gnnc's trainer
# against the floor of this machine (bytes / STREAM bandwidth + FLOPs / SGEMM
# peak, both measured here) and against PyG's GCNConv in the same run.
# See bench/README.md for the model behind the floor and how to read the output.
#
#   bench/gcn_full_graph.sh                        # 1M nodes, 20M edges, 128 features
#   NODES=100000 EDGES=2000000 bench/gcn_full_graph.sh   # a quick trial
#
# Environment (defaults in brackets):
#   BENCH_DIR [/tmp/gnnc-bench]  data, the PyG venv, built programs, results
#   NODES [1000000] EDGES [20000000] FEATURES [128] CLASSES [16] HIDDEN [128]
#   EPOCHS [10]      epochs per trainer; the median leaves out the first
#   THREADS [2]      OpenMP / BLAS / torch threads for every measurement
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
THREADS="${THREADS:-2}"
PYG="${PYG:-1}"
PYG_ADJ="${PYG_ADJ:-auto}"
GNNC="${GNNC:-$ROOT/build/bin/gnnc}"
GNN_DATA="${GNN_DATA:-$ROOT/build/bin/gnn-data}"
PY="${PYTHON:-python3}" # the floor arithmetic and JSON parsing (stdlib only)

NAME=gcn_full_graph
source "$ROOT/bench/common.sh"

[[ -x "$GNNC" ]] || die "no $GNNC (build first: make)"
[[ -x "$GNN_DATA" ]] || die "no $GNN_DATA (build first: make)"
(( EPOCHS >= 2 )) || die "EPOCHS must be at least 2 (the first is warm-up)"
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
# dropped (runtime/lib/train/Driver.cpp loads with dedupe). This also writes the
# trainer's binary cache, so its load below is fast.
E_LOADED="$("$GNN_DATA" info --reverse --dedupe "$DATA" | awk '$1 == "edges" {print $2}')"
[[ -n "$E_LOADED" ]] || die "gnn-data info printed no edge count"

#--- 2. The machine: STREAM bandwidth and SGEMM peak -------------------------
build_floor() { # name, extra link flags...
  local name="$1"; shift
  local src="$ROOT/bench/floor/$name.cpp" exe="$BENCH_DIR/bin/$name"
  if [[ ! -x "$exe" || "$src" -nt "$exe" ]]; then
    c++ -O3 -fopenmp "$src" -o "$exe" "$@"
  fi
}
build_floor stream
build_floor gemm_peak -lopenblas
log "measuring memory bandwidth and SGEMM peak ($THREADS threads)"
BW="$("$BENCH_DIR/bin/stream" "$THREADS")"
PEAK="$("$BENCH_DIR/bin/gemm_peak" "$THREADS")"

FLOOR_TABLE="$("$PY" "$ROOT/bench/floor/gcn_floor.py" --nodes "$NODES" --edges "$E_LOADED" \
  --features "$FEATURES" --hidden "$HIDDEN" --classes "$CLASSES" --bandwidth "$BW" --peak "$PEAK")"
floor_field() { sed -n "s/^floor:.* $1=\([^ ]*\).*/\1/p" <<<"$FLOOR_TABLE"; }
FLOOR_S="$(floor_field floor_s)"
STRICT_S="$(floor_field strict_floor_s)"
MEM_S="$(floor_field mem_s)"
GEMM_S="$(floor_field gemm_s)"

#--- 3. gnnc: write, compile and run the trainer -----------------------------
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

log "training with gnnc ($EPOCHS epochs, $THREADS threads)"
rm -f "$RUN/metrics.jsonl"
TIMER=()
if [[ -x /usr/bin/time ]]; then TIMER=(/usr/bin/time -f "%M" -o "$RUN/gnnc.rss"); fi
"${TIMER[@]}" "$RUN/gcn" --data "$DATA" --threads "$THREADS" --epochs "$EPOCHS" \
  --metrics "$RUN/metrics.jsonl" --stats >"$RUN/gnnc.out" 2>"$RUN/gnnc.err" ||
  { cat "$RUN/gnnc.err" >&2; die "the trainer failed"; }
OURS_S="$("$PY" - "$RUN/metrics.jsonl" <<'EOF'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
print(f"{statistics.median(r['epoch_seconds'] for r in rows[1:]):.4f}")
EOF
)"
OURS_RSS="n/a"
if [[ -f "$RUN/gnnc.rss" ]]; then OURS_RSS="$(( $(tail -1 "$RUN/gnnc.rss") / 1024 ))"; fi

#--- 4. PyG in a virtual environment ------------------------------------------
PYG_S="skipped" PYG_MODE="-" PYG_E="-" PYG_RSS="n/a" PYG_NOTE=""
if [[ "$PYG" != 0 ]]; then
  VENV="$BENCH_DIR/venv"
  if ! "$VENV/bin/python" -c 'import torch, torch_geometric' 2>/dev/null; then
    log "creating $VENV with torch and torch_geometric from PyPI"
    if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
      command -v apt-get >/dev/null || die "python3 has no venv/ensurepip (install python3-venv)"
      apt-get install -y python3-venv >&2 || { apt-get update >&2 && apt-get install -y python3-venv >&2; }
    fi
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet torch torch_geometric >&2
  fi
  MEM_KIB="$(awk '$1 == "MemAvailable:" {print $2}' /proc/meminfo)"
  LIMIT_KIB="$(( ${PYG_MEM_GIB:-0} > 0 ? ${PYG_MEM_GIB:-0} * 1024 * 1024 : MEM_KIB * 3 / 4 ))"
  run_pyg() { # adj mode; sets PYG_LINE, returns the exit status
    log "training with PyG (adj=$1, $EPOCHS epochs, $THREADS threads, limit $((LIMIT_KIB / 1024 / 1024)) GiB)"
    local rc=0
    ( ulimit -v "$LIMIT_KIB"
      exec "$VENV/bin/python" -W ignore "$ROOT/bench/pyg_gcn.py" --data "$DATA" \
        --epochs "$EPOCHS" --threads "$THREADS" --hidden "$HIDDEN" --adj "$1" ) \
      >"$RUN/pyg-$1.out" 2>"$RUN/pyg-$1.err" || rc=$?
    PYG_LINE="$(grep '^pyg: adj=' "$RUN/pyg-$1.out" | tail -1 || true)"
    return "$rc"
  }
  pyg_field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$PYG_LINE"; }
  modes=("$PYG_ADJ")
  if [[ "$PYG_ADJ" == auto ]]; then modes=(edge_index sparse); fi
  PYG_ALL=""
  for mode in "${modes[@]}"; do
    rc=0; run_pyg "$mode" || rc=$?
    if (( rc == 0 )); then
      s="$(pyg_field median_epoch_s)"
      PYG_ALL+="adj=$mode $s s (peak RSS $(pyg_field peak_rss_mib) MiB); "
      # The faster path that completed is the peer.
      if [[ "$PYG_MODE" == - ]] || "$PY" -c "import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))" "$s" "$PYG_S"; then
        PYG_MODE="$mode" PYG_S="$s"
        PYG_E="$(pyg_field edges)" PYG_RSS="$(pyg_field peak_rss_mib)"
      fi
    elif (( rc == 3 )); then
      PYG_ALL+="adj=$mode out of memory (address-space limit $((LIMIT_KIB / 1024 / 1024)) GiB); "
    else
      tail -5 "$RUN/pyg-$mode.err" >&2
      PYG_ALL+="adj=$mode failed (exit $rc, see $RUN/pyg-$mode.err); "
    fi
  done
  if [[ "$PYG_MODE" == - ]]; then PYG_S="failed"; fi
  PYG_NOTE="PyG runs: $PYG_ALL"
fi

#--- 5. The table -------------------------------------------------------------
ratio() { "$PY" -c "import sys
try: print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}x')
except ValueError: print('-')" "$1" "$2"; }
{
  echo "GCN, 2 layers, hidden $HIDDEN, full graph: $NODES nodes, $EDGES generated edges ->"
  echo "$E_LOADED after reverse + dedupe (gnnc; PyG: $PYG_E), $FEATURES features, $CLASSES classes,"
  echo "$THREADS threads, median of epochs 2..$EPOCHS. Load average at start $LOAD_START, end $(load_avg)."
  echo
  echo "machine: STREAM triad $BW GB/s, SGEMM peak $PEAK GFLOP/s ($THREADS threads)"
  echo "floor model (bytes and FLOPs per op, see bench/README.md):"
  grep -v '^floor:' <<<"$FLOOR_TABLE" | sed 's/^/  /'
  echo
  grep '^stats:' "$RUN/gnnc.out" | sed 's/^/gnnc /' || true
  echo "gnnc compile time: $COMPILE_S s"
  echo
  printf '%-28s %10s  %s\n' "" "epoch s" ""
  printf '%-28s %10s  %s\n' "gnnc" "$OURS_S" "peak RSS ${OURS_RSS} MiB"
  printf '%-28s %10s  %s\n' "floor" "$FLOOR_S" "memory $MEM_S s + GEMM $GEMM_S s"
  printf '%-28s %10s  %s\n' "gnnc / floor" "$(ratio "$OURS_S" "$FLOOR_S")" "goal: at most 2x"
  printf '%-28s %10s  %s\n' "strict floor (rows once)" "$STRICT_S" "gnnc / strict: $(ratio "$OURS_S" "$STRICT_S")"
  printf '%-28s %10s  %s\n' "PyG (adj=$PYG_MODE)" "$PYG_S" "peak RSS ${PYG_RSS} MiB"
  printf '%-28s %10s  %s\n' "speedup PyG / gnnc" "$(ratio "$PYG_S" "$OURS_S")" "goal: at least 3x"
  if [[ -n "$PYG_NOTE" ]]; then echo "$PYG_NOTE"; fi
} | tee "$RESULT"
echo "(saved to $RESULT; logs in $RUN)" >&2
