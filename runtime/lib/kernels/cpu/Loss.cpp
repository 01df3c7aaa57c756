//===- Loss.cpp - Cross-entropy on the CPU --------------------------------===//
//
// Per-chunk partial sums of the loss, added in chunk order, keep it
// independent of the thread count.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Loss.h"
#include "gnnrt/kernels/LossArithmetic.h"

#include "Common.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace gnnrt::kernels {

using namespace detail;

namespace {

/// Rows per partial sum of the loss: fixed, so the summation order does not
/// depend on the thread count.
constexpr int64_t kLossChunk = 1024;

//===--- Loss helpers -----------------------------------------------------===//

bool isLossRow(int64_t i, const int64_t *labels, const uint8_t *mask) {
  return labels[i] >= 0 && (!mask || mask[i] != 0);
}

/// The maximum of row[0..n) and sum_c exp(row[c] - max) in the
/// kSoftmaxSumLanes lanes (LossArithmetic.h), writing each exponential to
/// exps[c] with `Store`.
template <bool Store, typename T>
[[gnu::always_inline]] inline std::pair<T, T>
softmaxDenominator(const T *row, int64_t n, T *exps) {
  T rowMax = row[0];
#pragma omp simd reduction(max : rowMax)
  for (int64_t c = 0; c < n; ++c)
    rowMax = row[c] > rowMax ? row[c] : rowMax;
  T lanes[kSoftmaxSumLanes] = {};
  const int64_t whole = n - n % kSoftmaxSumLanes;
  for (int64_t c0 = 0; c0 < whole; c0 += kSoftmaxSumLanes) {
#pragma omp simd
    for (int64_t l = 0; l < kSoftmaxSumLanes; ++l) {
      const T e = expPolynomial(row[c0 + l] - rowMax);
      if constexpr (Store)
        exps[c0 + l] = e;
      lanes[l] += e;
    }
  }
  for (int64_t c = whole; c < n; ++c) {
    const T e = expPolynomial(row[c] - rowMax);
    if constexpr (Store)
      exps[c] = e;
    lanes[c - whole] += e;
  }
  T sum = 0;
  for (T lane : lanes)
    sum += lane;
  return {rowMax, sum};
}

/// The loss of one row, and (dRow not null) its gradient times `scale`.
template <typename T>
[[gnu::always_inline]] inline T
crossEntropyRowPass(const T *row, int64_t n, int64_t label, T scale, T *dRow) {
  if (!dRow) {
    const auto [rowMax, sum] = softmaxDenominator<false>(row, n, dRow);
    return rowMax + std::log(sum) - row[label];
  }
  const auto [rowMax, sum] = softmaxDenominator<true>(row, n, dRow);
  const T factor = scale / sum;
#pragma omp simd
  for (int64_t c = 0; c < n; ++c)
    dRow[c] *= factor;
  dRow[label] -= scale;
  return rowMax + std::log(sum) - row[label];
}

// The row pass twice: as x86-64 and with AVX-512, the helpers above
// inlined into each (always_inline), so that each vectorizes them for its
// instruction set. This file is compiled without FMA contraction
// (runtime/CMakeLists.txt) and the row's sum has fixed lanes: both give the
// same bits.
template <typename T>
T crossEntropyRowBaseline(const T *row, int64_t n, int64_t label, T scale,
                          T *dRow) {
  return crossEntropyRowPass(row, n, label, scale, dRow);
}
template <typename T>
__attribute__((target("avx512f,avx512bw,avx512vl"))) T
crossEntropyRowAvx512(const T *row, int64_t n, int64_t label, T scale,
                      T *dRow) {
  return crossEntropyRowPass(row, n, label, scale, dRow);
}

/// The loss of one row and (dRow not null) its gradient times `scale`, in
/// 512-bit vectors where the CPU has them.
template <typename T>
T crossEntropyRow(bool avx512, const T *row, int64_t n, int64_t label, T scale,
                  T *dRow) {
  return avx512 ? crossEntropyRowAvx512(row, n, label, scale, dRow)
                : crossEntropyRowBaseline(row, n, label, scale, dRow);
}

} // namespace

template <typename T>
T crossEntropy(int64_t rows, int64_t classes, const T *logits,
               const int64_t *labels, const uint8_t *mask) {
  const int64_t chunks = (rows + kLossChunk - 1) / kLossChunk;
  std::vector<T> chunkLoss(size_t(chunks), T(0));
  std::vector<int64_t> chunkRows(size_t(chunks), 0);
  const bool threaded = worthThreads(rows * classes), avx512 = useAvx512();
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t c = 0; c < chunks; ++c) {
    T loss = 0;
    int64_t count = 0;
    for (int64_t i = c * kLossChunk; i < std::min(rows, (c + 1) * kLossChunk);
         ++i) {
      if (!isLossRow(i, labels, mask))
        continue;
      loss += crossEntropyRow(avx512, logits + i * classes, classes, labels[i],
                              T(0), static_cast<T *>(nullptr));
      ++count;
    }
    chunkLoss[c] = loss;
    chunkRows[c] = count;
  }
  T total = 0;
  int64_t count = 0;
  for (int64_t c = 0; c < chunks; ++c) {
    total += chunkLoss[c];
    count += chunkRows[c];
  }
  return count > 0 ? total / T(count) : T(0);
}

template <typename T>
void crossEntropyGrad(int64_t rows, int64_t classes, const T *logits,
                      const int64_t *labels, const uint8_t *mask, T dloss,
                      T *dlogits) {
  int64_t count = 0;
  const bool threaded = worthThreads(rows * classes);
#pragma omp parallel for schedule(static) reduction(+ : count) if (threaded)
  for (int64_t i = 0; i < rows; ++i)
    count += isLossRow(i, labels, mask) ? 1 : 0;
  const T rowScale = count > 0 ? dloss / T(count) : T(0);
  const bool avx512 = useAvx512();
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t i = 0; i < rows; ++i) {
    T *d = dlogits + i * classes;
    if (count == 0 || !isLossRow(i, labels, mask)) {
      fillRow(d, T(0), classes);
      continue;
    }
    crossEntropyRow(avx512, logits + i * classes, classes, labels[i], rowScale,
                    d);
  }
}

template <typename T>
T normPenalty(int64_t rows, int64_t width, const T *x, int64_t power) {
  const int64_t chunks = (rows + kLossChunk - 1) / kLossChunk;
  std::vector<double> chunkSum(size_t(chunks), 0.0);
  const bool threaded = worthThreads(rows * width);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t c = 0; c < chunks; ++c) {
    chunkSum[size_t(c)] =
        normPenaltySum(x, c * kLossChunk * width,
                       std::min(rows, (c + 1) * kLossChunk) * width, power);
  }
  double total = 0;
  for (double partial : chunkSum)
    total += partial;
  return T(total);
}

template <typename T>
void normPenaltyGrad(int64_t rows, int64_t width, const T *x, int64_t power,
                     T scale, T *dx) {
  const int64_t n = rows * width;
  const T factor = scale * T(power);
#pragma omp parallel for simd schedule(static) if (worthThreads(n))
  for (int64_t k = 0; k < n; ++k)
    dx[k] = normPenaltyDerivative(x[k], factor, power);
}

//===--- Instantiations ---------------------------------------------------===//

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Loss.def"
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels
