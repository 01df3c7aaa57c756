//===- Dropout.h - Inverted dropout with counter-based masks ----*- C++ -*-===//
//
// Dropout draws its mask from Philox (gnnrt/support/Random.h) keyed by the
// element's position, not from a stateful generator: the backward pass
// recomputes the forward's mask instead of storing it, and a distributed
// or sampled run drops exactly what one process over the whole graph
// would.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_DROPOUT_H
#define GNNRT_KERNELS_DROPOUT_H

#include <cstdint>

namespace gnnrt::kernels {

/// Inverted dropout with a counter-based mask: element i is kept (and scaled
/// by 1/(1-p)) iff 16-bit lane i % 8 of randomBits(seed, stream, i / 8) is at
/// least ceil(p * 2^16). The mask depends on (seed, stream, i) alone, so
/// calling it again with the same (seed, stream) on the adjoint applies the
/// same mask (dropout's backward).
template <typename T>
void dropout(uint64_t seed, uint64_t stream, double p, int64_t n, const T *x,
             T *y);

/// dropout() of a [rows, width] node tensor whose row r is global node
/// rowIds[r] (null: row r is node r): each element's mask is that of the
/// same element in the whole graph's tensor, wherever the row is stored.
template <typename T>
void dropoutRows(uint64_t seed, uint64_t stream, double p, int64_t rows,
                 int64_t width, const int64_t *rowIds, const T *x, T *y);

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_DROPOUT_H
