#!/usr/bin/env bash
# bench/gpu_bundle.sh - the GPU checks, built here, for a GPU machine that has
# a driver, the CUDA 13 libraries and a python with torch and torch_geometric
# but none of our build dependencies (LLVM/MLIR, ANTLR, Open MPI, OpenBLAS,
# METIS). Builds, with this checkout's build/:
#  - test/Cuda's programs as native CUDA trainers (gnnc --target=cuda, no
#    emulation) beside their CPU twins, and its --gradcheck programs;
#  - RuntimeTests, whose CUDA kernel tests run natively where a device is;
#  - bench/cuda_gcn.sh's trainers and probe, bench/gpu_sampling.sh's harness;
#  - gnn-data;
# and packs them, with every shared library they load except glibc's, the C++
# runtime's and the CUDA toolkit's (cudart, cuBLAS, cuBLASLt, NCCL: the GPU
# machine's own), into one archive. bench/cuda/device_checks.sh runs it there.
#
#   bench/gpu_bundle.sh .gpu/bundle.tar.xz
#
# Environment: GNNC, GNN_DATA [build/bin/...], NVCC [/usr/local/cuda/bin/nvcc],
# JOBS [2] programs compiled at a time.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT_ARCHIVE="${1:?usage: bench/gpu_bundle.sh OUT.tar.xz}"
GNNC="${GNNC:-$ROOT/build/bin/gnnc}"
GNN_DATA="${GNN_DATA:-$ROOT/build/bin/gnn-data}"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
JOBS="${JOBS:-2}"
LIB="$ROOT/build/lib"

NAME=gpu_bundle
source "$ROOT/bench/common.sh"

for f in "$GNNC" "$GNN_DATA" "$NVCC" "$ROOT/build/test/Unit/RuntimeTests"; do
  [[ -x "$f" ]] || die "no $f (build first: make build, with the CUDA toolkit)"
done
[[ -f "$LIB/libgnnrt_kernels_cuda.a" ]] || die "no $LIB/libgnnrt_kernels_cuda.a (configure with CUDA)"

STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
B="$STAGE/gpu-bundle"
mkdir -p "$B"/{bin,lib,cuda,gradcheck,bench,src}

#--- 1. The programs ----------------------------------------------------------
# name|source: each built for the CPU (NAME.cpu) and natively for CUDA
# (NAME.cuda); device_checks.sh says how each is run and compared.
PROGRAMS=(
  "gcn|$ROOT/examples/gcn_cora.gnn"
  "gat|$ROOT/examples/gat_cora.gnn"
  "sage|$ROOT/examples/sage_cora.gnn"
  "sage-sampled|$ROOT/examples/sage_cora_sampled.gnn"
  "gae|$ROOT/examples/gae_cora.gnn"
  "rgcn|$ROOT/examples/rgcn_aifb.gnn"
  "link-sampled|$B/src/link-sampled.gnn"
)
sed 's/batches *= full_graph/batches    = neighbor(fanout = [10, 5], batch = 256)/' \
  "$ROOT/test/Train/Inputs/link-sage.gnn" >"$B/src/link-sampled.gnn"

compile() { # out source [gnnc flags...]
  local out="$1" src="$2"; shift 2
  "$GNNC" "$@" "$src" -o "$out" 2> >(grep -v "Warning: The 'compute_" >&2) ||
    die "gnnc $* $src failed"
}
wait_some() { # keeps at most JOBS compiles running
  while (( $(jobs -rp | wc -l) >= JOBS )); do wait -n || die "a compile failed"; done
}
log "compiling ${#PROGRAMS[@]} programs for the CPU and the GPU"
for p in "${PROGRAMS[@]}"; do
  name="${p%%|*}" src="${p#*|}"
  wait_some; compile "$B/cuda/$name.cpu" "$src" &
  wait_some; compile "$B/cuda/$name.cuda" "$src" --target=cuda &
done
log "compiling test/Cuda/gradcheck.test's programs for the GPU"
for src in $(grep -o 'Train/gradcheck-[a-z-]*\.gnn' "$ROOT/test/Cuda/gradcheck.test" | sort -u); do
  name="$(basename "$src" .gnn)"
  wait_some; compile "$B/gradcheck/${name#gradcheck-}" "$ROOT/test/$src" --target=cuda &
done
wait_all() { while (( $(jobs -rp | wc -l) > 0 )); do wait -n || die "a compile failed"; done; }
wait_all

#--- 2. bench/cuda_gcn.sh's and bench/gpu_sampling.sh's binaries --------------
# The trainers are compiled against a small graph of the benchmark's widths:
# only the feature and class counts are compiled in.
log "building the benchmarks' trainers and harnesses"
BENCH_DIR="$STAGE/bench-dir" NODES=2000 EDGES=20000 DRY_RUN=1 PYG=0 \
  "$ROOT/bench/cuda_gcn.sh" >/dev/null
RUN_DIR="$(ls -d "$STAGE"/bench-dir/run/cuda-*)"
cp "$RUN_DIR/gcn" "$RUN_DIR/sage" "$STAGE/bench-dir/bin/aggregate_bandwidth" "$B/bench/"
BENCH_DIR="$STAGE/bench-dir" BUILD_ONLY=1 "$ROOT/bench/gpu_sampling.sh"
cp "$STAGE/bench-dir/bin/gpu_sample_bench" "$B/bench/"
cp "$GNN_DATA" "$ROOT/build/test/Unit/RuntimeTests" "$B/bin/"

#--- 3. The shared libraries they load ------------------------------------------
# Not glibc's nor the C++ runtime's (the GPU machine's are newer), nor the CUDA
# toolkit's (too big to carry; the driver's machine has them).
SKIP='^(linux-vdso|ld-linux|libc\.|libm\.|libpthread|librt|libdl|libstdc\+\+|libgcc_s|libcudart|libcublas|libcublasLt|libnccl)'
find "$B" -type f -perm -u+x -print0 | xargs -0 ldd 2>/dev/null |
  awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
  while read -r soname path; do
    [[ "$soname" =~ $SKIP ]] || cp -L "$path" "$B/lib/$soname"
  done
log "$(ls "$B/lib" | wc -l) libraries: $(ls "$B/lib" | tr '\n' ' ')"

#--- 4. The archive -------------------------------------------------------------
git -C "$ROOT" rev-parse HEAD >"$B/REVISION"
mkdir -p "$(dirname "$OUT_ARCHIVE")"
log "packing $(du -sh "$B" | cut -f1) into $OUT_ARCHIVE"
tar -C "$STAGE" -cf - gpu-bundle | xz -T"$JOBS" -9 >"$OUT_ARCHIVE.tmp"
mv "$OUT_ARCHIVE.tmp" "$OUT_ARCHIVE"
log "wrote $OUT_ARCHIVE ($(du -h "$OUT_ARCHIVE" | cut -f1))"
