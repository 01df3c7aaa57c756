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
    return apply((bits[lane / 2] >> (16 * (lane % 2))) & 0xFFFFu, v);
  }
  /// A zero (either sign) becomes +0 whatever its bits, so that the paths
  /// that skip the cipher for zeros give the same bits as those that do not.
  T apply(uint32_t r, T v) const {
    // `&`, not `&&`: both tests always run, so the loops stay vectorized.
    return (v != T(0)) & (r >= threshold) ? v * keptScale : T(0);
  }
  uint32_t threshold;
  T keptScale;
};

} // namespace

/// Philox blocks a vector pass ciphers at once (one per 32-bit lane of a
/// 512-bit vector), and the elements they decide.
constexpr int64_t kVectorBlocks = 16;
constexpr int64_t kVectorElements = kVectorBlocks * 8;

// The AVX-512 passes: the Philox rounds of 16 consecutive blocks run side
// by side, lane l of each word array holding block l's word, which the
// compiler turns into a few 512-bit multiplies and xors per round. The same
// blocks, words and lanes as the scalar loops, so the same mask. Measured
// on 38.4M floats, 2 threads: 144 -> 23 ms.
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl")

/// Blocks firstBlock .. firstBlock + 15 of (seed, stream): word w of block
/// firstBlock + l in words[w][l].
inline void philoxBlocks(uint64_t seed, uint64_t stream, uint64_t firstBlock,
                         uint32_t (&words)[4][kVectorBlocks]) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  uint32_t(&c0)[kVectorBlocks] = words[0];
  uint32_t(&c1)[kVectorBlocks] = words[1];
  uint32_t(&c2)[kVectorBlocks] = words[2];
  uint32_t(&c3)[kVectorBlocks] = words[3];
  for (int64_t l = 0; l < kVectorBlocks; ++l) {
    const uint64_t counter = firstBlock + uint64_t(l);
    c0[l] = uint32_t(counter);
    c1[l] = uint32_t(counter >> 32);
    c2[l] = uint32_t(stream);
    c3[l] = uint32_t(stream >> 32);
  }
  uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += kWeyl0;
      k1 += kWeyl1;
    }
#pragma omp simd
    for (int64_t l = 0; l < kVectorBlocks; ++l) {
      const uint64_t p0 = uint64_t(kMul0) * c0[l];
      const uint64_t p1 = uint64_t(kMul1) * c2[l];
      const uint32_t n0 = uint32_t(p1 >> 32) ^ c1[l] ^ k0;
      const uint32_t n2 = uint32_t(p0 >> 32) ^ c3[l] ^ k1;
      c0[l] = n0;
      c1[l] = uint32_t(p1);
      c2[l] = n2;
      c3[l] = uint32_t(p0);
    }
  }
}

/// y[e] for the first `count` (<= kVectorElements) elements of a pass:
/// element e is lane e % 8 of block e / 8, the low (even lane) or high half
/// of the block's word (e % 8) / 2. The halves are laid out in element order
/// first, so that the masking loop runs in vectors too (it stayed scalar
/// while it indexed lanes or read `lanes` through the reference: 38.4M
/// floats, 2 threads, 0.10 s; in vectors 0.023 s).
template <typename T>
void applyBlocks(const DropoutLanes<T> &lanes,
                 const uint32_t (&words)[4][kVectorBlocks], int64_t count,
                 const T *x, T *y) {
  alignas(64) uint16_t bits[kVectorElements];
  for (int64_t l = 0; l < kVectorBlocks; ++l)
    for (int w = 0; w < 4; ++w) {
      bits[8 * l + 2 * w] = uint16_t(words[w][l]);
      bits[8 * l + 2 * w + 1] = uint16_t(words[w][l] >> 16);
    }
  // A copy y cannot alias, so its fields stay in registers.
  const DropoutLanes<T> local = lanes;
#pragma omp simd
  for (int64_t e = 0; e < count; ++e)
    y[e] = local.apply(uint32_t(bits[e]), x[e]);
}

/// dropout's elements [0, groups * kVectorElements).
template <typename T>
void dropoutVectorGroups(uint64_t seed, uint64_t stream,
                         const DropoutLanes<T> lanes, int64_t groups,
                         const T *x, T *y) {
  const bool threaded = worthThreads(groups * kVectorElements);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t g = 0; g < groups; ++g) {
    alignas(64) uint32_t words[4][kVectorBlocks];
    philoxBlocks(seed, stream, uint64_t(g * kVectorBlocks), words);
    applyBlocks(lanes, words, kVectorElements, x + g * kVectorElements,
                y + g * kVectorElements);
  }
}

/// dropoutRows for a width that is a multiple of 8: each row's elements
/// start a block, so a row is whole blocks, ciphered 16 at a time.
template <typename T>
void dropoutVectorRows(uint64_t seed, uint64_t stream,
                       const DropoutLanes<T> lanes, int64_t rows,
                       int64_t width, const int64_t *rowIds, const T *x,
                       T *y) {
  const bool threaded = worthThreads(rows * width);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t r = 0; r < rows; ++r) {
    const uint64_t base = uint64_t(rowIds[r]) * uint64_t(width);
    for (int64_t j0 = 0; j0 < width; j0 += kVectorElements) {
      alignas(64) uint32_t words[4][kVectorBlocks];
      philoxBlocks(seed, stream, (base + uint64_t(j0)) / 8, words);
      applyBlocks(lanes, words, std::min(kVectorElements, width - j0),
                  x + r * width + j0, y + r * width + j0);
    }
  }
}
#pragma GCC pop_options

/// Rows at least this wide (and a multiple of 8) take the vector pass: a
/// narrower row would use few of the 16 blocks it ciphers.
constexpr int64_t kVectorRowWidth = 64;

template <typename T>
void dropout(uint64_t seed, uint64_t stream, double p, int64_t n, const T *x,
             T *y) {
  // Element i is lane i % 8 of block i / 8: the mask is a function of
  // (seed, stream, i) only, whoever computes it.
  const DropoutLanes<T> lanes(p);
  int64_t firstBlock = 0;
  if (useAvx512()) {
    const int64_t groups = n / kVectorElements;
    dropoutVectorGroups(seed, stream, lanes, groups, x, y);
    firstBlock = groups * kVectorBlocks;
  }
  const int64_t blocks = (n + 7) / 8;
  const bool threaded = worthThreads(n - firstBlock * 8);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t b = firstBlock; b < blocks; ++b) {
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
  if (width % 8 == 0 && width >= kVectorRowWidth && useAvx512()) {
    dropoutVectorRows(seed, stream, lanes, rows, width, rowIds, x, y);
    return;
  }
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
