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

/// Columns per task of the axis operations: contiguous enough to vectorize,
/// narrow enough to split a single wide slice over threads.
constexpr int64_t kInnerTile = 64;
constexpr int kMaxRank = 8;

//===--- Axis tiles -------------------------------------------------------===//

/// Runs body(o, i0, i1) in parallel over every slice o of [outer, n, inner]
/// and every tile [i0, i1) of its inner columns; a tile owns its columns of
/// the whole middle axis.
template <typename Body>
void forEachAxisTile(int64_t outer, int64_t n, int64_t inner, Body &&body) {
  const int64_t tilesPerSlice = (inner + kInnerTile - 1) / kInnerTile;
  const int64_t tiles = outer * tilesPerSlice;
  const bool threaded = worthThreads(outer * n * inner);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t o = t / tilesPerSlice, i0 = (t % tilesPerSlice) * kInnerTile;
    body(o, i0, std::min(inner, i0 + kInnerTile));
  }
}

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
  forEachAxisTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0;
    T colMax[kInnerTile], colSum[kInnerTile];
    softmaxColumns(x + base, n, inner, i1 - i0, y + base, colMax, colSum);
  });
}

template <typename T>
void softmaxGrad(int64_t outer, int64_t n, int64_t inner, const T *dy,
                 const T *y, T *dx) {
  forEachAxisTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
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
  forEachAxisTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
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
  forEachAxisTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
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

/// 16 bytes of T: the columns that one SSE register sums. The statistics
/// below keep W columns' sums in W / Lanes of them while the rows stream
/// past (GCC's SLP vectorizer scalarized the same loops over arrays); each
/// lane adds its column's values in row order, as a scalar loop would.
template <typename T> struct Lanes {
  typedef T Vector __attribute__((vector_size(16)));
  static constexpr int64_t kCount = 16 / sizeof(T);
  static Vector load(const T *p) {
    Vector v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static void store(T *p, Vector v) { std::memcpy(p, &v, sizeof v); }
};

/// The mean and 1 / sqrt(variance + eps) of columns [c0, c0 + W) of an
/// axis of n > 0 rows `inner` apart at xs, in the order of the composed
/// formula (the mean's reduceAxis, then the squared deviations', each a sum
/// in row order times 1/n), so that batchNorm is that formula's bits.
template <int64_t W, typename T>
void columnStatistics(const T *xs, int64_t n, int64_t inner, int64_t c0, T eps,
                      T *mean, T *rstd, T *biasedVariance) {
  using L = Lanes<T>;
  using V = typename L::Vector;
  constexpr int64_t K = W / L::kCount;
  static_assert(K * L::kCount == W, "W is a multiple of the lanes");
  const T scale = T(1) / T(n);
  V m[K], v[K];
  for (int64_t k = 0; k < K; ++k)
    m[k] = L::load(xs + c0 + k * L::kCount);
  for (int64_t t = 1; t < n; ++t)
    for (int64_t k = 0; k < K; ++k)
      m[k] += L::load(xs + t * inner + c0 + k * L::kCount);
  for (int64_t k = 0; k < K; ++k) {
    m[k] *= scale;
    const V d = L::load(xs + c0 + k * L::kCount) - m[k];
    v[k] = d * d;
  }
  for (int64_t t = 1; t < n; ++t)
    for (int64_t k = 0; k < K; ++k) {
      const V d = L::load(xs + t * inner + c0 + k * L::kCount) - m[k];
      v[k] += d * d;
    }
  T variance[W];
  for (int64_t k = 0; k < K; ++k) {
    L::store(mean + c0 + k * L::kCount, m[k]);
    L::store(variance + k * L::kCount, v[k]);
  }
  for (int64_t c = 0; c < W; ++c) {
    const T biased = variance[c] * scale;
    rstd[c0 + c] = T(1) / std::sqrt(biased + eps);
    if (biasedVariance)
      biasedVariance[c0 + c] = biased;
  }
}

/// The same for a single column (the ragged end of a tile).
template <typename T>
void columnStatistic(const T *xs, int64_t n, int64_t inner, int64_t c, T eps,
                     T *mean, T *rstd, T *biasedVariance) {
  const T scale = T(1) / T(n);
  T m = xs[c];
  for (int64_t t = 1; t < n; ++t)
    m += xs[t * inner + c];
  m *= scale;
  T v = (xs[c] - m) * (xs[c] - m);
  for (int64_t t = 1; t < n; ++t)
    v += (xs[t * inner + c] - m) * (xs[t * inner + c] - m);
  mean[c] = m;
  rstd[c] = T(1) / std::sqrt(v * scale + eps);
  if (biasedVariance)
    biasedVariance[c] = v * scale;
}

/// columnStatistics of the w <= kInnerTile columns at xs (and, where
/// biasedVariance is not null, the variance whose rstd it is, eps aside).
template <typename T>
void columnStatistics(const T *xs, int64_t n, int64_t inner, int64_t w, T eps,
                      T *mean, T *rstd, T *biasedVariance = nullptr) {
  constexpr int64_t kLanes = Lanes<T>::kCount;
  int64_t c0 = 0;
  for (; c0 + 8 * kLanes <= w; c0 += 8 * kLanes)
    columnStatistics<8 * kLanes>(xs, n, inner, c0, eps, mean, rstd,
                                 biasedVariance);
  for (; c0 + kLanes <= w; c0 += kLanes)
    columnStatistics<kLanes>(xs, n, inner, c0, eps, mean, rstd,
                             biasedVariance);
  for (; c0 < w; ++c0)
    columnStatistic(xs, n, inner, c0, eps, mean, rstd, biasedVariance);
}

/// The means of columns [c0, c0 + W) alone (the first pass of
/// columnStatistics: the same bits), W / lanes independent sums.
template <int64_t W, typename T>
void columnMeans(const T *xs, int64_t n, int64_t inner, int64_t c0, T *mean) {
  using L = Lanes<T>;
  using V = typename L::Vector;
  constexpr int64_t K = W / L::kCount;
  V m[K];
  for (int64_t k = 0; k < K; ++k)
    m[k] = L::load(xs + c0 + k * L::kCount);
  for (int64_t t = 1; t < n; ++t)
    for (int64_t k = 0; k < K; ++k)
      m[k] += L::load(xs + t * inner + c0 + k * L::kCount);
  const T scale = T(1) / T(n);
  for (int64_t k = 0; k < K; ++k)
    L::store(mean + c0 + k * L::kCount, m[k] * scale);
}

/// columnMeans of the w <= kInnerTile columns at xs.
template <typename T>
void columnMeans(const T *xs, int64_t n, int64_t inner, int64_t w, T *mean) {
  constexpr int64_t kLanes = Lanes<T>::kCount;
  const T scale = T(1) / T(n);
  int64_t c0 = 0;
  for (; c0 + 8 * kLanes <= w; c0 += 8 * kLanes)
    columnMeans<8 * kLanes>(xs, n, inner, c0, mean);
  for (; c0 + kLanes <= w; c0 += kLanes)
    columnMeans<kLanes>(xs, n, inner, c0, mean);
  for (; c0 < w; ++c0) {
    T m = xs[c0];
    for (int64_t t = 1; t < n; ++t)
      m += xs[t * inner + c0];
    mean[c0] = m * scale;
  }
}

/// The means over the axis of dy and of dy * y, columns [c0, c0 + W) (W a
/// multiple of the lanes; 1 for a single column).
template <int64_t W, typename T>
void gradientMeans(const T *dy, const T *y, int64_t n, int64_t inner,
                   int64_t c0, T *meanDy, T *meanDyY) {
  const T scale = T(1) / T(n);
  if constexpr (W == 1) {
    T a = dy[c0], b = dy[c0] * y[c0];
    for (int64_t t = 1; t < n; ++t) {
      a += dy[t * inner + c0];
      b += dy[t * inner + c0] * y[t * inner + c0];
    }
    meanDy[c0] = a * scale;
    meanDyY[c0] = b * scale;
  } else {
    using L = Lanes<T>;
    using V = typename L::Vector;
    constexpr int64_t K = W / L::kCount;
    static_assert(K * L::kCount == W, "W is a multiple of the lanes");
    V a[K], b[K];
    for (int64_t k = 0; k < K; ++k) {
      const V d = L::load(dy + c0 + k * L::kCount);
      a[k] = d;
      b[k] = d * L::load(y + c0 + k * L::kCount);
    }
    for (int64_t t = 1; t < n; ++t)
      for (int64_t k = 0; k < K; ++k) {
        const int64_t at = t * inner + c0 + k * L::kCount;
        const V d = L::load(dy + at);
        a[k] += d;
        b[k] += d * L::load(y + at);
      }
    for (int64_t k = 0; k < K; ++k) {
      L::store(meanDy + c0 + k * L::kCount, a[k] * scale);
      L::store(meanDyY + c0 + k * L::kCount, b[k] * scale);
    }
  }
}

/// out[c] = 0 + first[c] + first[stride + c] + ... over `rows` rows, for
/// the w <= kInnerTile columns c, added in row order: the bias gradient's
/// column sums, 32 columns at a time in registers (a row at a time through
/// out would store and reload every sum per row).
template <typename T>
void sumRows(const T *first, int64_t rows, int64_t stride, int64_t w, T *out) {
  using L = Lanes<T>;
  using V = typename L::Vector;
  constexpr int64_t K = 8, W = K * L::kCount;
  int64_t c0 = 0;
  for (; c0 + W <= w; c0 += W) {
    V acc[K] = {};
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < K; ++k)
        acc[k] += L::load(first + r * stride + c0 + k * L::kCount);
    for (int64_t k = 0; k < K; ++k)
      L::store(out + c0 + k * L::kCount, acc[k]);
  }
  if (c0 == w)
    return;
  fillRow(out + c0, T(0), w - c0);
  for (int64_t r = 0; r < rows; ++r)
    addRow(out + c0, first + r * stride + c0, w - c0);
}

template <typename T>
void batchNorm(int64_t outer, int64_t n, int64_t inner, double eps, const T *x,
               T *y) {
  if (n == 0)
    return;
  forEachAxisTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0, w = i1 - i0;
    T mean[kInnerTile], rstd[kInnerTile];
    columnStatistics(x + base, n, inner, w, T(eps), mean, rstd);
    for (int64_t t = 0; t < n; ++t) {
      const T *__restrict xr = x + base + t * inner;
      T *__restrict yr = y + base + t * inner;
      for (int64_t c = 0; c < w; ++c)
        yr[c] = (xr[c] - mean[c]) * rstd[c];
    }
  });
}

template <typename T>
void batchNormGrad(int64_t outer, int64_t n, int64_t inner, double eps,
                   const T *dy, const T *x, const T *y, T *dx) {
  if (n == 0)
    return;
  forEachAxisTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0, w = i1 - i0;
    T mean[kInnerTile], rstd[kInnerTile];
    columnStatistics(x + base, n, inner, w, T(eps), mean, rstd);
    T meanDy[kInnerTile], meanDyY[kInnerTile];
    constexpr int64_t kLanes = Lanes<T>::kCount;
    int64_t c0 = 0;
    for (; c0 + 8 * kLanes <= w; c0 += 8 * kLanes)
      gradientMeans<8 * kLanes>(dy + base, y + base, n, inner, c0, meanDy,
                                meanDyY);
    for (; c0 + kLanes <= w; c0 += kLanes)
      gradientMeans<kLanes>(dy + base, y + base, n, inner, c0, meanDy,
                            meanDyY);
    for (; c0 < w; ++c0)
      gradientMeans<1>(dy + base, y + base, n, inner, c0, meanDy, meanDyY);
    for (int64_t t = 0; t < n; ++t) {
      const T *__restrict dyr = dy + base + t * inner;
      const T *__restrict yr = y + base + t * inner;
      T *__restrict dxr = dx + base + t * inner;
      for (int64_t c = 0; c < w; ++c)
        dxr[c] = rstd[c] * ((dyr[c] - meanDy[c]) - yr[c] * meanDyY[c]);
    }
  });
}

template <typename T>
void batchNormInference(int64_t outer, int64_t n, int64_t inner, double eps,
                        const T *x, const T *mean, const T *var, T *y) {
  forEachAxisTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0, w = i1 - i0;
    const T *m = mean + o * inner + i0;
    T rstd[kInnerTile];
    for (int64_t c = 0; c < w; ++c)
      rstd[c] = T(1) / std::sqrt(var[o * inner + i0 + c] + T(eps));
    for (int64_t t = 0; t < n; ++t) {
      const T *__restrict xr = x + base + t * inner;
      T *__restrict yr = y + base + t * inner;
      for (int64_t c = 0; c < w; ++c)
        yr[c] = (xr[c] - m[c]) * rstd[c];
    }
  });
}

template <typename T>
void batchNormRunningChange(int64_t outer, int64_t n, int64_t inner,
                            bool variance, double momentum, const T *x,
                            const T *running, T *change) {
  if (n == 0 || (variance && n < 2)) {
    fillRow(change, T(0), outer * inner);
    return;
  }
  forEachAxisTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t w = i1 - i0, at = o * inner + i0;
    const T *xs = x + o * n * inner + i0;
    // The forward's statistics, from the same sums.
    T batch[kInnerTile];
    if (variance) {
      T mean[kInnerTile], rstd[kInnerTile], biased[kInnerTile];
      columnStatistics(xs, n, inner, w, T(0), mean, rstd, biased);
      // PyTorch keeps the unbiased variance.
      for (int64_t c = 0; c < w; ++c)
        batch[c] = biased[c] * T(n) / T(n - 1);
    } else {
      columnMeans(xs, n, inner, w, batch);
    }
    for (int64_t c = 0; c < w; ++c)
      change[at + c] = T(momentum) * (batch[c] - running[at + c]);
  });
}

template <typename T>
void reduceAxis(Reduce kind, int64_t outer, int64_t n, int64_t inner,
                const T *x, T *y) {
  // An empty axis reduces to 0, like a destination without messages.
  if (n == 0) {
    fillRow(y, T(0), outer * inner);
    return;
  }
  forEachAxisTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
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
  forEachAxisTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
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
