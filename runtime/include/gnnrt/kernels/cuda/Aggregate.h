//===- Aggregate.h - aggregate and its adjoints on CUDA devices -*- C++ -*-===//
//
// The CUDA implementations of gnnrt/kernels/Aggregate.h: the same
// signatures and semantics over device memory (every pointer, the
// GraphView's arrays included, is a device pointer; Device.h), queued on
// the current stream (Stream.h). They follow that header's order of
// operations, so aggregate and aggregateGradInput give the CPU kernels'
// bits (NaN payloads aside); aggregateGradWeight sums each weight's dot
// product across a warp, in a different order than the CPU's, so it agrees
// to rounding.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_CUDA_AGGREGATE_H
#define GNNRT_KERNELS_CUDA_AGGREGATE_H

#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/Types.h"

#include <cstdint>

namespace gnnrt::kernels::cuda {

/// kernels::aggregate (reads numDst, inOffsets and edgeSrc of `g`). Throws
/// std::invalid_argument for `accumulate` with any reduction but a sum.
template <typename T>
void aggregate(const GraphView &g, Reduce reduce, bool selfLoops, const T *x,
               int64_t width, const T *weight, int64_t weightWidth, T *out,
               bool accumulate = false);

/// kernels::aggregateGradInput (reads the source-major arrays too: each
/// source sums over its out-edges, without atomics).
template <typename T>
void aggregateGradInput(const GraphView &g, Reduce reduce, bool selfLoops,
                        const T *dy, const T *x, const T *out, int64_t width,
                        const T *weight, int64_t weightWidth, T *dx);

/// kernels::aggregateGradWeight.
template <typename T>
void aggregateGradWeight(const GraphView &g, Reduce reduce, bool selfLoops,
                         const T *dy, const T *x, const T *out, int64_t width,
                         const T *weight, int64_t weightWidth, T *dweight);

} // namespace gnnrt::kernels::cuda

#endif // GNNRT_KERNELS_CUDA_AGGREGATE_H
