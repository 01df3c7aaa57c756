//===- Edge.h - Per-edge values: gather, scatter, edge softmax --*- C++ -*-===//
//
// The kernels of programs that compute on edges (attention, edge features):
// reading node rows onto edges, reducing edge rows onto destinations, the
// softmax over each destination's in-edges, node degrees, and their
// adjoints. Per-edge tensors follow GraphView's edge numbering.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_EDGE_H
#define GNNRT_KERNELS_EDGE_H

#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/Types.h"

#include <cstdint>

namespace gnnrt::kernels {

/// out[numEdges, width] = rows of x at each edge's `side` endpoint.
template <typename T>
void gather(const GraphView &g, Side side, const T *x, int64_t width, T *out);

/// The adjoint of gather: dx[numSrc or numDst rows, width] = sum of de over
/// the edges whose `side` endpoint is that node.
template <typename T>
void gatherGrad(const GraphView &g, Side side, const T *de, int64_t width,
                T *dx);

/// out[numDst, width] = reduction of the edge rows e[numEdges, width] over
/// each destination's in-edges (zeros without in-edges).
template <typename T>
void scatter(const GraphView &g, Reduce reduce, const T *e, int64_t width,
             T *out);

/// de[numEdges, width] given dy of scatter; `out` is scatter's result (used
/// by max/min to find the winner: the first in-edge equal to it).
template <typename T>
void scatterGrad(const GraphView &g, Reduce reduce, const T *dy, const T *e,
                 const T *out, int64_t width, T *de);

/// out[numEdges, width] = softmax of scores over each destination's in-edges,
/// independently for each of the `width` columns.
template <typename T>
void edgeSoftmax(const GraphView &g, const T *scores, int64_t width, T *out);

/// ds = y * (dy - sum over the destination's in-edges of y * dy).
template <typename T>
void edgeSoftmaxGrad(const GraphView &g, const T *dy, const T *y,
                     int64_t width, T *ds);

/// out[n, 1]: out-degree of each source (side Src, n = numSrc) or in-degree
/// of each destination (side Dst, n = numDst).
template <typename T> void degree(const GraphView &g, Side side, T *out);

/// out[numSrc, 1]: 1 for each source whose whole-graph id (nodeIds[u], or u
/// when null) lies in `type`, 0 for the others (`node_type(g, "name")`).
template <typename T>
void nodeTypeIndicator(const GraphView &g, const int64_t *nodeIds,
                       IdRange type, T *out);

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_EDGE_H
