//===- Aggregate.h - Message passing: reduce over in-edges ------*- C++ -*-===//
//
// gnn.aggregate and its two adjoints: each destination reduces the
// (weighted) rows of its in-edges' sources, and optionally its own row (a
// self loop), with sum, mean, max or min. The CPU kernels are declared here,
// the CUDA ones with the same signatures in gnnrt/kernels/cuda/Aggregate.h
// (Device.h).
//
// The order of a reduction is part of the contract, so that devices agree
// to the bit: a destination's messages are combined in edge order (the
// destination-major CSR's), the self loop last, starting from zero (or, with
// `accumulate`, from out's row); a mean multiplies the sum by
// 1 / (messages); max and min start from the first message and keep the
// larger (smaller) of it and each later one; a message is the source row,
// times its weight group's weight when there is a weight (as a separate
// multiply and add: no fused multiply-add).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_AGGREGATE_H
#define GNNRT_KERNELS_AGGREGATE_H

#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/Types.h"

#include <cstdint>

namespace gnnrt::kernels {

/// out[numDst, width]: the reduction over the in-edges of each destination
/// of the (weighted) source rows; with selfLoops each destination v also
/// receives its own row x[v] with weight 1 (and counts it for mean).
/// A destination with no messages gets zeros. With `accumulate` (sum only)
/// the reduction is added to out's rows instead (a partitioned aggregation
/// adds each remote part's share without a temporary).
template <typename T>
void aggregate(const GraphView &g, Reduce reduce, bool selfLoops, const T *x,
               int64_t width, const T *weight, int64_t weightWidth, T *out,
               bool accumulate = false);

/// aggregate (sum or mean, no weights) of the rows of x each scaled by its
/// source's rowScale[u] (rowScale[v] for v's self loop): the result of
/// aggregate over a scaled copy of x, to the bit (each term is rounded
/// rowScale[u] * x[u][j], as the copy's element was), without that copy's
/// [numSrc, width] buffer. GCN's kept `A(norm * X)` over wide features.
template <typename T>
void aggregateScaledRows(const GraphView &g, Reduce reduce, bool selfLoops,
                         const T *x, const T *rowScale, int64_t width, T *out);

/// dx[numSrc, width] = d(loss)/dx given dy = d(loss)/d(out) of aggregate.
/// `out` is the forward result (used by max/min to find the winner: the
/// first message, in edge order with the self loop last, equal to it).
template <typename T>
void aggregateGradInput(const GraphView &g, Reduce reduce, bool selfLoops,
                        const T *dy, const T *x, const T *out, int64_t width,
                        const T *weight, int64_t weightWidth, T *dx);

/// dweight[numEdges, weightWidth] for aggregate's weight (sum and mean; for
/// max/min the winning edge gets dy * x).
template <typename T>
void aggregateGradWeight(const GraphView &g, Reduce reduce, bool selfLoops,
                         const T *dy, const T *x, const T *out, int64_t width,
                         const T *weight, int64_t weightWidth, T *dweight);

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_AGGREGATE_H
