//===- ColumnSoftmax.h - Softmax down the columns of a block ----*- C++ -*-===//
//
// Internal to lib/kernels/cpu: the softmax and its adjoint over the rows of
// a block, column by column, shared by the axis softmax (a tile of
// [outer, n, inner]) and the edge softmax (a destination's in-edge rows).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_KERNELS_CPU_COLUMNSOFTMAX_H
#define GNNRT_LIB_KERNELS_CPU_COLUMNSOFTMAX_H

#include "Common.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace gnnrt::kernels::detail {

// Softmax over the rows of an [n, w] block whose rows lie `stride` apart,
// independently per column: an axis tile (stride inner) or a destination's
// in-edge rows (stride width). col* are scratch arrays of w values.

template <typename T>
void columnMax(const T *x, int64_t n, int64_t stride, int64_t w, T *colMax) {
  std::copy(x, x + w, colMax);
  for (int64_t t = 1; t < n; ++t)
    for (int64_t c = 0; c < w; ++c)
      colMax[c] = std::max(colMax[c], x[t * stride + c]);
}

/// y = softmax(x) for n >= 1 rows; the max is subtracted for stability.
template <typename T>
void softmaxColumns(const T *x, int64_t n, int64_t stride, int64_t w, T *y,
                    T *colMax, T *colSum) {
  columnMax(x, n, stride, w, colMax);
  fillRow(colSum, T(0), w);
  for (int64_t t = 0; t < n; ++t)
    for (int64_t c = 0; c < w; ++c) {
      y[t * stride + c] = std::exp(x[t * stride + c] - colMax[c]);
      colSum[c] += y[t * stride + c];
    }
  for (int64_t c = 0; c < w; ++c)
    colSum[c] = T(1) / colSum[c];
  for (int64_t t = 0; t < n; ++t)
    for (int64_t c = 0; c < w; ++c)
      y[t * stride + c] *= colSum[c];
}

/// dx = y * (dy - column sums of y * dy), the adjoint of softmaxColumns.
template <typename T>
void softmaxGradColumns(const T *dy, const T *y, int64_t n, int64_t stride,
                        int64_t w, T *dx, T *colDot) {
  fillRow(colDot, T(0), w);
  for (int64_t t = 0; t < n; ++t)
    for (int64_t c = 0; c < w; ++c)
      colDot[c] += y[t * stride + c] * dy[t * stride + c];
  for (int64_t t = 0; t < n; ++t)
    for (int64_t c = 0; c < w; ++c)
      dx[t * stride + c] = y[t * stride + c] * (dy[t * stride + c] - colDot[c]);
}

} // namespace gnnrt::kernels::detail

#endif // GNNRT_LIB_KERNELS_CPU_COLUMNSOFTMAX_H
