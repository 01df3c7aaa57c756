//===- Loss.cu - Cross-entropy and accuracy on CUDA devices ---------------===//
//
// The CUDA half of gnnrt/kernels/families/Loss.def. The loss sums rows in the
// CPU's fixed chunks of 1024: a block computes its chunk's rows in
// parallel into shared memory, then adds them in row order, and one thread
// adds the chunks in order, so the sum is the CPU's, whatever the launch.
// A row's own sum runs in a thread, or, for a wide row (1vsAll: a class
// per entity), in a block per row by a fixed tree.
// The gradient and the accuracy count rows with warp votes (__ballot_sync
// and a population count) and one integer atomic per warp, which is exact
// in any order.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "Common.h"

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

/// log(sum exp(row)), with the (first) largest value subtracted.
template <typename T> __device__ T logSumExp(const T *row, int64_t n) {
  T rowMax = row[0];
  for (int64_t c = 1; c < n; ++c)
    rowMax = rowMax < row[c] ? row[c] : rowMax;
  T sum = T(0);
  for (int64_t c = 0; c < n; ++c)
    sum = add(sum, expOf(sub(row[c], rowMax)));
  return add(rowMax, logOf(sum));
}

/// Rows at least this wide (a 1vsAll step's logits: a class per entity)
/// take a block per row: a thread per row would walk its 41k classes alone,
/// the loads of its warp 41k floats apart.
constexpr int64_t kWideRow = 512;

/// op over the block's values of v, in every thread: a fixed tree, so the
/// same order on every launch.
template <typename T, typename Op>
__device__ T blockReduce(T v, T *shared, Op op) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int half = kBlock / 2; half > 0; half /= 2) {
    if (int(threadIdx.x) < half)
      shared[threadIdx.x] = op(shared[threadIdx.x], shared[threadIdx.x + half]);
    __syncthreads();
  }
  const T result = shared[0];
  __syncthreads();
  return result;
}

/// A wide row's softmax denominator, a block per row (of kBlock threads):
/// stats[2i] = max_c row[c], stats[2i + 1] = sum_c exp(row[c] - max), for
/// the rows the loss counts.
template <typename T>
__global__ void rowSoftmaxStatsKernel(int64_t classes, const T *logits,
                                      const int64_t *labels,
                                      const uint8_t *mask, T *stats) {
  __shared__ T shared[kBlock];
  const int64_t i = blockIdx.x;
  if (!isLossRow(i, labels, mask))
    return; // the whole block: no barrier is left waiting
  const T *row = logits + i * classes;
  T localMax = row[0];
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x)
    localMax = localMax < row[c] ? row[c] : localMax;
  const T rowMax =
      blockReduce(localMax, shared, [](T a, T b) { return a < b ? b : a; });
  T localSum = T(0);
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x)
    localSum = add(localSum, expOf(sub(row[c], rowMax)));
  const T sum =
      blockReduce(localSum, shared, [](T a, T b) { return add(a, b); });
  if (threadIdx.x == 0) {
    stats[2 * i] = rowMax;
    stats[2 * i + 1] = sum;
  }
}

/// The chunks' losses; a wide row's log-sum-exp comes from `stats`
/// (rowSoftmaxStatsKernel), a narrow one's from its thread.
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
    if (counted[t]) {
      const T *row = logits + i * classes;
      const T lse = stats ? add(stats[2 * i], logOf(stats[2 * i + 1]))
                          : logSumExp(row, classes);
      value[t] = sub(lse, row[labels[i]]);
    }
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

template <typename T>
__global__ void
crossEntropyGradKernel(int64_t rows, int64_t classes, const T *logits,
                       const int64_t *labels, const uint8_t *mask, T dloss,
                       const unsigned long long *count, T *dlogits) {
  const int64_t i = globalThread();
  if (i >= rows)
    return;
  T *d = dlogits + i * classes;
  if (*count == 0 || !isLossRow(i, labels, mask)) {
    for (int64_t c = 0; c < classes; ++c)
      d[c] = T(0);
    return;
  }
  const T rowScale = div(dloss, T(*count));
  const T *row = logits + i * classes;
  const T lse = logSumExp(row, classes);
  for (int64_t c = 0; c < classes; ++c)
    d[c] = mul(rowScale, expOf(sub(row[c], lse)));
  d[labels[i]] = sub(d[labels[i]], rowScale);
}

/// crossEntropyGradKernel for wide rows, a block per row, from `stats`:
/// d[c] = exp(row[c] - max) * (rowScale / sum), minus rowScale at the label.
template <typename T>
__global__ void crossEntropyGradWideKernel(int64_t classes, const T *logits,
                                           const int64_t *labels,
                                           const uint8_t *mask, T dloss,
                                           const unsigned long long *count,
                                           const T *stats, T *dlogits) {
  const int64_t i = blockIdx.x;
  T *d = dlogits + i * classes;
  if (*count == 0 || !isLossRow(i, labels, mask)) {
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x)
      d[c] = T(0);
    return;
  }
  const T rowScale = div(dloss, T(*count));
  const T rowMax = stats[2 * i], factor = div(rowScale, stats[2 * i + 1]);
  const T *row = logits + i * classes;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x)
    d[c] = mul(expOf(sub(row[c], rowMax)), factor);
  __syncthreads(); // the label's element is written, by whichever thread
  if (threadIdx.x == 0)
    d[labels[i]] = sub(d[labels[i]], rowScale);
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
  const bool wide = classes >= kWideRow && rows > 0;
  // Scratch: the chunks' row counts, then the loss, the chunks' losses and
  // the wide rows' softmax statistics (8-byte counts first keep every array
  // aligned).
  char *space = static_cast<char *>(
      scratch(size_t(chunks) * sizeof(unsigned long long) +
              size_t(chunks + 1 + (wide ? 2 * rows : 0)) * sizeof(T)));
  auto *chunkRows = reinterpret_cast<unsigned long long *>(space);
  T *loss = reinterpret_cast<T *>(chunkRows + chunks);
  T *chunkLoss = loss + 1;
  T *stats = wide ? chunkLoss + chunks : nullptr;
  if (wide) {
    GNNRT_LAUNCH(unsigned(rows), kBlock, 0, stream(), rowSoftmaxStatsKernel<T>)
    (classes, logits, labels, mask, stats);
    checkLaunch("crossEntropy launch");
  }
  if (chunks > 0) {
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
  const bool wide = classes >= kWideRow;
  // Scratch: the count of loss rows, then the wide rows' statistics.
  auto *count = static_cast<unsigned long long *>(scratch(
      sizeof(unsigned long long) + (wide ? size_t(2 * rows) * sizeof(T) : 0)));
  check(cudaMemsetAsync(count, 0, sizeof *count, stream()), "crossEntropyGrad");
  GNNRT_LAUNCH(blocksFor(rows), kBlock, 0, stream(), countLossRowsKernel)
  (rows, labels, mask, count);
  checkLaunch("crossEntropyGrad launch");
  if (wide) {
    T *stats = reinterpret_cast<T *>(count + 1);
    GNNRT_LAUNCH(unsigned(rows), kBlock, 0, stream(), rowSoftmaxStatsKernel<T>)
    (classes, logits, labels, mask, stats);
    checkLaunch("crossEntropyGrad launch");
    GNNRT_LAUNCH(unsigned(rows), kBlock, 0, stream(),
                 crossEntropyGradWideKernel<T>)
    (classes, logits, labels, mask, dloss, count, stats, dlogits);
    checkLaunch("crossEntropyGrad launch");
    return;
  }
  GNNRT_LAUNCH(blocksFor(rows), kBlock, 0, stream(), crossEntropyGradKernel<T>)
  (rows, classes, logits, labels, mask, dloss, count, dlogits);
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

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Loss.def"
#define GNNRT_KERNEL_CUDA
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels::cuda
