//===- Norm.cpp - Batch normalization on the CPU --------------------------===//
//
// Each tile of up to kInnerTile columns of [outer, n, inner] owns its
// columns of all n rows (parallel over tiles, as the axis operations): the
// column statistics with their sums in registers (Lanes), then one pass
// that normalizes (or, for the adjoint, two more).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Norm.h"

#include "Common.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace gnnrt::kernels {

using namespace detail;

namespace {

/// Calls chunk(std::integral_constant<int64_t, W>(), c0) over the w
/// columns in chunks of W = 8 lane widths, then of one lane width, then
/// single(c0) for each column left: the column sums below keep a chunk's
/// sums in registers.
template <typename T, typename Chunk, typename Single>
void forEachLaneChunk(int64_t w, Chunk &&chunk, Single &&single) {
  constexpr int64_t kLanes = Lanes<T>::kCount;
  int64_t c0 = 0;
  for (; c0 + 8 * kLanes <= w; c0 += 8 * kLanes)
    chunk(std::integral_constant<int64_t, 8 * kLanes>(), c0);
  for (; c0 + kLanes <= w; c0 += kLanes)
    chunk(std::integral_constant<int64_t, kLanes>(), c0);
  for (; c0 < w; ++c0)
    single(c0);
}

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
  forEachLaneChunk<T>(
      w,
      [&](auto width, int64_t c0) {
        columnStatistics<width()>(xs, n, inner, c0, eps, mean, rstd,
                                  biasedVariance);
      },
      [&](int64_t c) {
        columnStatistic(xs, n, inner, c, eps, mean, rstd, biasedVariance);
      });
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
  const T scale = T(1) / T(n);
  forEachLaneChunk<T>(
      w,
      [&](auto width, int64_t c0) {
        columnMeans<width()>(xs, n, inner, c0, mean);
      },
      [&](int64_t c) {
        T m = xs[c];
        for (int64_t t = 1; t < n; ++t)
          m += xs[t * inner + c];
        mean[c] = m * scale;
      });
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

/// y = (x - mean[c]) * rstd[c] over n rows of the w columns at x and y.
template <typename T>
void normalizeRows(const T *x, int64_t n, int64_t inner, int64_t w,
                   const T *mean, const T *rstd, T *y) {
  for (int64_t t = 0; t < n; ++t) {
    const T *__restrict xr = x + t * inner;
    T *__restrict yr = y + t * inner;
    for (int64_t c = 0; c < w; ++c)
      yr[c] = (xr[c] - mean[c]) * rstd[c];
  }
}

} // namespace

template <typename T>
void batchNorm(int64_t outer, int64_t n, int64_t inner, double eps, const T *x,
               T *y) {
  if (n == 0)
    return;
  forEachColumnTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0, w = i1 - i0;
    T mean[kInnerTile], rstd[kInnerTile];
    columnStatistics(x + base, n, inner, w, T(eps), mean, rstd);
    normalizeRows(x + base, n, inner, w, mean, rstd, y + base);
  });
}

template <typename T>
void batchNormGrad(int64_t outer, int64_t n, int64_t inner, double eps,
                   const T *dy, const T *x, const T *y, T *dx) {
  if (n == 0)
    return;
  forEachColumnTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0, w = i1 - i0;
    T mean[kInnerTile], rstd[kInnerTile];
    columnStatistics(x + base, n, inner, w, T(eps), mean, rstd);
    T meanDy[kInnerTile], meanDyY[kInnerTile];
    auto means = [&](auto width, int64_t c0) {
      gradientMeans<width()>(dy + base, y + base, n, inner, c0, meanDy,
                             meanDyY);
    };
    forEachLaneChunk<T>(w, means, [&](int64_t c) {
      means(std::integral_constant<int64_t, 1>(), c);
    });
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
  forEachColumnTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0, w = i1 - i0;
    const T *m = mean + o * inner + i0;
    T rstd[kInnerTile];
    for (int64_t c = 0; c < w; ++c)
      rstd[c] = T(1) / std::sqrt(var[o * inner + i0 + c] + T(eps));
    normalizeRows(x + base, n, inner, w, m, rstd, y + base);
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
  forEachColumnTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
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

//===--- Instantiations ---------------------------------------------------===//

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Norm.def"
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels
