//===- BFloat16Rows.h - bf16 rows for the device gathers --------*- C++ -*-===//
//
// Internal to lib/kernels/cuda: mixed precision (`precision = bf16`) on a
// device, the counterpart of kernels/GatherStorage.h on the CPU. The sum
// and mean gathers of float rows (aggregate's forward and its input
// adjoint) read their rows as bfloat16 from a rounded copy in device
// memory and widen each value before any arithmetic, so a device gather is
// the float gather over the rounded rows: the CPU's bf16 gather, bit for
// bit. GEMMs round their operands the same way (Gemm.cu). The rounding is
// support/BFloat16.h's (to nearest, ties to even; NaN stays a quiet NaN),
// written with the device's bit casts.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_KERNELS_CUDA_BFLOAT16ROWS_H
#define GNNRT_LIB_KERNELS_CUDA_BFLOAT16ROWS_H

#include "Common.h"
#include "gnnrt/kernels/GatherStorage.h"
#include "gnnrt/support/BFloat16.h"

#include <cstdint>
#include <type_traits>

namespace gnnrt::kernels::cuda::detail {

/// The float a stored value stands for: itself, or a bf16 widened (exact).
__device__ inline float widen(float x) { return x; }
__device__ inline double widen(double x) { return x; }
__device__ inline float widen(BFloat16 b) {
  return __uint_as_float(static_cast<unsigned int>(b.bits) << 16);
}

/// toBFloat16 (support/BFloat16.h) on a device.
__device__ inline BFloat16 roundToBFloat16(float x) {
  unsigned int u = __float_as_uint(x);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return BFloat16{static_cast<uint16_t>((u >> 16) | 0x0040u)};
  u += 0x7fffu + ((u >> 16) & 1u);
  return BFloat16{static_cast<uint16_t>(u >> 16)};
}

/// Whether a float gather of this run reads bf16 rows (the process's gather
/// storage, set once by the trainer).
template <typename T> bool gathersBFloat16() {
  return std::is_same_v<T, float> &&
         gatherStorage() == GatherStorage::BFloat16;
}

/// The first n floats at `rows` (device memory) rounded to bf16 into
/// `slot`'s device buffer, which stays valid until the next call with the
/// same slot on this host thread (kernels on one stream run in order). A
/// call needing two copies at once uses two slots.
const BFloat16 *deviceBFloat16Rows(const float *rows, int64_t n, int slot = 0);

} // namespace gnnrt::kernels::cuda::detail

#endif // GNNRT_LIB_KERNELS_CUDA_BFLOAT16ROWS_H
