#!/usr/bin/env bash
# bench/gpu_sampling.sh - sampled edges/s of gnnrt's GPU neighbour sampler
# (DeviceNeighborSampler) on the 1M-node graph, beside the CPU sampler on one
# thread, the same batches. Needs a CUDA GPU: without one it stops with a
# message and exit 1. GLT reports 32M sampled edges/s on one A100; the goal
# is at least twice that.
#
#   bench/gpu_sampling.sh                              # 1M nodes, 20M edges
#   NODES=100000 EDGES=2000000 bench/gpu_sampling.sh   # a quick trial
#
# Environment (defaults in brackets):
#   BENCH_DIR [/tmp/gnnc-bench]  data, built programs, results
#   NODES [1000000] EDGES [20000000] FEATURES [128] CLASSES [16]  the graph,
#                    generated as bench/gcn_full_graph.sh does (shared cache)
#   FANOUTS [15,10,5] the seeds' hop first (PyG's order)
#   BATCH [1024] BATCHES [100] RUNS [5]
#   GATHER [0]       1: also gather each batch's input rows on the device
#   ZERO_COPY [0]    1: the CSR in mapped pinned host memory, read zero-copy
#   NVCC [/usr/local/cuda/bin/nvcc]
#   GNN_DATA [build/bin/gnn-data]  GNNRT_LIBRARY [build/lib/libgnnrt.a]
#   GNNRT_CUDA_LIBRARY [build/lib/libgnnrt_kernels_cuda.a]
#   BUILD_ONLY [0]   1: build the harness (no GPU needed) and stop
#   PREBUILT []      a folder with gpu_sample_bench built elsewhere
#                    (bench/gpu_bundle.sh): nothing is compiled
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_DIR="${BENCH_DIR:-/tmp/gnnc-bench}"
NODES="${NODES:-1000000}"
EDGES="${EDGES:-20000000}"
FEATURES="${FEATURES:-128}"
CLASSES="${CLASSES:-16}"
FANOUTS="${FANOUTS:-15,10,5}"
BATCH="${BATCH:-1024}"
BATCHES="${BATCHES:-100}"
RUNS="${RUNS:-5}"
GATHER="${GATHER:-0}"
ZERO_COPY="${ZERO_COPY:-0}"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
GNN_DATA="${GNN_DATA:-$ROOT/build/bin/gnn-data}"
GNNRT_LIBRARY="${GNNRT_LIBRARY:-$ROOT/build/lib/libgnnrt.a}"
GNNRT_CUDA_LIBRARY="${GNNRT_CUDA_LIBRARY:-$ROOT/build/lib/libgnnrt_kernels_cuda.a}"
PREBUILT="${PREBUILT:-}"
BUILD_ONLY="${BUILD_ONLY:-0}"

NAME=gpu_sampling
source "$ROOT/bench/common.sh"

[[ -x "$GNN_DATA" ]] || die "no $GNN_DATA (build first: make)"
if [[ -n "$PREBUILT" ]]; then
  [[ -x "$PREBUILT/gpu_sample_bench" ]] || die "PREBUILT=$PREBUILT has no gpu_sample_bench"
else
  [[ -x "$NVCC" ]] || die "no $NVCC (install the CUDA toolkit or set NVCC)"
  [[ -f "$GNNRT_LIBRARY" ]] || die "no $GNNRT_LIBRARY (build first: make)"
  [[ -f "$GNNRT_CUDA_LIBRARY" ]] || die "no $GNNRT_CUDA_LIBRARY (build with CUDA first: make)"
fi
if [[ "$BUILD_ONLY" == 0 ]] && ! { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }; then
  die "no CUDA GPU on this machine (nvidia-smi lists none): GPU sampling needs one; the emulated tests (CudaEmulatedTests --gtest_filter='DeviceSampler*') check its draws without; BUILD_ONLY=1 builds the harness"
fi

mkdir -p "$BENCH_DIR"/{data,bin,run}
TAG="sbm-n${NODES}-e${EDGES}-f${FEATURES}-c${CLASSES}-s1"
SUFFIX=""
if [[ "$ZERO_COPY" == 1 ]]; then SUFFIX="-zero-copy"; fi
RESULT="$BENCH_DIR/gpu-sampling-$TAG$SUFFIX.txt"

#--- 2. The harness, linked against the CUDA kernels and libgnnrt.a ------------
SRC="$ROOT/bench/sampling/gpu_sample_bench.cu"
BENCH="$BENCH_DIR/bin/gpu_sample_bench"
if [[ -n "$PREBUILT" ]]; then
  BENCH="$PREBUILT/gpu_sample_bench"
elif [[ ! -x "$BENCH" || "$SRC" -nt "$BENCH" || "$GNNRT_LIBRARY" -nt "$BENCH" ||
      "$GNNRT_CUDA_LIBRARY" -nt "$BENCH" ]]; then
  log "building $BENCH"
  "$NVCC" -O3 -std=c++17 --expt-relaxed-constexpr -Xcompiler -fopenmp \
    -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
    -I"$ROOT/runtime/include" "$SRC" "$GNNRT_CUDA_LIBRARY" "$GNNRT_LIBRARY" \
    -lcublasLt -lcublas -lcudart $(gnnrt_link_flags) -o "$BENCH"
fi

if [[ "$BUILD_ONLY" != 0 ]]; then
  log "built $BENCH"
  exit 0
fi

#--- 3. The graph (generated once, cached; the same as gcn_full_graph.sh's) ---
DATA="$(bench_graph)"

#--- 4. Run -------------------------------------------------------------------
log "fanouts $FANOUTS, batch $BATCH, $RUNS runs of $BATCHES batches"
ARGS=("$DATA" --fanouts "$FANOUTS" --batch "$BATCH" --batches "$BATCHES" --runs "$RUNS")
if [[ "$GATHER" == 1 ]]; then ARGS+=(--gather); fi
if [[ "$ZERO_COPY" == 1 ]]; then ARGS+=(--zero-copy); fi
"$BENCH" "${ARGS[@]}" | tee "$RESULT"
log "written $RESULT"
