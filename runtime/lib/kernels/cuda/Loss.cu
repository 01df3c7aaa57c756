//===- Loss.cu - Cross-entropy and accuracy on CUDA devices ---------------===//
//
// The CUDA half of gnnrt/kernels/families/Loss.def. The loss sums rows in the
// CPU's fixed chunks of 1024: a block computes its chunk's rows in
// parallel into shared memory, then adds them in row order, and one thread
// adds the chunks in order, so the sum is the CPU's, whatever the launch.
// A row's softmax denominator is a warp's (its max, and its exponentials
// summed in the CPU row pass's 16 lanes, by the CPU's polynomial exp, each
// operation rounded on its own), so the gradient equals the CPU's bit for
// bit and the loss to the device's log; the gradient is a thread per
// element.
// The gradient and the accuracy count rows with warp votes (__ballot_sync
// and a population count) and one integer atomic per warp, which is exact
// in any order.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "Common.h"
#include "gnnrt/kernels/LossArithmetic.h"

#include <cstdint>

namespace gnnrt::kernels::cuda {

using namespace detail;

namespace {

/// Rows per partial sum: the CPU's kLossChunk (lib/kernels/cpu/Loss.cpp),
/// which is part of the result.
constexpr int64_t kLossChunk = 1024;

__device__ inline bool isLossRow(int64_t i, const int64_t *labels,
                                 const uint8_t *mask) {
  return labels[i] >= 0 && (!mask || mask[i] != 0);
}

/// A loss row's softmax denominator, a warp per row: stats[2i] = max_c
/// row[c], stats[2i + 1] = sum_c exp(row[c] - max), by the CPU's exp and in
/// its lanes (LossArithmetic.h), so that the gradient is the CPU's, bit for
/// bit, and the loss is to the device's log.
template <typename T>
__global__ void rowSoftmaxStatsKernel(int64_t rows, int64_t classes,
                                      const T *logits, const int64_t *labels,
                                      const uint8_t *mask, T *stats) {
  const int64_t i = globalWarp();
  if (i >= rows || !isLossRow(i, labels, mask))
    return; // the whole warp
  const T *row = logits + i * classes;
  T rowMax = row[0];
  for (int64_t c = lane(); c < classes; c += kWarp)
    rowMax = rowMax < row[c] ? row[c] : rowMax;
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    const T other = __shfl_xor_sync(kFullMask, rowMax, offset);
    rowMax = rowMax < other ? other : rowMax; // exact in any order
  }
  T laneSum = T(0);
  if (lane() < kSoftmaxSumLanes)
    for (int64_t c = lane(); c < classes; c += kSoftmaxSumLanes)
      laneSum = add(laneSum, expPolynomial(sub(row[c], rowMax)));
  T sum = T(0);
  for (int l = 0; l < int(kSoftmaxSumLanes); ++l)
    sum = add(sum, __shfl_sync(kFullMask, laneSum, l));
  if (lane() == 0) {
    stats[2 * i] = rowMax;
    stats[2 * i + 1] = sum;
  }
}

/// The chunks' losses, max + log(sum) - row[label] per row from `stats`.
template <typename T>
__global__ void lossChunkKernel(int64_t rows, int64_t classes, const T *logits,
                                const int64_t *labels, const uint8_t *mask,
                                const T *stats, T *chunkLoss,
                                unsigned long long *chunkRows) {
  __shared__ T value[kLossChunk];
  __shared__ bool counted[kLossChunk];
  const int64_t first = int64_t(blockIdx.x) * kLossChunk;
  for (int64_t t = threadIdx.x; t < kLossChunk; t += blockDim.x) {
    const int64_t i = first + t;
    counted[t] = i < rows && isLossRow(i, labels, mask);
    if (counted[t])
      value[t] = sub(add(stats[2 * i], logOf(stats[2 * i + 1])),
                     logits[i * classes + labels[i]]);
  }
  __syncthreads();
  if (threadIdx.x != 0)
    return;
  T loss = T(0);
  unsigned long long count = 0;
  for (int64_t t = 0; t < kLossChunk; ++t)
    if (counted[t]) {
      loss = add(loss, value[t]);
      ++count;
    }
  chunkLoss[blockIdx.x] = loss;
  chunkRows[blockIdx.x] = count;
}

template <typename T>
__global__ void lossTotalKernel(int64_t chunks, const T *chunkLoss,
                                const unsigned long long *chunkRows, T *loss) {
  T total = T(0);
  unsigned long long count = 0;
  for (int64_t c = 0; c < chunks; ++c) {
    total = add(total, chunkLoss[c]);
    count += chunkRows[c];
  }
  *loss = count > 0 ? div(total, T(count)) : T(0);
}

/// *count += rows i < rows with pred(i): a vote per warp, an atomic per warp.
template <typename Pred>
__device__ void countRows(int64_t rows, unsigned long long *count, Pred pred) {
  const int64_t i = globalThread();
  // Every lane votes, those past the end with false.
  const unsigned votes = __ballot_sync(kFullMask, i < rows && pred(i));
  if (lane() == 0 && votes != 0)
    atomicAdd(count, (unsigned long long)__popc(votes));
}

__global__ void countLossRowsKernel(int64_t rows, const int64_t *labels,
                                    const uint8_t *mask,
                                    unsigned long long *count) {
  countRows(rows, count, [&](int64_t i) { return isLossRow(i, labels, mask); });
}

/// dlogits, a thread per element: exp(row[c] - max) * (rowScale / sum),
/// minus rowScale at the label, from `stats`: the CPU's operations.
template <typename T>
__global__ void crossEntropyGradKernel(int64_t rows, int64_t classes,
                                       const T *logits, const int64_t *labels,
                                       const uint8_t *mask, T dloss,
                                       const unsigned long long *count,
                                       const T *stats, T *dlogits) {
  const int64_t e = globalThread();
  if (e >= rows * classes)
    return;
  const int64_t i = e / classes, c = e % classes;
  if (*count == 0 || !isLossRow(i, labels, mask)) {
    dlogits[e] = T(0);
    return;
  }
  const T rowScale = div(dloss, T(*count));
  const T factor = div(rowScale, stats[2 * i + 1]);
  const T v = mul(expPolynomial(sub(logits[e], stats[2 * i])), factor);
  dlogits[e] = c == labels[i] ? sub(v, rowScale) : v;
}

template <typename T>
__global__ void accuracyKernel(int64_t numNodes, int64_t classes,
                               const T *logits, const int64_t *labels,
                               const int64_t *nodes,
                               unsigned long long *counts) {
  auto labeled = [&](int64_t k) { return labels[nodes[k]] >= 0; };
  auto correct = [&](int64_t k) {
    const int64_t v = nodes[k];
    if (labels[v] < 0)
      return false;
    const T *row = logits + v * classes;
    int64_t best = 0;
    for (int64_t c = 1; c < classes; ++c)
      if (row[c] > row[best])
        best = c;
    return best == labels[v];
  };
  countRows(numNodes, counts, correct);
  countRows(numNodes, counts + 1, labeled);
}

} // namespace

template <typename T>
T crossEntropy(int64_t rows, int64_t classes, const T *logits,
               const int64_t *labels, const uint8_t *mask) {
  const int64_t chunks = (rows + kLossChunk - 1) / kLossChunk;
  // Scratch: the chunks' row counts, then the loss, the chunks' losses and
  // the rows' softmax statistics (8-byte counts first keep every array
  // aligned).
  char *space = static_cast<char *>(
      scratch(size_t(chunks) * sizeof(unsigned long long) +
              size_t(chunks + 1 + 2 * rows) * sizeof(T)));
  auto *chunkRows = reinterpret_cast<unsigned long long *>(space);
  T *loss = reinterpret_cast<T *>(chunkRows + chunks);
  T *chunkLoss = loss + 1;
  T *stats = chunkLoss + chunks;
  if (chunks > 0) {
    GNNRT_LAUNCH(warpBlocksFor(rows), kBlock, 0, stream(),
                 rowSoftmaxStatsKernel<T>)
    (rows, classes, logits, labels, mask, stats);
    checkLaunch("crossEntropy launch");
    GNNRT_LAUNCH(unsigned(chunks), kBlock, 0, stream(), lossChunkKernel<T>)
    (rows, classes, logits, labels, mask, stats, chunkLoss, chunkRows);
    checkLaunch("crossEntropy launch");
  }
  GNNRT_LAUNCH(1, 1, 0, stream(), lossTotalKernel<T>)
  (chunks, chunkLoss, chunkRows, loss);
  checkLaunch("crossEntropy launch");
  T result;
  check(cudaMemcpyAsync(&result, loss, sizeof(T), cudaMemcpyDeviceToHost,
                        stream()),
        "crossEntropy result");
  check(cudaStreamSynchronize(stream()), "crossEntropy");
  return result;
}

template <typename T>
void crossEntropyGrad(int64_t rows, int64_t classes, const T *logits,
                      const int64_t *labels, const uint8_t *mask, T dloss,
                      T *dlogits) {
  if (rows == 0)
    return;
  // Scratch: the count of loss rows, then the rows' softmax statistics.
  auto *count = static_cast<unsigned long long *>(scratch(
      sizeof(unsigned long long) + size_t(2 * rows) * sizeof(T)));
  T *stats = reinterpret_cast<T *>(count + 1);
  check(cudaMemsetAsync(count, 0, sizeof *count, stream()), "crossEntropyGrad");
  GNNRT_LAUNCH(blocksFor(rows), kBlock, 0, stream(), countLossRowsKernel)
  (rows, labels, mask, count);
  checkLaunch("crossEntropyGrad launch");
  GNNRT_LAUNCH(warpBlocksFor(rows), kBlock, 0, stream(),
               rowSoftmaxStatsKernel<T>)
  (rows, classes, logits, labels, mask, stats);
  checkLaunch("crossEntropyGrad launch");
  GNNRT_LAUNCH(blocksFor(rows * classes), kBlock, 0, stream(),
               crossEntropyGradKernel<T>)
  (rows, classes, logits, labels, mask, dloss, count, stats, dlogits);
  checkLaunch("crossEntropyGrad launch");
}

template <typename T>
AccuracyCounts accuracyCounts(const T *logits, int64_t classes,
                              const int64_t *labels, const int64_t *nodes,
                              int64_t numNodes) {
  auto *counts = static_cast<unsigned long long *>(
      scratch(2 * sizeof(unsigned long long)));
  check(cudaMemsetAsync(counts, 0, 2 * sizeof *counts, stream()),
        "accuracyCounts");
  if (numNodes > 0) {
    GNNRT_LAUNCH(blocksFor(numNodes), kBlock, 0, stream(), accuracyKernel<T>)
    (numNodes, classes, logits, labels, nodes, counts);
    checkLaunch("accuracyCounts launch");
  }
  unsigned long long host[2];
  check(cudaMemcpyAsync(host, counts, sizeof host, cudaMemcpyDeviceToHost,
                        stream()),
        "accuracyCounts result");
  check(cudaStreamSynchronize(stream()), "accuracyCounts");
  return {int64_t(host[0]), int64_t(host[1])};
}

namespace {

/// A thread per chunk of the CPU's kLossChunk rows, its entries in row
/// order in float64, as the CPU sums them.
template <typename T>
__global__ void normPenaltyChunkKernel(int64_t rows, int64_t width, const T *x,
                                       int64_t power, double *chunkSum) {
  const int64_t c = globalThread();
  if (c * kLossChunk >= rows)
    return;
  const int64_t last = (c + 1) * kLossChunk;
  chunkSum[c] = normPenaltySum(x, c * kLossChunk * width,
                               (last < rows ? last : rows) * width, power);
}

/// The chunks added in order, by one thread (each a sum of one entry).
__global__ void normPenaltyTotalKernel(int64_t chunks, double *chunkSum) {
  double total = 0;
  for (int64_t c = 0; c < chunks; ++c)
    total = rounded::add(total, chunkSum[c]);
  chunkSum[chunks] = total;
}

template <typename T>
__global__ void normPenaltyGradKernel(int64_t n, const T *x, int64_t power,
                                      T factor, T *dx) {
  const int64_t k = globalThread();
  if (k < n)
    dx[k] = normPenaltyDerivative(x[k], factor, power);
}

} // namespace

template <typename T>
T normPenalty(int64_t rows, int64_t width, const T *x, int64_t power) {
  const int64_t chunks = (rows + kLossChunk - 1) / kLossChunk;
  auto *chunkSum =
      static_cast<double *>(scratch(size_t(chunks + 1) * sizeof(double)));
  if (chunks > 0) {
    GNNRT_LAUNCH(blocksFor(chunks), kBlock, 0, stream(),
                 normPenaltyChunkKernel<T>)
    (rows, width, x, power, chunkSum);
    checkLaunch("normPenalty launch");
  }
  GNNRT_LAUNCH(1, 1, 0, stream(), normPenaltyTotalKernel)(chunks, chunkSum);
  checkLaunch("normPenalty launch");
  double total;
  check(cudaMemcpyAsync(&total, chunkSum + chunks, sizeof total,
                        cudaMemcpyDeviceToHost, stream()),
        "normPenalty result");
  check(cudaStreamSynchronize(stream()), "normPenalty");
  return T(total);
}

template <typename T>
void normPenaltyGrad(int64_t rows, int64_t width, const T *x, int64_t power,
                     T scale, T *dx) {
  const int64_t n = rows * width;
  if (n == 0)
    return;
  GNNRT_LAUNCH(blocksFor(n), kBlock, 0, stream(), normPenaltyGradKernel<T>)
  (n, x, power, scale * T(power), dx);
  checkLaunch("normPenaltyGrad launch");
}

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Loss.def"
#define GNNRT_KERNEL_CUDA
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels::cuda
