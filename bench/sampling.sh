#!/usr/bin/env bash
# bench/sampling.sh - mini-batch neighbor sampling throughput: gnnrt's
# NeighborSampler + BatchPipeline against PyG's NeighborLoader, same graph,
# same fanouts, same batch size, same thread count, in one run.
# See bench/README.md for what each figure counts.
#
#   bench/sampling.sh                                    # 1M nodes, 20M edges, 128 features
#   NODES=100000 EDGES=2000000 bench/sampling.sh         # a quick trial
#
# Environment (defaults in brackets):
#   BENCH_DIR [/tmp/gnnc-bench]  data, the PyG venv, built programs, results
#   NODES [1000000] EDGES [20000000] FEATURES [128] CLASSES [16]  the graph,
#                    generated as bench/gcn_full_graph.sh does (shared cache)
#   FANOUTS [15,10,5] PyG's num_neighbors order: the seeds' hop first
#   BATCH [1024]     seeds per batch
#   THREADS [2]      our BatchPipeline workers; PyG's torch threads and
#                    DataLoader workers
#   BATCHES [100] RUNS [5]           ours: batches per run, runs (median)
#   PYG_BATCHES [20] PYG_RUNS [3]    PyG's
#   PYG [1]          0 skips PyG
#   PYG_MEM_GIB      address-space limit of the PyG process (default: 75% of
#                    MemAvailable)
#   GNN_DATA [build/bin/gnn-data]  GNNRT_LIBRARY [build/lib/libgnnrt.a]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-1000000}"
EDGES="${EDGES:-20000000}"
FEATURES="${FEATURES:-128}"
CLASSES="${CLASSES:-16}"
FANOUTS="${FANOUTS:-15,10,5}"
BATCH="${BATCH:-1024}"
THREADS="${THREADS:-2}"
BATCHES="${BATCHES:-100}"
RUNS="${RUNS:-5}"
PYG_BATCHES="${PYG_BATCHES:-20}"
PYG_RUNS="${PYG_RUNS:-3}"
PYG="${PYG:-1}"
GNN_DATA="${GNN_DATA:-$ROOT/build/bin/gnn-data}"
GNNRT_LIBRARY="${GNNRT_LIBRARY:-$ROOT/build/lib/libgnnrt.a}"
PY="${PYTHON:-python3}" # the table arithmetic (stdlib only)

NAME=sampling
source "$ROOT/bench/common.sh"

[[ -x "$GNN_DATA" ]] || die "no $GNN_DATA (build first: make)"
[[ -f "$GNNRT_LIBRARY" ]] || die "no $GNNRT_LIBRARY (build first: make)"
command -v "$PY" >/dev/null || die "no $PY"

mkdir -p "$BENCH_DIR"/{data,bin,run}
TAG="sbm-n${NODES}-e${EDGES}-f${FEATURES}-c${CLASSES}-s1"
RUN="$BENCH_DIR/run/sampling-$TAG-t${THREADS}"
mkdir -p "$RUN"
RESULT="$BENCH_DIR/sampling-$TAG-t${THREADS}.txt"
LOAD_START="$(load_avg)"
export OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS="$THREADS" MKL_NUM_THREADS="$THREADS"

#--- 1. The graph (generated once, cached; the same as gcn_full_graph.sh's) ---
DATA="$(bench_graph)"

#--- 2. Our harness, linked against libgnnrt.a ----------------------------------
SRC="$ROOT/bench/sampling/sample_bench.cpp"
BENCH="$BENCH_DIR/bin/sample_bench"
if [[ ! -x "$BENCH" || "$SRC" -nt "$BENCH" || "$GNNRT_LIBRARY" -nt "$BENCH" ]]; then
  log "building $BENCH"
  c++ -O3 -std=c++17 -fopenmp -I"$ROOT/runtime/include" "$SRC" "$GNNRT_LIBRARY" \
    -lopenblas -lmetis -lz -lpthread -o "$BENCH"
fi

#--- 3. Ours ------------------------------------------------------------------
log "gnnrt: fanouts $FANOUTS, batch $BATCH, $THREADS workers, $RUNS runs of $BATCHES batches"
"$BENCH" "$DATA" --fanouts "$FANOUTS" --batch "$BATCH" --threads "$THREADS" \
  --batches "$BATCHES" --runs "$RUNS" >"$RUN/ours.out" 2>"$RUN/ours.err" ||
  { cat "$RUN/ours.err" >&2; die "sample_bench failed"; }
field() { # file, line prefix, key
  grep "^$2" "$1" | sed -n "s/.* $3=\([^ ]*\).*/\1/p" | head -1
}
OURS_EPS="$(field "$RUN/ours.out" "ours: mode=sampling" edges_per_s)"
OURS_BPS="$(field "$RUN/ours.out" "ours: mode=sampling" batches_per_s)"
OURS_EPB="$(field "$RUN/ours.out" "ours: mode=sampling" edges_per_batch)"
OURS_GBPS="$(field "$RUN/ours.out" "ours: mode=gather" batches_per_s)"
OURS_GEPS="$(field "$RUN/ours.out" "ours: mode=gather" edges_per_s)"

#--- 4. PyG in the shared virtual environment ----------------------------------
PYG_NOTE="PyG skipped"
PYG_EPS="-" PYG_BPS="-" PYG_EPB="-" PYG_LBPS="-" PYG_LEPS="-" PYG_SW="-" PYG_LW="-" PYG_BACKEND="-"
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
  # NeighborLoader needs pyg-lib or torch-sparse. pyg-lib has no PyPI release
  # (its wheels live on data.pyg.org); torch-sparse (and torch-scatter, which
  # it imports) are source packages on PyPI, compiled here against the
  # installed torch: about 30-60 minutes on 2 cores, once.
  if ! "$VENV/bin/python" -W ignore -c 'import torch_sparse' 2>/dev/null; then
    log "building torch-scatter and torch-sparse from PyPI sources (once; slow)"
    FORCE_ONLY_CPU=1 MAX_JOBS="$THREADS" "$VENV/bin/pip" install --quiet \
      --no-build-isolation torch-scatter torch-sparse >&2
  fi
  GRAPH="$DATA.csr"
  if [[ ! -f "$GRAPH/.bench-complete" ]]; then
    rm -rf "$GRAPH"
    mkdir -p "$GRAPH"
    "$BENCH" "$DATA" --export "$GRAPH" 2>/dev/null
    touch "$GRAPH/.bench-complete"
  fi
  MEM_KIB="$(awk '$1 == "MemAvailable:" {print $2}' /proc/meminfo)"
  LIMIT_KIB="$(( ${PYG_MEM_GIB:-0} > 0 ? ${PYG_MEM_GIB:-0} * 1024 * 1024 : MEM_KIB * 3 / 4 ))"
  log "PyG NeighborLoader: $PYG_RUNS runs of $PYG_BATCHES batches, 0 and $THREADS workers"
  rc=0
  ( ulimit -v "$LIMIT_KIB"
    exec "$VENV/bin/python" -W ignore "$ROOT/bench/sampling/pyg_sampling.py" \
      --graph "$GRAPH" --data "$DATA" --fanouts "$FANOUTS" --batch "$BATCH" \
      --threads "$THREADS" --batches "$PYG_BATCHES" --runs "$PYG_RUNS" \
      --workers "0,$THREADS" ) >"$RUN/pyg.out" 2>"$RUN/pyg.err" || rc=$?
  if (( rc != 0 )); then
    tail -5 "$RUN/pyg.err" >&2
    PYG_NOTE="PyG failed (exit $rc, see $RUN/pyg.err)"
  else
    # Per mode, the worker count with more batches per second.
    best() { # mode -> "workers edges_per_s batches_per_s edges_per_batch backend"
      grep "^pyg: mode=$1 " "$RUN/pyg.out" | sed 's/^pyg: //' |
        awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
               if (v["batches_per_s"] + 0 > top) { top = v["batches_per_s"] + 0
                 line = v["workers"] " " v["edges_per_s"] " " v["batches_per_s"] " " v["edges_per_batch"] " " v["backend"] } }
             END { print line }'
    }
    read -r PYG_SW PYG_EPS PYG_BPS PYG_EPB PYG_BACKEND <<<"$(best sampling)"
    read -r PYG_LW PYG_LEPS PYG_LBPS _ _ <<<"$(best loader)"
    PYG_NOTE="PyG runs: $(grep '^pyg:' "$RUN/pyg.out" | sed 's/^pyg: //' | tr '\n' ';')"
  fi
fi

#--- 5. The table ---------------------------------------------------------------
ratio() { "$PY" -c "import sys
try: print(f'{float(sys.argv[1]) / float(sys.argv[2]):.1f}x')
except (ValueError, ZeroDivisionError): print('-')" "$1" "$2"; }
mega() { "$PY" -c "import sys
try: print(f'{float(sys.argv[1]) / 1e6:.2f}M')
except ValueError: print(sys.argv[1])" "$1"; }
{
  echo "Neighbor sampling, fanouts [$FANOUTS] (seeds' hop first), batch $BATCH, $THREADS threads:"
  echo "$NODES nodes, $EDGES generated edges + reverse, deduplicated, $FEATURES features."
  echo "Ours: median of $RUNS runs x $BATCHES batches; PyG: median of $PYG_RUNS runs x $PYG_BATCHES batches"
  echo "(backend $PYG_BACKEND). Load average at start $LOAD_START, end $(load_avg)."
  echo
  printf '%-34s %14s %12s %14s\n' "" "sampled edges/s" "batches/s" "edges/batch"
  printf '%-34s %14s %12s %14s\n' "gnnrt sampling ($THREADS workers)" "$(mega "$OURS_EPS")" "$OURS_BPS" "$OURS_EPB"
  printf '%-34s %14s %12s %14s\n' "PyG sampling ($PYG_SW workers)" "$(mega "$PYG_EPS")" "$PYG_BPS" "$PYG_EPB"
  printf '%-34s %14s %12s\n' "gnnrt sampling + gather" "$(mega "$OURS_GEPS")" "$OURS_GBPS"
  printf '%-34s %14s %12s\n' "PyG NeighborLoader ($PYG_LW workers)" "$(mega "$PYG_LEPS")" "$PYG_LBPS"
  echo
  echo "gnnrt sampled edges/s: $(mega "$OURS_EPS") (goal: at least 25M)"
  echo "speedup over PyG, sampling: $(ratio "$OURS_EPS" "$PYG_EPS") in edges/s, $(ratio "$OURS_BPS" "$PYG_BPS") in batches/s (goal: at least 10x)"
  echo "speedup over PyG, with features: $(ratio "$OURS_GBPS" "$PYG_LBPS") in batches/s"
  echo "$PYG_NOTE"
} | tee "$RESULT"
echo "(saved to $RESULT; logs in $RUN)" >&2
