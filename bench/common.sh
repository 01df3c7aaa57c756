# bench/common.sh - sourced by the benchmark scripts: messages, the load
# average, and the generated graph they share (made once by gnn-data and
# cached under $BENCH_DIR/data, so every script measures the same graph).
#
# Expects NAME (the script's name for messages), BENCH_DIR, GNN_DATA, NODES,
# EDGES, FEATURES and CLASSES to be set.

die() { echo "$NAME: $*" >&2; exit 1; }

# gcn_program SCRIPT DATA EPOCHS [AGGREGATION]: the 2-layer GCN (hidden 128,
# Adam, evaluated only at the end) the memory benchmarks train on the npy
# graph in DATA, with `aggregation = AGGREGATION` when given.
gcn_program() {
  cat <<GNN
// Written by $1.
import nn
dataset graph = npy("$2")
model GCN(hidden: int = 128) {
  c1 = GCNConv(graph.features, hidden)
  c2 = GCNConv(hidden, graph.classes)
  forward(g, x) { return c2(g, relu(c1(g, x))) }
}
train GCN on graph {
  optimizer   = adam(lr = 0.01)
  epochs      = $3
  evaluate    = [valid, test] every 1000000 epochs${4:+
  aggregation = $4}
}
GNN
}
# gat_program SCRIPT DATA EPOCHS [AGGREGATION]: GAT (4 heads of 64, ELU,
# one averaged output head, Adam) on the npy graph in DATA, as gcn_program.
gat_program() {
  cat <<GNN
// Written by $1.
import nn
dataset graph = npy("$2")
model GAT(hidden: int = 64, heads: int = 4) {
  c1 = GATConv(graph.features, hidden, heads)
  c2 = GATConvMean(hidden * heads, graph.classes, 1)
  forward(g, x) { return c2(g, elu(c1(g, x))) }
}
train GAT on graph {
  optimizer   = adam(lr = 0.005)
  epochs      = $3
  evaluate    = [valid, test] every 1000000 epochs${4:+
  aggregation = $4}
}
GNN
}
log() { echo "== $*" >&2; }

# What a program that links libgnnrt.a itself (the CUDA probes and harnesses)
# needs after it: the libraries gnnc links every trainer with
# (GNNRT_LINK_LIBRARIES in tools/gnnc/CMakeLists.txt).
gnnrt_link_flags() {
  echo -lopenblas -lmetis -lptscotchparmetisv3 -lptscotch -lptscotcherr \
    "$(mpicc --showme:link 2>/dev/null || echo -lmpi)" -lz -lgomp -lpthread
}
load_avg() { cut -d' ' -f1-3 /proc/loadavg; }

# The directory of the SBM graph with NODES/EDGES/FEATURES/CLASSES (seed 1),
# generated on first use.
bench_graph() {
  local tag="sbm-n${NODES}-e${EDGES}-f${FEATURES}-c${CLASSES}-s1"
  local data="$BENCH_DIR/data/$tag"
  if [[ ! -f "$data/.bench-complete" ]]; then
    rm -rf "$data"
    log "generating $tag"
    "$GNN_DATA" generate --kind sbm --nodes "$NODES" --edges "$EDGES" \
      --features "$FEATURES" --classes "$CLASSES" --seed 1 --format npy --out "$data" >&2
    touch "$data/.bench-complete"
  fi
  echo "$data"
}

# The directory of the ogbn-mag-shaped graph of NODES nodes (seed 1),
# generated on first use (bench/rgcn_mag.sh, bench/rgcn_named_relations.sh).
mag_graph() {
  local data="$BENCH_DIR/data/mag-n$NODES-s1"
  if [[ ! -f "$data/.bench-complete" ]]; then
    rm -rf "$data"
    log "generating $data"
    "$GNN_DATA" generate --kind mag --nodes "$NODES" --seed 1 --out "$data" >&2
    touch "$data/.bench-complete"
  fi
  echo "$data"
}

# ensure_venv DIR IMPORTS PACKAGE... : a virtual environment in DIR whose
# python can `import IMPORTS` (comma-separated), made with PACKAGE... from
# PyPI when it cannot (installing python3-venv with apt-get if needed).
ensure_venv() {
  local venv="$1" imports="$2"; shift 2
  if "$venv/bin/python" -c "import $imports" 2>/dev/null; then return 0; fi
  log "creating $venv with $* from PyPI"
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    command -v apt-get >/dev/null || die "python3 has no venv/ensurepip (install python3-venv)"
    apt-get install -y python3-venv >&2 || { apt-get update >&2 && apt-get install -y python3-venv >&2; }
  fi
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "$@" >&2
  "$venv/bin/python" -c "import $imports" || die "$venv cannot import $imports"
}

# The DGL peer's environment: DGL 2.1.0 from PyPI with the newest torch and
# torchdata it imports with; torch 2.2 needs numpy 1.x, and DGL's graphbolt
# imports pandas, pydantic and yaml.
DGL_PACKAGES=(torch==2.2.1 torchdata==0.7.1 dgl==2.1.0 "numpy<2" pandas pydantic pyyaml)

# median_epoch JSONL [STEPS]: the median epoch_seconds of a --metrics file,
# the first epoch (warm-up) left out, divided by STEPS (default 1: per epoch;
# the steps of an epoch: per step), to 4 decimals.
median_epoch() { "${PY:-python3}" - "$1" "${2:-1}" <<'PYEOF'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
print(f"{statistics.median(r['epoch_seconds'] for r in rows[1:]) / int(sys.argv[2]):.4f}")
PYEOF
}

# ratio A B: A / B as "N.NNx", or "-" where either is not a number.
ratio() { "${PY:-python3}" -c "import sys
try: print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}x')
except ValueError: print('-')" "$1" "$2"; }

# median V... : the median of the numbers given.
median() { (( $# )) || { echo "-"; return; }; printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {
  if (NR == 0) { print "-"; exit }
  if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# build_floor NAME [LINK FLAGS...] : bench/floor/NAME.cpp compiled into
# $BENCH_DIR/bin/NAME (STREAM, the SGEMM peak), rebuilt when the source changes.
build_floor() {
  local name="$1"; shift
  local src="$ROOT/bench/floor/$name.cpp" exe="$BENCH_DIR/bin/$name"
  if [[ ! -x "$exe" || "$src" -nt "$exe" ]]; then
    c++ -O3 -fopenmp "$src" -o "$exe" "$@"
  fi
}
