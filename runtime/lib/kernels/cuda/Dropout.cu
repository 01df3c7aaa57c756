//===- Dropout.cu - Dropout on CUDA devices -------------------------------===//
//
// The CUDA half of gnnrt/kernels/families/Dropout.def. The mask is Dropout.h's
// contract, computed with the same Philox (gnnrt/support/Random.h): element
// i keeps its value iff 16-bit lane i % 8 of randomBits(seed, stream, i / 8)
// is at least ceil(p * 2^16). dropout gives each block of 8 elements to a
// thread, as the CPU gives it to one loop iteration (a block of zeros stays
// +0 without the cipher, as there); dropoutRows draws per element.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "Common.h"
#include "gnnrt/support/Random.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace gnnrt::kernels::cuda {

using namespace detail;

namespace {

/// The keep threshold and the scale of kept values (the CPU's
/// DropoutLanes in lib/kernels/cpu/Dropout.cpp).
template <typename T> struct DropoutLanes {
  uint32_t threshold;
  T keptScale;

  static DropoutLanes of(double p) {
    return {uint32_t(std::min(65536.0, std::ceil(p * 65536.0))),
            p < 1 ? T(1.0 / (1.0 - p)) : T(0)};
  }
  __device__ T apply(const std::array<uint32_t, 4> &bits, int lane, T v) const {
    const uint32_t r = (bits[lane / 2] >> (16 * (lane % 2))) & 0xFFFFu;
    // A zero of either sign becomes +0, as on the CPU.
    return v != T(0) && r >= threshold ? mul(v, keptScale) : T(0);
  }
};

template <typename T>
__global__ void dropoutKernel(uint64_t seed, uint64_t stream,
                              const DropoutLanes<T> lanes, int64_t n,
                              const T *x, T *y) {
  const int64_t b = globalThread();
  const int64_t first = b * 8;
  if (first >= n)
    return;
  const int64_t last = first + 8 < n ? first + 8 : n;
  bool allZero = true;
  for (int64_t i = first; i < last; ++i)
    allZero &= x[i] == T(0);
  if (allZero) {
    for (int64_t i = first; i < last; ++i)
      y[i] = T(0);
    return;
  }
  const std::array<uint32_t, 4> bits = randomBits(seed, stream, uint64_t(b));
  for (int64_t i = first; i < last; ++i)
    y[i] = lanes.apply(bits, int(i - first), x[i]);
}

template <typename T>
__global__ void dropoutRowsKernel(uint64_t seed, uint64_t stream,
                                  const DropoutLanes<T> lanes, int64_t rows,
                                  int64_t width, const int64_t *rowIds,
                                  const T *x, T *y) {
  const int64_t e = globalThread();
  if (e >= rows * width)
    return;
  const T v = x[e];
  if (v == T(0)) {
    y[e] = T(0);
    return;
  }
  // Element (r, j) decides as element rowIds[r] * width + j of dropout().
  const uint64_t i =
      uint64_t(rowIds[e / width]) * uint64_t(width) + uint64_t(e % width);
  y[e] = lanes.apply(randomBits(seed, stream, i / 8), int(i % 8), v);
}

} // namespace

template <typename T>
void dropout(uint64_t seed, uint64_t stream, double p, int64_t n, const T *x,
             T *y) {
  if (n == 0)
    return;
  GNNRT_LAUNCH(blocksFor((n + 7) / 8), kBlock, 0, detail::stream(),
               dropoutKernel<T>)
  (seed, stream, DropoutLanes<T>::of(p), n, x, y);
  checkLaunch("dropout launch");
}

template <typename T>
void dropoutRows(uint64_t seed, uint64_t stream, double p, int64_t rows,
                 int64_t width, const int64_t *rowIds, const T *x, T *y) {
  if (!rowIds) {
    dropout(seed, stream, p, rows * width, x, y);
    return;
  }
  if (rows * width == 0)
    return;
  GNNRT_LAUNCH(blocksFor(rows * width), kBlock, 0, detail::stream(),
               dropoutRowsKernel<T>)
  (seed, stream, DropoutLanes<T>::of(p), rows, width, rowIds, x, y);
  checkLaunch("dropoutRows launch");
}

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Dropout.def"
#define GNNRT_KERNEL_CUDA
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels::cuda
