//===- Edge.h - Per-edge kernels on CUDA devices ----------------*- C++ -*-===//
//
// The CUDA implementations of gnnrt/kernels/Edge.h, with the same
// signatures over device memory (Device.h). Each output row (an edge, a
// destination or a source) is computed by one warp in the CPU kernel's
// order, without atomics, so results are deterministic and equal the CPU
// kernels' bits (the exponentials of the edge softmax aside, which a device
// computes with its own libm).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_CUDA_EDGE_H
#define GNNRT_KERNELS_CUDA_EDGE_H

#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/Types.h"

#include <cstdint>

namespace gnnrt::kernels::cuda {

template <typename T>
void gather(const GraphView &g, Side side, const T *x, int64_t width, T *out);

template <typename T>
void gatherGrad(const GraphView &g, Side side, const T *de, int64_t width,
                T *dx);

template <typename T>
void scatter(const GraphView &g, Reduce reduce, const T *e, int64_t width,
             T *out);

template <typename T>
void scatterGrad(const GraphView &g, Reduce reduce, const T *dy, const T *e,
                 const T *out, int64_t width, T *de);

template <typename T>
void edgeSoftmax(const GraphView &g, const T *scores, int64_t width, T *out);

template <typename T>
void edgeSoftmaxGrad(const GraphView &g, const T *dy, const T *y, int64_t width,
                     T *ds);

template <typename T> void degree(const GraphView &g, Side side, T *out);

/// kernels::nodeTypeIndicator: nodeIds is a device array (or null: the
/// sources' rows are their ids).
template <typename T>
void nodeTypeIndicator(const GraphView &g, const int64_t *nodeIds,
                       IdRange type, T *out);

} // namespace gnnrt::kernels::cuda

#endif // GNNRT_KERNELS_CUDA_EDGE_H
