//===- Dropout.h - Dropout on CUDA devices ----------------------*- C++ -*-===//
//
// The CUDA implementations of gnnrt/kernels/Dropout.h: the same
// counter-based Philox masks (gnnrt/support/Random.h) element for element,
// so a CPU run and a GPU run of one program and seed drop the same values
// and give the same bits.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_CUDA_DROPOUT_H
#define GNNRT_KERNELS_CUDA_DROPOUT_H

#include <cstdint>

namespace gnnrt::kernels::cuda {

template <typename T>
void dropout(uint64_t seed, uint64_t stream, double p, int64_t n, const T *x,
             T *y);

/// rowIds is a device array (or null).
template <typename T>
void dropoutRows(uint64_t seed, uint64_t stream, double p, int64_t rows,
                 int64_t width, const int64_t *rowIds, const T *x, T *y);

} // namespace gnnrt::kernels::cuda

#endif // GNNRT_KERNELS_CUDA_DROPOUT_H
