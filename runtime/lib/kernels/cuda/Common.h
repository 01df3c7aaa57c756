//===- Common.h - What the CUDA kernels share -------------------*- C++ -*-===//
//
// Internal to lib/kernels/cuda: the one check every CUDA call's status goes
// through (so a failing device is reported the same way by every kernel),
// launch geometry, the explicitly rounded
// arithmetic that keeps device results equal to the CPU kernels' where the
// family headers promise it, warp reductions, the stream kernels launch on,
// and per-stream scratch memory for the kernels that need a temporary (the
// winners of a max/min adjoint, the partial sums of the loss), which grows
// to the largest request and is then reused, so steady-state steps do not
// allocate.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_KERNELS_CUDA_COMMON_H
#define GNNRT_LIB_KERNELS_CUDA_COMMON_H

#include "gnnrt/kernels/cuda/Launch.h"
#include "gnnrt/kernels/cuda/Memory.h"
#include "gnnrt/kernels/cuda/Stream.h"
#include "gnnrt/support/Error.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <string>

namespace gnnrt::kernels::cuda::detail {

/// Throws DeviceError("CUDA <what>: <the driver's message>") unless
/// `status` is cudaSuccess.
inline void check(cudaError_t status, const char *what) {
  if (status != cudaSuccess)
    throw DeviceError(std::string("CUDA ") + what + ": " +
                      cudaGetErrorString(status));
}

/// `#pragma unroll` for nvcc; nothing for the host compiler of the
/// emulated build, which has its own unrolling and no such pragma.
#ifdef __CUDACC__
#define GNNRT_UNROLL _Pragma("unroll")
#else
#define GNNRT_UNROLL
#endif

constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = 8;
constexpr int kBlock = kWarp * kWarpsPerBlock;
constexpr unsigned kFullMask = 0xffffffffu;

/// Blocks of kBlock threads for one thread per item.
inline unsigned blocksFor(int64_t items) {
  return unsigned((items + kBlock - 1) / kBlock);
}
/// Blocks of kBlock threads for one warp per row.
inline unsigned warpBlocksFor(int64_t rows) {
  return unsigned((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
}

/// The stream of this host thread's kernels, as a runtime handle.
inline cudaStream_t stream() { return currentStream(); }

// IEEE multiply and add, each rounded on its own: what the CPU computes for
// `acc += a * v` without FMA.
__device__ inline float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double mul(double a, double b) { return __dmul_rn(a, b); }
__device__ inline float add(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double add(double a, double b) { return __dadd_rn(a, b); }
__device__ inline float sub(float a, float b) { return __fsub_rn(a, b); }
__device__ inline double sub(double a, double b) { return __dsub_rn(a, b); }
__device__ inline float div(float a, float b) { return __fdiv_rn(a, b); }
__device__ inline double div(double a, double b) { return __ddiv_rn(a, b); }
__device__ inline float sqrtOf(float x) { return __fsqrt_rn(x); }
__device__ inline double sqrtOf(double x) { return __dsqrt_rn(x); }
__device__ inline float expOf(float x) { return expf(x); }
__device__ inline double expOf(double x) { return exp(x); }
__device__ inline float logOf(float x) { return logf(x); }
__device__ inline double logOf(double x) { return log(x); }

/// The global index of this thread, and of its warp and lane.
__device__ inline int64_t globalThread() {
  return int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline int64_t globalWarp() { return globalThread() / kWarp; }
__device__ inline int lane() { return int(threadIdx.x % kWarp); }

/// The column (o, i) this thread owns: its first element, or -1.
__device__ inline int64_t columnBase(int64_t outer, int64_t n, int64_t inner) {
  const int64_t t = globalThread();
  if (t >= outer * inner)
    return -1;
  return (t / inner) * n * inner + t % inner;
}

/// The column-per-thread launch of the axis operations and batch
/// normalization.
template <typename... Params, typename... Args>
void launchColumns(const char *what, int64_t columns, void (*kernel)(Params...),
                   Args... args) {
  if (columns == 0)
    return;
  GNNRT_LAUNCH(blocksFor(columns), kBlock, 0, stream(), kernel)(args...);
  checkLaunch(what);
}

/// The sum of v over the 32 lanes of a warp, in every lane.
template <typename T> __device__ T warpSum(T v) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    v = add(v, __shfl_xor_sync(kFullMask, v, offset));
  return v;
}

/// At least `bytes` of device memory for a kernel's temporaries, reused by
/// the next call on the same host thread with the same slot (kernels on one
/// stream run in order, so a later kernel cannot overwrite what an earlier
/// one reads). Slot 0 serves the kernels' own temporaries; the bf16 copies
/// of gathered rows and GEMM operands take the others (BFloat16Rows.h), so
/// that a copy and a temporary of the same call never share memory.
constexpr int kScratchSlots = 3;
void *scratch(size_t bytes, int slot = 0);

} // namespace gnnrt::kernels::cuda::detail

#endif // GNNRT_LIB_KERNELS_CUDA_COMMON_H
