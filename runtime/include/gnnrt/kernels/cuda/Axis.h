//===- Axis.h - Axis operations on CUDA devices -----------------*- C++ -*-===//
//
// The CUDA implementations of gnnrt/kernels/Axis.h, with the same
// signatures over device memory. One thread owns each column (o, i) of
// [outer, n, inner] and walks the axis in the CPU kernel's order, so the
// results are the CPU's bits (the exponentials and logarithms of the
// softmaxes aside, which a device computes with its own libm).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_CUDA_AXIS_H
#define GNNRT_KERNELS_CUDA_AXIS_H

#include "gnnrt/kernels/Types.h"

#include <cstdint>

namespace gnnrt::kernels::cuda {

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

template <typename T>
void reduceAxis(Reduce kind, int64_t outer, int64_t n, int64_t inner,
                const T *x, T *y);
template <typename T>
void reduceAxisGrad(Reduce kind, int64_t outer, int64_t n, int64_t inner,
                    const T *dy, const T *x, const T *y, T *dx);

template <typename T>
void copyIntoAxis(int64_t outer, int64_t n, int64_t inner, const T *x,
                  int64_t total, int64_t offset, T *out);
template <typename T>
void sliceAxis(int64_t outer, int64_t total, int64_t inner, const T *x,
               int64_t offset, int64_t n, T *out);

/// kernels::blockDiagonal and its adjoint diagonalBlocks (R-GCN's
/// block-diagonal relation matrices): one thread per entry written.
template <typename T>
void blockDiagonal(int64_t matrices, int64_t blocks, int64_t rows, int64_t cols,
                   const T *q, T *out);
template <typename T>
void diagonalBlocks(int64_t matrices, int64_t blocks, int64_t rows,
                    int64_t cols, const T *w, T *q);

/// kernels::unbroadcast; the shapes are host arrays, the tensors device
/// ones. Throws std::invalid_argument as the CPU kernel does.
template <typename T>
void unbroadcast(const T *dy, const int64_t *dyShape, int dyRank, T *out,
                 const int64_t *outShape, int outRank);

} // namespace gnnrt::kernels::cuda

#endif // GNNRT_KERNELS_CUDA_AXIS_H
