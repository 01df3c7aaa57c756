//===- Axis.cpp - Axis operations on the CPU ------------------------------===//
//
// Operations along the middle axis of [outer, n, inner] run in parallel
// over tiles of kInnerTile inner columns, each tile owning its columns of
// the whole axis, so a single wide slice still splits over threads.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Axis.h"

#include "ColumnSoftmax.h"
#include "Common.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace gnnrt::kernels {

using namespace detail;

namespace {

constexpr int kMaxRank = 8;

//===--- Unbroadcast helpers ----------------------------------------------===//

/// A run of dy's dimensions that are all kept (or all summed away), merged
/// because they are adjacent in memory once size-1 dimensions are dropped.
struct DimRun {
  int64_t size, stride;
};

/// The dy offset of a linear index over runs listed innermost first.
int64_t offsetOf(int64_t linear, const DimRun *runs, int count) {
  int64_t offset = 0;
  for (int d = 0; d < count; ++d) {
    offset += (linear % runs[d].size) * runs[d].stride;
    linear /= runs[d].size;
  }
  return offset;
}

int64_t product(const int64_t *shape, int rank) {
  int64_t p = 1;
  for (int d = 0; d < rank; ++d)
    p *= shape[d];
  return p;
}

[[noreturn]] void throwShapeError(const std::string &message) {
  throw std::invalid_argument("unbroadcast: " + message);
}

} // namespace

//===--- Axis operations --------------------------------------------------===//
//
// Element (o, t, i) of an [outer, n, inner] view is at o*n*inner + t*inner +
// i; a tile body sees xs = x + o*n*inner + i0, so its column c of row t is
// xs[t * inner + c].

template <typename T>
void softmax(int64_t outer, int64_t n, int64_t inner, const T *x, T *y) {
  if (n == 0)
    return;
  forEachColumnTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0;
    T colMax[kInnerTile], colSum[kInnerTile];
    softmaxColumns(x + base, n, inner, i1 - i0, y + base, colMax, colSum);
  });
}

template <typename T>
void softmaxGrad(int64_t outer, int64_t n, int64_t inner, const T *dy,
                 const T *y, T *dx) {
  forEachColumnTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0;
    T colDot[kInnerTile];
    softmaxGradColumns(dy + base, y + base, n, inner, i1 - i0, dx + base,
                       colDot);
  });
}

template <typename T>
void logSoftmax(int64_t outer, int64_t n, int64_t inner, const T *x, T *y) {
  if (n == 0)
    return;
  forEachColumnTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0, w = i1 - i0;
    const T *xs = x + base;
    T *ys = y + base;
    T colMax[kInnerTile], colSum[kInnerTile] = {};
    columnMax(xs, n, inner, w, colMax);
    for (int64_t t = 0; t < n; ++t)
      for (int64_t c = 0; c < w; ++c)
        colSum[c] += std::exp(xs[t * inner + c] - colMax[c]);
    for (int64_t c = 0; c < w; ++c)
      colMax[c] += std::log(colSum[c]); // now log-sum-exp
    for (int64_t t = 0; t < n; ++t)
      for (int64_t c = 0; c < w; ++c)
        ys[t * inner + c] = xs[t * inner + c] - colMax[c];
  });
}

template <typename T>
void logSoftmaxGrad(int64_t outer, int64_t n, int64_t inner, const T *dy,
                    const T *y, T *dx) {
  forEachColumnTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0, w = i1 - i0;
    T colSum[kInnerTile] = {};
    for (int64_t t = 0; t < n; ++t)
      for (int64_t c = 0; c < w; ++c)
        colSum[c] += dy[base + t * inner + c];
    for (int64_t t = 0; t < n; ++t)
      for (int64_t c = 0; c < w; ++c) {
        const int64_t at = base + t * inner + c;
        dx[at] = dy[at] - std::exp(y[at]) * colSum[c];
      }
  });
}

/// out[c] = the sum of first[c], first[stride + c], ... over `rows` rows,
/// for the w <= kInnerTile columns c, in unbroadcast's order: the rows of
/// each block of kUnbroadcastBlockRows in row order, then the blocks' sums in
/// block order. The bias gradient's column sums, 32 columns at a time in
/// registers (a row at a time through out would store and reload every sum
/// per row).
template <typename T>
void sumRows(const T *first, int64_t rows, int64_t stride, int64_t w, T *out) {
  using L = Lanes<T>;
  using V = typename L::Vector;
  constexpr int64_t K = 8, W = K * L::kCount, B = kUnbroadcastBlockRows;
  int64_t c0 = 0;
  for (; c0 + W <= w; c0 += W) {
    V total[K] = {};
    for (int64_t r0 = 0; r0 < rows; r0 += B) {
      V acc[K] = {};
      for (int64_t r = r0; r < std::min(rows, r0 + B); ++r)
        for (int64_t k = 0; k < K; ++k)
          acc[k] += L::load(first + r * stride + c0 + k * L::kCount);
      for (int64_t k = 0; k < K; ++k)
        total[k] += acc[k];
    }
    for (int64_t k = 0; k < K; ++k)
      L::store(out + c0 + k * L::kCount, total[k]);
  }
  // The last w - c0 < W columns, still a row at a time.
  const int64_t rest = w - c0;
  if (rest == 0)
    return;
  T total[W] = {};
  for (int64_t r0 = 0; r0 < rows; r0 += B) {
    T acc[W] = {};
    for (int64_t r = r0; r < std::min(rows, r0 + B); ++r)
      for (int64_t c = 0; c < rest; ++c)
        acc[c] += first[r * stride + c0 + c];
    for (int64_t c = 0; c < rest; ++c)
      total[c] += acc[c];
  }
  std::copy_n(total, rest, out + c0);
}

template <typename T>
void reduceAxis(Reduce kind, int64_t outer, int64_t n, int64_t inner,
                const T *x, T *y) {
  // An empty axis reduces to 0, like a destination without messages.
  if (n == 0) {
    fillRow(y, T(0), outer * inner);
    return;
  }
  // Each row to one value (a pair's score, sum(h, 1)): the column tiles
  // would run a one-column loop per element. The same sums in the same
  // order (10.2M rows of 16: 0.33 s -> 0.03 s on one thread).
  if (inner == 1 && isLinear(kind)) {
    const bool threaded = worthThreads(outer * n);
#pragma omp parallel for schedule(static) if (threaded)
    for (int64_t o = 0; o < outer; ++o) {
      const T *xs = x + o * n;
      T acc = xs[0];
      for (int64_t t = 1; t < n; ++t)
        acc += xs[t];
      y[o] = kind == Reduce::Mean ? acc * (T(1) / T(n)) : acc;
    }
    return;
  }
  forEachColumnTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const T *xs = x + o * n * inner + i0;
    T *ys = y + o * inner + i0;
    const int64_t w = i1 - i0;
    std::copy(xs, xs + w, ys);
    for (int64_t t = 1; t < n; ++t) {
      const T *row = xs + t * inner;
      if (kind == Reduce::Max)
        maxScaledRow(ys, T(1), row, w);
      else if (kind == Reduce::Min)
        minScaledRow(ys, T(1), row, w);
      else
        addRow(ys, row, w);
    }
    if (kind == Reduce::Mean)
      scaleRow(ys, T(1) / T(n), w);
  });
}

template <typename T>
void reduceAxisGrad(Reduce kind, int64_t outer, int64_t n, int64_t inner,
                    const T *dy, const T *x, const T *y, T *dx) {
  // Each row's one value back to its n elements (see reduceAxis).
  if (inner == 1 && isLinear(kind)) {
    const T norm = kind == Reduce::Mean ? T(1) / T(n) : T(1);
    const bool threaded = worthThreads(outer * n);
#pragma omp parallel for schedule(static) if (threaded)
    for (int64_t o = 0; o < outer; ++o)
      fillRow(dx + o * n, norm * dy[o], n);
    return;
  }
  forEachColumnTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0, w = i1 - i0;
    const T *dys = dy + o * inner + i0, *ys = y + o * inner + i0;
    if (isLinear(kind)) {
      const T norm = kind == Reduce::Mean ? T(1) / T(n) : T(1);
      for (int64_t t = 0; t < n; ++t)
        scaledCopyRow(dx + base + t * inner, norm, dys, w);
      return;
    }
    // The first element equal to the result takes the whole gradient.
    bool won[kInnerTile] = {};
    for (int64_t t = 0; t < n; ++t)
      for (int64_t c = 0; c < w; ++c) {
        const int64_t at = base + t * inner + c;
        const bool wins = !won[c] && x[at] == ys[c];
        dx[at] = wins ? dys[c] : T(0);
        won[c] = won[c] || wins;
      }
  });
}

template <typename T>
void copyIntoAxis(int64_t outer, int64_t n, int64_t inner, const T *x,
                  int64_t total, int64_t offset, T *out) {
  const bool threaded = worthThreads(outer * n * inner);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(out + (o * total + offset) * inner, x + o * n * inner,
                size_t(n * inner) * sizeof(T));
}

template <typename T>
void sliceAxis(int64_t outer, int64_t total, int64_t inner, const T *x,
               int64_t offset, int64_t n, T *out) {
  const bool threaded = worthThreads(outer * n * inner);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(out + o * n * inner, x + (o * total + offset) * inner,
                size_t(n * inner) * sizeof(T));
}

// Row (m, b, i) of the blocks is row b*rows + i of matrix m, at column
// b*cols; the blocks' rows are contiguous in both layouts.
template <typename T>
void blockDiagonal(int64_t matrices, int64_t blocks, int64_t rows, int64_t cols,
                   const T *q, T *out) {
  const int64_t blockRows = matrices * blocks * rows, width = blocks * cols;
  const bool threaded = worthThreads(blockRows * width);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t row = 0; row < blockRows; ++row) {
    const int64_t b = (row / rows) % blocks;
    T *to = out + row * width;
    std::fill(to, to + width, T(0));
    std::memcpy(to + b * cols, q + row * cols, size_t(cols) * sizeof(T));
  }
}

template <typename T>
void diagonalBlocks(int64_t matrices, int64_t blocks, int64_t rows,
                    int64_t cols, const T *w, T *q) {
  const int64_t blockRows = matrices * blocks * rows, width = blocks * cols;
  const bool threaded = worthThreads(blockRows * cols);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t row = 0; row < blockRows; ++row) {
    const int64_t b = (row / rows) % blocks;
    std::memcpy(q + row * cols, w + row * width + b * cols,
                size_t(cols) * sizeof(T));
  }
}

template <typename T>
void unbroadcast(const T *dy, const int64_t *dyShape, int dyRank, T *out,
                 const int64_t *outShape, int outRank) {
  if (dyRank > kMaxRank || outRank < 0 || outRank > dyRank)
    throwShapeError("rank " + std::to_string(outRank) + " from rank " +
                    std::to_string(dyRank) + " (at most " +
                    std::to_string(kMaxRank) + ")");
  const int64_t outSize = product(outShape, outRank);
  const int64_t dySize = product(dyShape, dyRank);
  if (dySize == 0) {
    fillRow(out, T(0), outSize);
    return;
  }
  // Classify dy's dims, innermost first, into runs kept in out (which is
  // laid out as the kept runs) and runs summed away.
  DimRun kept[kMaxRank], summed[kMaxRank];
  int numKept = 0, numSummed = 0;
  bool previousSummed = false, havePrevious = false;
  int64_t stride = 1;
  for (int d = dyRank - 1; d >= 0; --d) {
    const int64_t size = dyShape[d];
    const int od = d - (dyRank - outRank);
    const int64_t target = od >= 0 ? outShape[od] : 1;
    if (target != size && target != 1)
      throwShapeError("dimension " + std::to_string(d) + " of size " +
                      std::to_string(size) + " cannot be reduced to " +
                      std::to_string(target));
    if (size != 1) {
      const bool isSummed = target == 1;
      DimRun *runs = isSummed ? summed : kept;
      int &count = isSummed ? numSummed : numKept;
      if (havePrevious && previousSummed == isSummed)
        runs[count - 1].size *= size;
      else
        runs[count++] = {size, stride};
      previousSummed = isSummed;
      havePrevious = true;
    }
    stride *= size;
  }
  if (numSummed == 0) {
    std::copy(dy, dy + dySize, out);
    return;
  }
  int64_t summedSize = 1;
  for (int d = 0; d < numSummed; ++d)
    summedSize *= summed[d].size;

  if (numKept > 0 && kept[0].stride == 1) {
    // The innermost dim is kept (a bias gradient): add whole row segments,
    // split into column tiles so even a single output row runs in parallel.
    const int64_t rowLength = kept[0].size, rows = outSize / rowLength;
    const int64_t tilesPerRow = (rowLength + kInnerTile - 1) / kInnerTile;
    const bool threaded = worthThreads(dySize);
    // One summed run (a bias gradient over rows) is a fixed stride apart:
    // no divisions per row, the same additions in the same order.
    const int64_t summedStride = numSummed == 1 ? summed[0].stride : 0;
#pragma omp parallel for schedule(static) if (threaded)
    for (int64_t t = 0; t < rows * tilesPerRow; ++t) {
      const int64_t row = t / tilesPerRow, i0 = (t % tilesPerRow) * kInnerTile;
      const int64_t w = std::min(kInnerTile, rowLength - i0);
      const T *first = dy + offsetOf(row, kept + 1, numKept - 1) + i0;
      T *o = out + row * rowLength + i0;
      if (summedStride) {
        sumRows(first, summedSize, summedStride, w, o);
        continue;
      }
      fillRow(o, T(0), w);
        for (int64_t r = 0; r < summedSize; ++r)
          addRow(o, first + offsetOf(r, summed, numSummed), w);
    }
    return;
  }
  // The innermost dim is summed: each output element adds contiguous runs.
  const int64_t runLength = summed[0].size;
  const int64_t runs = summedSize / runLength;
  const bool threaded = worthThreads(dySize);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t o = 0; o < outSize; ++o) {
    const T *first = dy + offsetOf(o, kept, numKept);
    T acc = 0;
    for (int64_t r = 0; r < runs; ++r) {
      const T *run = first + offsetOf(r, summed + 1, numSummed - 1);
      for (int64_t i = 0; i < runLength; ++i)
        acc += run[i];
    }
    out[o] = acc;
  }
}

//===--- Instantiations ---------------------------------------------------===//

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Axis.def"
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels
