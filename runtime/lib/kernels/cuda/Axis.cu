//===- Axis.cu - Axis operations on CUDA devices --------------------------===//
//
// The CUDA half of gnnrt/kernels/families/Axis.def. Softmaxes and reductions
// give each column (o, i) of [outer, n, inner] to one thread, which walks the
// axis in the CPU kernel's order; copies and slices move one element per
// thread. The adjoint of broadcasting gives each output element to a thread
// that adds the dy elements broadcast from it in ascending memory order, the
// order in which the CPU adds them.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "Common.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace gnnrt::kernels::cuda {

using namespace detail;

namespace {

constexpr int kMaxRank = 8;


template <typename T>
__device__ T columnMax(const T *x, int64_t n, int64_t stride) {
  T m = x[0];
  for (int64_t t = 1; t < n; ++t)
    m = m < x[t * stride] ? x[t * stride] : m;
  return m;
}

template <typename T>
__global__ void softmaxKernel(int64_t outer, int64_t n, int64_t inner,
                              const T *x, T *y) {
  const int64_t base = columnBase(outer, n, inner);
  if (base < 0)
    return;
  const T m = columnMax(x + base, n, inner);
  T sum = T(0);
  for (int64_t t = 0; t < n; ++t) {
    const int64_t at = base + t * inner;
    y[at] = expOf(sub(x[at], m));
    sum = add(sum, y[at]);
  }
  const T inverse = div(T(1), sum);
  for (int64_t t = 0; t < n; ++t)
    y[base + t * inner] = mul(y[base + t * inner], inverse);
}

template <typename T>
__global__ void softmaxGradKernel(int64_t outer, int64_t n, int64_t inner,
                                  const T *dy, const T *y, T *dx) {
  const int64_t base = columnBase(outer, n, inner);
  if (base < 0)
    return;
  T dot = T(0);
  for (int64_t t = 0; t < n; ++t)
    dot = add(dot, mul(y[base + t * inner], dy[base + t * inner]));
  for (int64_t t = 0; t < n; ++t) {
    const int64_t at = base + t * inner;
    dx[at] = mul(y[at], sub(dy[at], dot));
  }
}

template <typename T>
__global__ void logSoftmaxKernel(int64_t outer, int64_t n, int64_t inner,
                                 const T *x, T *y) {
  const int64_t base = columnBase(outer, n, inner);
  if (base < 0)
    return;
  const T m = columnMax(x + base, n, inner);
  T sum = T(0);
  for (int64_t t = 0; t < n; ++t)
    sum = add(sum, expOf(sub(x[base + t * inner], m)));
  const T logSumExp = add(m, logOf(sum));
  for (int64_t t = 0; t < n; ++t)
    y[base + t * inner] = sub(x[base + t * inner], logSumExp);
}

template <typename T>
__global__ void logSoftmaxGradKernel(int64_t outer, int64_t n, int64_t inner,
                                     const T *dy, const T *y, T *dx) {
  const int64_t base = columnBase(outer, n, inner);
  if (base < 0)
    return;
  T sum = T(0);
  for (int64_t t = 0; t < n; ++t)
    sum = add(sum, dy[base + t * inner]);
  for (int64_t t = 0; t < n; ++t) {
    const int64_t at = base + t * inner;
    dx[at] = sub(dy[at], mul(expOf(y[at]), sum));
  }
}

template <typename T>
__global__ void reduceAxisKernel(Reduce kind, int64_t outer, int64_t n,
                                 int64_t inner, const T *x, T *y) {
  const int64_t t0 = globalThread();
  if (t0 >= outer * inner)
    return;
  if (n == 0) { // an empty axis reduces to 0
    y[t0] = T(0);
    return;
  }
  const int64_t base = (t0 / inner) * n * inner + t0 % inner;
  T acc = x[base];
  for (int64_t t = 1; t < n; ++t) {
    const T v = x[base + t * inner];
    if (kind == Reduce::Max)
      acc = v > acc ? v : acc;
    else if (kind == Reduce::Min)
      acc = v < acc ? v : acc;
    else
      acc = add(acc, v);
  }
  y[t0] = kind == Reduce::Mean ? mul(acc, div(T(1), T(n))) : acc;
}

template <typename T>
__global__ void reduceAxisGradKernel(Reduce kind, int64_t outer, int64_t n,
                                     int64_t inner, const T *dy, const T *x,
                                     const T *y, T *dx) {
  const int64_t t0 = globalThread();
  if (t0 >= outer * inner)
    return;
  const int64_t base = (t0 / inner) * n * inner + t0 % inner;
  const T d = dy[t0];
  if (kind == Reduce::Sum || kind == Reduce::Mean) {
    const T norm = kind == Reduce::Mean ? div(T(1), T(n)) : T(1);
    for (int64_t t = 0; t < n; ++t)
      dx[base + t * inner] = mul(norm, d);
    return;
  }
  // The first element equal to the result takes the whole gradient.
  bool won = false;
  for (int64_t t = 0; t < n; ++t) {
    const bool wins = !won && x[base + t * inner] == y[t0];
    dx[base + t * inner] = wins ? d : T(0);
    won = won || wins;
  }
}

/// Moves rows of `count` elements: row o from from + o * fromStride to
/// to + o * toStride.
template <typename T>
__global__ void copyRowsKernel(int64_t rows, int64_t count, const T *from,
                               int64_t fromStride, T *to, int64_t toStride) {
  const int64_t i = globalThread();
  if (i >= rows * count)
    return;
  const int64_t o = i / count, r = i % count;
  to[o * toStride + r] = from[o * fromStride + r];
}

/// Entry i of out[matrices, blocks * rows, blocks * cols]: its row's block
/// b has its entries in columns [b * cols, (b + 1) * cols), the rest are 0.
/// A row of out is a row of q[matrices, blocks, rows, cols] (same index).
template <typename T>
__global__ void blockDiagonalKernel(int64_t total, int64_t blocks,
                                    int64_t rows, int64_t cols, const T *q,
                                    T *out) {
  const int64_t i = globalThread();
  if (i >= total)
    return;
  const int64_t width = blocks * cols;
  const int64_t row = i / width, c = i % width - (row / rows) % blocks * cols;
  out[i] = c >= 0 && c < cols ? q[row * cols + c] : T(0);
}

/// Entry i of q: the entry of w's diagonal block it came from.
template <typename T>
__global__ void diagonalBlocksKernel(int64_t total, int64_t blocks,
                                     int64_t rows, int64_t cols, const T *w,
                                     T *q) {
  const int64_t i = globalThread();
  if (i >= total)
    return;
  const int64_t row = i / cols, c = i % cols;
  q[i] = w[row * blocks * cols + (row / rows) % blocks * cols + c];
}

/// dy's dims (row-major strides), which of them are summed away, and the
/// kept dims in order (out is laid out as them).
struct Broadcast {
  int rank;
  int64_t shape[kMaxRank], stride[kMaxRank];
  bool summed[kMaxRank];
  int64_t outSize, summedSize;
};

/// The offset in dy of output element o's first summand: its kept
/// coordinates, innermost first.
__device__ int64_t keptOffset(const Broadcast &b, int64_t o) {
  int64_t base = 0;
  for (int d = b.rank - 1; d >= 0; --d)
    if (!b.summed[d]) {
      base += (o % b.shape[d]) * b.stride[d];
      o /= b.shape[d];
    }
  return base;
}

/// Any layout: a thread per output element adds its summands in order.
template <typename T>
__global__ void unbroadcastKernel(const Broadcast b, const T *dy, T *out) {
  const int64_t o = globalThread();
  if (o >= b.outSize)
    return;
  const int64_t base = keptOffset(b, o);
  T acc = T(0);
  for (int64_t r = 0; r < b.summedSize; ++r) {
    int64_t offset = base, s = r;
    for (int d = b.rank - 1; d >= 0; --d)
      if (b.summed[d]) {
        offset += (s % b.shape[d]) * b.stride[d];
        s /= b.shape[d];
      }
    acc = add(acc, dy[offset]);
  }
  out[o] = acc;
}

/// The summed dims as one run `rowStride` apart: sums[i] for i = block *
/// outSize + o is block `block`'s rows of element o, in row order (adjacent
/// threads read adjacent kept elements).
template <typename T>
__global__ void unbroadcastBlocksKernel(const Broadcast b, int64_t rowStride,
                                        int64_t blocks, const T *dy, T *sums) {
  const int64_t i = globalThread();
  if (i >= blocks * b.outSize)
    return;
  const int64_t o = i % b.outSize;
  const int64_t first = (i / b.outSize) * kUnbroadcastBlockRows;
  const int64_t end = first + kUnbroadcastBlockRows;
  const int64_t last = end < b.summedSize ? end : b.summedSize;
  const T *summands = dy + keptOffset(b, o);
  T acc = T(0);
  for (int64_t r = first; r < last; ++r)
    acc = add(acc, summands[r * rowStride]);
  sums[i] = acc;
}

/// out[o] = the blocks' sums of element o, in block order.
template <typename T>
__global__ void unbroadcastTotalsKernel(int64_t outSize, int64_t blocks,
                                        const T *sums, T *out) {
  const int64_t o = globalThread();
  if (o >= outSize)
    return;
  T total = T(0);
  for (int64_t block = 0; block < blocks; ++block)
    total = add(total, sums[block * outSize + o]);
  out[o] = total;
}

/// The stride of the summed dims if they form one run (adjacent once dims of
/// size 1 are left out) and the innermost dim of size > 1 is kept: the CPU
/// kernel's bias-gradient layout, summed in blocks (families/Axis.def).
/// 0 otherwise.
int64_t singleSummedRunStride(const Broadcast &b) {
  int runs = 0;
  bool previousSummed = false, any = false, innermostKept = false;
  int64_t runStride = 0;
  for (int d = b.rank - 1; d >= 0; --d) {
    if (b.shape[d] == 1)
      continue;
    if (!any)
      innermostKept = !b.summed[d];
    if (b.summed[d] && (!any || !previousSummed)) {
      ++runs;
      runStride = b.stride[d];
    }
    previousSummed = b.summed[d];
    any = true;
  }
  return runs == 1 && innermostKept ? runStride : 0;
}

[[noreturn]] void throwShapeError(const std::string &message) {
  throw std::invalid_argument("unbroadcast: " + message);
}

} // namespace

template <typename T>
void softmax(int64_t outer, int64_t n, int64_t inner, const T *x, T *y) {
  if (n > 0)
    launchColumns("softmax launch", outer * inner, softmaxKernel<T>, outer, n,
                  inner, x, y);
}

template <typename T>
void softmaxGrad(int64_t outer, int64_t n, int64_t inner, const T *dy,
                 const T *y, T *dx) {
  launchColumns("softmaxGrad launch", outer * inner, softmaxGradKernel<T>,
                outer, n, inner, dy, y, dx);
}

template <typename T>
void logSoftmax(int64_t outer, int64_t n, int64_t inner, const T *x, T *y) {
  if (n > 0)
    launchColumns("logSoftmax launch", outer * inner, logSoftmaxKernel<T>,
                  outer, n, inner, x, y);
}

template <typename T>
void logSoftmaxGrad(int64_t outer, int64_t n, int64_t inner, const T *dy,
                    const T *y, T *dx) {
  launchColumns("logSoftmaxGrad launch", outer * inner, logSoftmaxGradKernel<T>,
                outer, n, inner, dy, y, dx);
}

template <typename T>
void reduceAxis(Reduce kind, int64_t outer, int64_t n, int64_t inner,
                const T *x, T *y) {
  launchColumns("reduceAxis launch", outer * inner, reduceAxisKernel<T>, kind,
                outer, n, inner, x, y);
}

template <typename T>
void reduceAxisGrad(Reduce kind, int64_t outer, int64_t n, int64_t inner,
                    const T *dy, const T *x, const T *y, T *dx) {
  launchColumns("reduceAxisGrad launch", outer * inner, reduceAxisGradKernel<T>,
                kind, outer, n, inner, dy, x, y, dx);
}

template <typename T>
void copyIntoAxis(int64_t outer, int64_t n, int64_t inner, const T *x,
                  int64_t total, int64_t offset, T *out) {
  launchColumns("copyIntoAxis launch", outer * n * inner, copyRowsKernel<T>,
                outer, n * inner, x, n * inner, out + offset * inner,
                total * inner);
}

template <typename T>
void sliceAxis(int64_t outer, int64_t total, int64_t inner, const T *x,
               int64_t offset, int64_t n, T *out) {
  launchColumns("sliceAxis launch", outer * n * inner, copyRowsKernel<T>, outer,
                n * inner, x + offset * inner, total * inner, out, n * inner);
}

template <typename T>
void blockDiagonal(int64_t matrices, int64_t blocks, int64_t rows, int64_t cols,
                   const T *q, T *out) {
  const int64_t total = matrices * blocks * rows * blocks * cols;
  launchColumns("blockDiagonal launch", total, blockDiagonalKernel<T>, total,
                blocks, rows, cols, q, out);
}

template <typename T>
void diagonalBlocks(int64_t matrices, int64_t blocks, int64_t rows,
                    int64_t cols, const T *w, T *q) {
  const int64_t total = matrices * blocks * rows * cols;
  launchColumns("diagonalBlocks launch", total, diagonalBlocksKernel<T>, total,
                blocks, rows, cols, w, q);
}

template <typename T>
void unbroadcast(const T *dy, const int64_t *dyShape, int dyRank, T *out,
                 const int64_t *outShape, int outRank) {
  // The CPU kernel's checks and messages (lib/kernels/cpu/Axis.cpp).
  if (dyRank > kMaxRank || outRank < 0 || outRank > dyRank)
    throwShapeError("rank " + std::to_string(outRank) + " from rank " +
                    std::to_string(dyRank) + " (at most " +
                    std::to_string(kMaxRank) + ")");
  Broadcast b{};
  b.rank = dyRank;
  b.outSize = 1;
  b.summedSize = 1;
  int64_t stride = 1, dySize = 1;
  for (int d = dyRank - 1; d >= 0; --d) {
    const int64_t size = dyShape[d];
    const int od = d - (dyRank - outRank);
    const int64_t target = od >= 0 ? outShape[od] : 1;
    if (target != size && target != 1)
      throwShapeError("dimension " + std::to_string(d) + " of size " +
                      std::to_string(size) + " cannot be reduced to " +
                      std::to_string(target));
    b.shape[d] = size;
    b.stride[d] = stride;
    b.summed[d] = target == 1 && size != 1;
    (b.summed[d] ? b.summedSize : b.outSize) *= size;
    stride *= size;
    dySize *= size;
  }
  if (dySize == 0) {
    int64_t outSize = 1;
    for (int d = 0; d < outRank; ++d)
      outSize *= outShape[d];
    if (outSize > 0)
      check(cudaMemsetAsync(out, 0, size_t(outSize) * sizeof(T), stream()),
            "unbroadcast");
    return;
  }
  const int64_t rowStride = singleSummedRunStride(b);
  if (rowStride == 0) {
    launchColumns("unbroadcast launch", b.outSize, unbroadcastKernel<T>, b, dy,
                  out);
    return;
  }
  // One block's sums are the result itself.
  const int64_t blocks =
      (b.summedSize + kUnbroadcastBlockRows - 1) / kUnbroadcastBlockRows;
  T *sums =
      blocks == 1
          ? out
          : static_cast<T *>(scratch(size_t(blocks * b.outSize) * sizeof(T)));
  launchColumns("unbroadcast launch", blocks * b.outSize,
                unbroadcastBlocksKernel<T>, b, rowStride, blocks, dy, sums);
  if (blocks > 1)
    launchColumns("unbroadcast launch", b.outSize, unbroadcastTotalsKernel<T>,
                  b.outSize, blocks, sums, out);
}

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Axis.def"
#define GNNRT_KERNEL_CUDA
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels::cuda
