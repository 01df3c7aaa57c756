#!/usr/bin/env bash
# bench/cuda_gcn.sh - the CUDA target on one GPU: full-graph GCN and GraphSAGE
# (2 layers, hidden 256) built with gnnc --target=cuda, against PyG (CUDA build
# of torch from PyPI) on the same GPU in the same run, on a generated graph of
# ogbn-products' size; and gnnrt's CUDA aggregation kernels' achieved bandwidth
# against a device-to-device copy measured in the same run
# (bench/cuda/aggregate_bandwidth.cu). Goals (issue 13): epoch time at least
# 2x PyG's; aggregation at least 70% of the copy bandwidth.
#
#   bench/cuda_gcn.sh                       # 2.4M nodes, 62M edges, 100 features
#   DRY_RUN=1 NODES=2000 EDGES=20000 bench/cuda_gcn.sh   # no GPU: the rest only
#
# Without a CUDA device it stops with an error before any measurement; DRY_RUN=1
# instead does everything that needs no GPU (the graph, both programs compiled
# by gnnc --target=cuda with nvcc, the bandwidth probe built) and prints the
# commands it would time. With BF16=1 each round also trains both models with
# --precision bf16, beside PyG under torch.autocast("cuda", torch.bfloat16)
# (message passing: torch's sparse CSR product has no bf16 kernel).
#
# On a GPU machine without our toolchain (bench/gpu_bundle.sh), PREBUILT names
# a folder holding gcn, sage and aggregate_bandwidth built elsewhere for these
# FEATURES and CLASSES, and PYG_PYTHON a python that imports torch (CUDA) and
# torch_geometric: nothing is compiled and no venv is made.
#
# Environment (defaults in brackets):
#   BENCH_DIR [/tmp/gnnc-bench]  data, the PyG venv, built programs, results
#   NODES [2400000] EDGES [62000000] FEATURES [100] CLASSES [47] HIDDEN [256]
#   EPOCHS [10]   epochs per trainer; the median leaves out the first
#   ROUNDS [3]    rounds of runs, gnnc and PyG taking turns
#   PYG [1]       0 skips PyG (its venv: torch and torch_geometric from PyPI)
#   DEVICE [0]    the GPU (--device for gnnc, cuda:N for PyG)
#   DRY_RUN [0]   1: no GPU needed, nothing timed
#   BF16 [1]      1: also --precision bf16 and PyG under autocast bf16
#   PYG_BF16 [1]  0: no PyG autocast runs (their per-edge messages are slow)
#   PREBUILT []   a folder with the trainers and the probe, built elsewhere
#   PYG_PYTHON [] a python with torch and torch_geometric (else a venv)
#   GNNC, GNN_DATA, NVCC  the tools [build/bin/gnnc, build/bin/gnn-data,
#                         /usr/local/cuda/bin/nvcc]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-2400000}"
EDGES="${EDGES:-62000000}"
FEATURES="${FEATURES:-100}"
CLASSES="${CLASSES:-47}"
HIDDEN="${HIDDEN:-256}"
EPOCHS="${EPOCHS:-10}"
ROUNDS="${ROUNDS:-3}"
PYG="${PYG:-1}"
DEVICE="${DEVICE:-0}"
DRY_RUN="${DRY_RUN:-0}"
BF16="${BF16:-1}"
PYG_BF16="${PYG_BF16:-1}"
PREBUILT="${PREBUILT:-}"
PYG_PYTHON="${PYG_PYTHON:-}"
GNNC="${GNNC:-$ROOT/build/bin/gnnc}"
GNN_DATA="${GNN_DATA:-$ROOT/build/bin/gnn-data}"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
LIB="$ROOT/build/lib"
PY="${PYTHON:-python3}"

NAME=cuda_gcn
source "$ROOT/bench/common.sh"

[[ -x "$GNN_DATA" ]] || die "no $GNN_DATA (build first: make)"
if [[ -z "$PREBUILT" ]]; then
  [[ -x "$GNNC" ]] || die "no $GNNC (build first: make)"
  [[ -x "$NVCC" ]] || die "no $NVCC (the CUDA toolkit builds the trainers)"
  [[ -f "$LIB/libgnnrt_kernels_cuda.a" ]] ||
    die "no $LIB/libgnnrt_kernels_cuda.a (configure with the CUDA toolkit and build: make)"
else
  for f in gcn sage aggregate_bandwidth; do
    [[ -x "$PREBUILT/$f" ]] || die "PREBUILT=$PREBUILT has no $f"
  done
fi
(( EPOCHS >= 2 )) || die "EPOCHS must be at least 2 (the first is warm-up)"
(( ROUNDS >= 1 )) || die "ROUNDS must be at least 1"
# The one thing a dry run skips: without a GPU nothing below can be measured.
if [[ "$DRY_RUN" == 0 ]] && ! nvidia-smi -L >/dev/null 2>&1; then
  die "no CUDA device (nvidia-smi -L fails): this benchmark times a GPU;" \
    "DRY_RUN=1 runs its other parts"
fi

mkdir -p "$BENCH_DIR"/{data,bin,run}
TAG="sbm-n${NODES}-e${EDGES}-f${FEATURES}-c${CLASSES}-s1"
RUN="$BENCH_DIR/run/cuda-$TAG-h${HIDDEN}"
mkdir -p "$RUN"
RESULT="$BENCH_DIR/cuda_gcn-$TAG-h${HIDDEN}.txt"

#--- 1. The graph (generated once, cached) -----------------------------------
DATA="$(bench_graph)"
E_LOADED="$("$GNN_DATA" info --reverse --dedupe "$DATA" | awk '$1 == "edges" {print $2}')"
[[ -n "$E_LOADED" ]] || die "gnn-data info printed no edge count"

#--- 2. The programs, compiled for the GPU -----------------------------------
write_program() { # model-name conv-line...
  local name="$1" c1="$2" c2="$3"
  cat >"$RUN/$name.gnn" <<EOF
// Written by bench/cuda_gcn.sh: 2 layers, hidden $HIDDEN, full graph, no
// dropout, Adam; evaluation only after the last epoch (never timed).
import nn

dataset graph = npy("$DATA")

model M(hidden: int = $HIDDEN) {
  c1 = $c1
  c2 = $c2
  forward(g, x) {
    return c2(g, relu(c1(g, x)))
  }
}

train M on graph {
  batches   = full_graph
  loss      = cross_entropy
  optimizer = adam(lr = 0.01)
  epochs    = $EPOCHS
  evaluate  = [valid, test] every 1000000 epochs
}
EOF
  log "compiling $RUN/$name.gnn (gnnc --target=cuda)"
  "$GNNC" --target=cuda "$RUN/$name.gnn" -o "$RUN/$name"
}

#--- 3. The bandwidth probe --------------------------------------------------
PROBE="$BENCH_DIR/bin/aggregate_bandwidth"
PROBE_SRC="$ROOT/bench/cuda/aggregate_bandwidth.cu"
if [[ -n "$PREBUILT" ]]; then
  # Built elsewhere (bench/gpu_bundle.sh) for these widths: used as they are.
  cp "$PREBUILT/gcn" "$PREBUILT/sage" "$RUN/"
  PROBE="$PREBUILT/aggregate_bandwidth"
else
  write_program gcn "GCNConv(graph.features, hidden)" "GCNConv(hidden, graph.classes)"
  write_program sage "SAGEConv(graph.features, hidden, mean)" "SAGEConv(hidden, graph.classes, mean)"
  if [[ ! -x "$PROBE" || "$PROBE_SRC" -nt "$PROBE" || "$LIB/libgnnrt_kernels_cuda.a" -nt "$PROBE" ]]; then
    log "building $PROBE"
    "$NVCC" -O3 -std=c++17 -gencode arch=compute_80,code=sm_80 \
      -gencode arch=compute_90,code=sm_90 -I"$ROOT/runtime/include" "$PROBE_SRC" \
      "$LIB/libgnnrt_kernels_cuda.a" "$LIB/libgnnrt.a" -lcublasLt -lcublas \
      $(gnnrt_link_flags) -o "$PROBE" 2> >(grep -v "Warning: The 'compute_" >&2)
  fi
fi

# The runs of a round: the model, its precision, and how PyG runs it (fp32
# with a sparse adjacency; under autocast with messages, as torch's sparse
# CSR product has no bf16 kernel).
VARIANTS=(gcn sage)
[[ "$BF16" == 0 ]] || VARIANTS+=(gcn-bf16 sage-bf16)
pyg_args() { # variant
  case "$1" in
  *-bf16) echo "--model ${1%-bf16} --autocast bf16 --adj edge_index" ;;
  *) echo "--model $1 --adj sparse" ;;
  esac
}
gnnc_args() { # variant
  case "$1" in
  *-bf16) echo "--precision bf16" ;;
  esac
}
PYG_PY="${PYG_PYTHON:-$BENCH_DIR/venv-cuda/bin/python}"

if [[ "$DRY_RUN" != 0 ]]; then
  log "dry run: built $RUN/gcn, $RUN/sage and $PROBE on $DATA ($E_LOADED edges); would time:"
  for v in "${VARIANTS[@]}"; do
    echo "  $RUN/${v%-bf16} --data $DATA --device $DEVICE --epochs $EPOCHS $(gnnc_args "$v") --metrics ... --stats"
    [[ "$PYG" == 0 ]] || echo "  $PYG_PY $ROOT/bench/pyg_gcn.py --device cuda:$DEVICE --data $DATA --hidden $HIDDEN --epochs $EPOCHS $(pyg_args "$v")"
  done
  echo "  $PROBE $DATA $HIDDEN $FEATURES"
  exit 0
fi

#--- 4. Rounds: gnnc and PyG in turn -----------------------------------------
# torch from PyPI is its CUDA build on Linux x86_64.
if [[ "$PYG" != 0 && -z "$PYG_PYTHON" ]]; then
  ensure_venv "$BENCH_DIR/venv-cuda" "torch, torch_geometric" torch torch_geometric
fi
[[ "$PYG" == 0 ]] || "$PYG_PY" -c "import torch; assert torch.cuda.is_available()" ||
  die "$PYG_PY's torch sees no CUDA device (a CPU-only wheel?)"
declare -A RUNS_S=() NOTE=()
if [[ "$PYG_BF16" == 0 ]]; then
  NOTE[pyg-gcn-bf16]="not run (PYG_BF16=0)" NOTE[pyg-sage-bf16]="not run (PYG_BF16=0)"
fi
for ((r = 1; r <= ROUNDS; ++r)); do
  for v in "${VARIANTS[@]}"; do
    out="$RUN/gnnc-$v-r$r"
    log "round $r: gnnc $v on device $DEVICE ($EPOCHS epochs)"
    # shellcheck disable=SC2046 # the precision flag splits into words
    "$RUN/${v%-bf16}" --data "$DATA" --device "$DEVICE" --epochs "$EPOCHS" $(gnnc_args "$v") \
      --metrics "$out.jsonl" --stats >"$out.out" 2>"$out.err" ||
      { tail -3 "$out.err" >&2; die "the $v trainer failed"; }
    RUNS_S[gnnc-$v]+=" $(median_epoch "$out.jsonl")"
    if [[ "$PYG" != 0 && -z "${NOTE[pyg-$v]:-}" ]]; then
      out="$RUN/pyg-$v-r$r" rc=0
      log "round $r: PyG $v on cuda:$DEVICE ($EPOCHS epochs)"
      # shellcheck disable=SC2046
      "$PYG_PY" -W ignore "$ROOT/bench/pyg_gcn.py" $(pyg_args "$v") \
        --device "cuda:$DEVICE" --data "$DATA" --hidden "$HIDDEN" --epochs "$EPOCHS" \
        >"$out.out" 2>"$out.err" || rc=$?
      line="$(grep '^pyg: ' "$out.out" | tail -1 || true)"
      if (( rc == 0 )); then
        RUNS_S[pyg-$v]+=" $(sed -n 's/.* median_epoch_s=\([^ ]*\).*/\1/p' <<<"$line")"
      else
        tail -3 "$out.err" >&2
        NOTE[pyg-$v]="failed (exit $rc, see $out.err)"
      fi
    fi
  done
done
log "measuring the aggregation kernels' bandwidth (widths $HIDDEN and $FEATURES)"
BANDWIDTH="$("$PROBE" "$DATA" "$HIDDEN" "$FEATURES")" || die "$PROBE failed"

#--- 5. The table -------------------------------------------------------------
# shellcheck disable=SC2086 # the lists are space-separated numbers
med() { median ${RUNS_S[$1]:-}; }
{
  echo "2 layers, hidden $HIDDEN, full graph on $(nvidia-smi -L | sed -n "$((DEVICE + 1))p"):"
  echo "$NODES nodes, $EDGES generated edges -> $E_LOADED after reverse + dedupe, $FEATURES"
  echo "features, $CLASSES classes. $ROUNDS rounds, gnnc and PyG in turn (fp32: adj=sparse;"
  echo "bf16: gnnc --precision bf16, PyG autocast with messages); each figure is the"
  echo "median over rounds of a run's median of epochs 2..$EPOCHS."
  echo
  grep '^stats:' "$RUN/gnnc-gcn-r1.out" | sed 's/^/gnnc gcn /' || true
  echo
  printf '%-24s %9s %9s %9s  %s\n' "" "gnnc s" "PyG s" "PyG/gnnc" "goal: at least 2x"
  for v in "${VARIANTS[@]}"; do
    printf '%-24s %9s %9s %9s  %s\n' "$v" "$(med "gnnc-$v")" "$(med "pyg-$v")" \
      "$(ratio "$(med "pyg-$v")" "$(med "gnnc-$v")")" "${NOTE[pyg-$v]:-}"
  done
  echo
  echo "aggregation kernels against the device copy (goal: ratio at least 0.70):"
  sed 's/^/  /' <<<"$BANDWIDTH"
} | tee "$RESULT"
echo "(saved to $RESULT; logs in $RUN)" >&2
