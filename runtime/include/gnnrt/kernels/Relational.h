//===- Relational.h - Relation-batched aggregation (R-GCN) ------*- C++ -*-===//
//
// gnn.aggregate_relations and its two adjoints: every destination v sums,
// over the relations r of its in-edges, the reduction of its relation-r
// messages transformed by that relation's own weight matrix:
//
//   out[v] = sum_r ( reduce_{k in in(v), type(k) = r} x[src(k)] ) @ w[r]
//
// with reduce a sum or a mean (Schlichtkrull et al.'s 1/c_{v,r} = 1/|N_r(v)|).
// One call covers all relations: a heterogeneous graph's R relations cost
// one pass over the edges and, per relation, GEMMs over the reduced rows of
// its (destination, relation) pairs, never R separate aggregations or an
// [N, R, F] intermediate.
//
// Order (part of the contract, as for aggregate): a pair's messages are
// added in edge order; a destination's pairs are taken in increasing
// relation; the adjoints reduce in the same fixed orders, so results do not
// depend on the thread count.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_RELATIONAL_H
#define GNNRT_KERNELS_RELATIONAL_H

#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/Types.h"

#include <cstdint>

namespace gnnrt::kernels {

/// out[numDst, outWidth] as above; w is [g.numRelations, inWidth, outWidth].
/// Needs g.edgeType (every id in [0, numRelations)); reduce is Sum or Mean.
/// Throws std::invalid_argument for another reduction or a graph without
/// edge types.
template <typename T>
void aggregateRelations(const GraphView &g, Reduce reduce, const T *x,
                        int64_t inWidth, const T *w, int64_t outWidth, T *out);

/// dx[numSrc, inWidth]: each source receives, per out-edge k of relation r,
/// dy[dst(k)] @ w[r]^T (scaled by 1/c for a mean).
template <typename T>
void aggregateRelationsGradInput(const GraphView &g, Reduce reduce,
                                 const T *dy, const T *w, int64_t inWidth,
                                 int64_t outWidth, T *dx);

/// dw[numRelations, inWidth, outWidth]: per relation r, the sum over its
/// (destination, relation) pairs of reduced-messages^T @ dy[destination].
template <typename T>
void aggregateRelationsGradWeight(const GraphView &g, Reduce reduce,
                                  const T *dy, const T *x, int64_t inWidth,
                                  int64_t outWidth, T *dw);

/// R-GCN's input layer for featureless nodes (a one-hot input per node):
/// out[numDst, width] = sum_r reduce_{k in in(v), type(k) = r}
/// table[r][id(src(k))], where table is [numRelations, tableRows, width]
/// and id(u) is nodeIds[u] (the whole graph's id of a partition's or a
/// block's node), or u itself when nodeIds is null. Throws
/// std::out_of_range for an id at or beyond tableRows.
template <typename T>
void aggregateRelationRows(const GraphView &g, Reduce reduce, const T *table,
                           int64_t tableRows, int64_t width,
                           const int64_t *nodeIds, T *out);

/// dtable[numRelations, tableRows, width] of aggregateRelationRows: the rows
/// of the graph's sources get their messages' gradients, all others 0.
template <typename T>
void aggregateRelationRowsGrad(const GraphView &g, Reduce reduce, const T *dy,
                               int64_t tableRows, int64_t width,
                               const int64_t *nodeIds, T *dtable);

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_RELATIONAL_H
