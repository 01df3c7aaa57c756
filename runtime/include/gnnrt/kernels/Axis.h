//===- Axis.h - Operations along one axis of a dense tensor -----*- C++ -*-===//
//
// Softmax, reductions, concatenation and slicing along one axis, each on
// the tensor viewed as [outer, n, inner] (n the axis, outer the product of
// the dims before it, inner of those after), and the adjoint of
// broadcasting.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_AXIS_H
#define GNNRT_KERNELS_AXIS_H

#include "gnnrt/kernels/Types.h"

#include <cstdint>

namespace gnnrt::kernels {

/// softmax / log-softmax along the middle axis of x viewed as [outer, n,
/// inner]; numerically stable (max subtracted).
template <typename T>
void softmax(int64_t outer, int64_t n, int64_t inner, const T *x, T *y);
template <typename T>
void softmaxGrad(int64_t outer, int64_t n, int64_t inner, const T *dy,
                 const T *y, T *dx);
template <typename T>
void logSoftmax(int64_t outer, int64_t n, int64_t inner, const T *x, T *y);
template <typename T>
void logSoftmaxGrad(int64_t outer, int64_t n, int64_t inner, const T *dy,
                    const T *y, T *dx);

/// y[outer, inner] = reduction of x[outer, n, inner] along the middle axis
/// (zeros if n == 0). The max/min gradient goes to the first element equal
/// to y.
template <typename T>
void reduceAxis(Reduce kind, int64_t outer, int64_t n, int64_t inner,
                const T *x, T *y);
template <typename T>
void reduceAxisGrad(Reduce kind, int64_t outer, int64_t n, int64_t inner,
                    const T *dy, const T *x, const T *y, T *dx);

/// Copies x[outer, n, inner] into columns [offset, offset + n) of the middle
/// axis of out[outer, total, inner] (concat; writes only those columns), and
/// the reverse (slice).
template <typename T>
void copyIntoAxis(int64_t outer, int64_t n, int64_t inner, const T *x,
                  int64_t total, int64_t offset, T *out);
template <typename T>
void sliceAxis(int64_t outer, int64_t total, int64_t inner, const T *x,
               int64_t offset, int64_t n, T *out);

/// out[matrices, blocks*rows, blocks*cols] = block-diagonal matrices whose
/// diagonal blocks are q[matrices, blocks, rows, cols] and whose other
/// entries are zero (R-GCN's block-diagonal decomposition); diagonalBlocks
/// is its adjoint, the diagonal blocks of w back in q's layout.
template <typename T>
void blockDiagonal(int64_t matrices, int64_t blocks, int64_t rows, int64_t cols,
                   const T *q, T *out);
template <typename T>
void diagonalBlocks(int64_t matrices, int64_t blocks, int64_t rows,
                    int64_t cols, const T *w, T *q);

/// The adjoint of broadcasting: out (shape outShape, rank outRank) = sum of
/// dy (shape dyShape, rank dyRank >= outRank) over the dims that were
/// broadcast (missing leading dims and dims of size 1 in outShape). Ranks
/// up to 8; throws std::invalid_argument if a dim of outShape is neither 1
/// nor the matching dim of dyShape.
template <typename T>
void unbroadcast(const T *dy, const int64_t *dyShape, int dyRank, T *out,
                 const int64_t *outShape, int outRank);

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_AXIS_H
