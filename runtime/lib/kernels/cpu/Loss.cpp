//===- Loss.cpp - Cross-entropy on the CPU --------------------------------===//
//
// Per-chunk partial sums of the loss, added in chunk order, keep it
// independent of the thread count.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Loss.h"

#include "Common.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
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

/// log(sum exp(row)), with the max subtracted for stability.
template <typename T> T logSumExp(const T *row, int64_t n) {
  const T rowMax = *std::max_element(row, row + n);
  T sum = 0;
  for (int64_t c = 0; c < n; ++c)
    sum += std::exp(row[c] - rowMax);
  return rowMax + std::log(sum);
}

} // namespace

template <typename T>
T crossEntropy(int64_t rows, int64_t classes, const T *logits,
               const int64_t *labels, const uint8_t *mask) {
  const int64_t chunks = (rows + kLossChunk - 1) / kLossChunk;
  std::vector<T> chunkLoss(size_t(chunks), T(0));
  std::vector<int64_t> chunkRows(size_t(chunks), 0);
  const bool threaded = worthThreads(rows * classes);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t c = 0; c < chunks; ++c) {
    T loss = 0;
    int64_t count = 0;
    for (int64_t i = c * kLossChunk; i < std::min(rows, (c + 1) * kLossChunk);
         ++i) {
      if (!isLossRow(i, labels, mask))
        continue;
      const T *row = logits + i * classes;
      loss += logSumExp(row, classes) - row[labels[i]];
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
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t i = 0; i < rows; ++i) {
    T *d = dlogits + i * classes;
    if (count == 0 || !isLossRow(i, labels, mask)) {
      fillRow(d, T(0), classes);
      continue;
    }
    const T *row = logits + i * classes;
    const T lse = logSumExp(row, classes);
    for (int64_t c = 0; c < classes; ++c)
      d[c] = rowScale * std::exp(row[c] - lse);
    d[labels[i]] -= rowScale;
  }
}

//===--- Instantiations ---------------------------------------------------===//

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Loss.def"
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels
