//===- Dropout.cpp - Dropout on the CPU -----------------------------------===//
//
// Eight elements per Philox block, 16 bits each; a block of zeros skips
// the cipher, since dropout keeps a zero zero whatever its mask.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Dropout.h"

#include "Common.h"
#include "gnnrt/support/Random.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace gnnrt::kernels {

using namespace detail;

//===--- Dropout and the loss ---------------------------------------------===//

namespace {

/// One Philox block (128 random bits) decides 8 elements with 16 bits each:
/// lane k keeps its element iff its 16 bits are >= p * 2^16 (p resolved to
/// 1/65536, far finer than any dropout rate anyone sets).
template <typename T> struct DropoutLanes {
  explicit DropoutLanes(double p)
      : threshold(uint32_t(std::min(65536.0, std::ceil(p * 65536.0)))),
        keptScale(p < 1 ? T(1.0 / (1.0 - p)) : T(0)) {}
  T apply(const std::array<uint32_t, 4> &bits, int lane, T v) const {
    const uint32_t r = (bits[lane / 2] >> (16 * (lane % 2))) & 0xFFFFu;
    return r >= threshold ? v * keptScale : T(0);
  }
  uint32_t threshold;
  T keptScale;
};

} // namespace

template <typename T>
void dropout(uint64_t seed, uint64_t stream, double p, int64_t n, const T *x,
             T *y) {
  // Element i is lane i % 8 of block i / 8: the mask is a function of
  // (seed, stream, i) only, whoever computes it.
  const DropoutLanes<T> lanes(p);
  const int64_t blocks = (n + 7) / 8;
  const bool threaded = worthThreads(n);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t first = b * 8, last = std::min(n, first + 8);
    // Zeros stay zero whatever the mask: sparse inputs (bag-of-words
    // features) skip most of the cipher.
    bool allZero = true;
    for (int64_t i = first; i < last; ++i)
      allZero &= x[i] == T(0);
    if (allZero) {
      std::fill(y + first, y + last, T(0));
      continue;
    }
    const std::array<uint32_t, 4> bits = randomBits(seed, stream, uint64_t(b));
    for (int64_t i = first; i < last; ++i)
      y[i] = lanes.apply(bits, int(i - first), x[i]);
  }
}

template <typename T>
void dropoutRows(uint64_t seed, uint64_t stream, double p, int64_t rows,
                 int64_t width, const int64_t *rowIds, const T *x, T *y) {
  if (!rowIds) {
    dropout(seed, stream, p, rows * width, x, y);
    return;
  }
  // Element (r, j) decides as element rowIds[r] * width + j of dropout():
  // the mask of a node's row does not depend on where the row lives.
  const DropoutLanes<T> lanes(p);
  const bool threaded = worthThreads(rows * width);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t r = 0; r < rows; ++r) {
    const uint64_t base = uint64_t(rowIds[r]) * uint64_t(width);
    uint64_t block = ~uint64_t(0);
    std::array<uint32_t, 4> bits{};
    for (int64_t j = 0; j < width; ++j) {
      const T v = x[r * width + j];
      if (v == T(0)) {
        y[r * width + j] = T(0);
        continue;
      }
      const uint64_t i = base + uint64_t(j);
      if (i / 8 != block) {
        block = i / 8;
        bits = randomBits(seed, stream, block);
      }
      y[r * width + j] = lanes.apply(bits, int(i % 8), v);
    }
  }
}

//===--- Instantiations ---------------------------------------------------===//

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Dropout.def"
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels
