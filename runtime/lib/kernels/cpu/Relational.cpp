//===- Relational.cpp - aggregate_relations and its adjoints on the CPU ---===//
//
// The kernels share one view of the graph, its RelationIndex
// (graph/RelationIndex.h): the (destination, relation) pairs that have
// edges, each with its edges listed contiguously in edge order. The graph's
// storage builds it once; it turns every kernel into loops over pairs:
//   - forward, relation by relation, in chunks of that relation's pairs:
//     reduce each pair's source rows into a row of inWidth (in parallel),
//     transform the chunk with one GEMM by w[r], add each result row into
//     its pair's destination (distinct within a relation);
//   - input adjoint, parallel over sources: group a source's out-edges by
//     relation, sum the (scaled) output gradients of each group, multiply by
//     w[r]^T once per group;
//   - weight adjoint, the forward's chunks again: w[r]'s gradient adds
//     each chunk's reduced rows^T times its destinations' gradients (GEMM).
// Each output row belongs to one iteration that adds in a fixed order, so
// results do not depend on the thread count (Common.h).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Relational.h"

#include "gnnrt/kernels/Gemm.h"

#include "Common.h"
#include "gnnrt/graph/RelationIndex.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gnnrt::kernels {

using namespace detail;

namespace {

void checkTyped(const GraphView &g, Reduce reduce, const char *kernel) {
  if (!isLinear(reduce))
    throw std::invalid_argument(std::string(kernel) +
                                ": only sum and mean are supported");
  if (g.numEdges > 0 && (!g.edgeType || g.numRelations <= 0))
    throw std::invalid_argument(std::string(kernel) +
                                ": the graph has no relation types");
}

/// The graph's own index when its view carries one, else `local`, built.
const RelationIndex &indexOf(const GraphView &g, RelationIndex &local) {
  if (g.relationIndex && g.relationIndex->describes(g))
    return *g.relationIndex;
  local = buildRelationIndex(g);
  return local;
}

/// Checks that every source's whole-graph id (nodeIds[u], or u) has a row
/// in a table of `tableRows` rows.
void checkTableRows(const int64_t *nodeIds, int64_t numSrc,
                    int64_t tableRows) {
  for (int64_t u = 0; u < numSrc; ++u) {
    const int64_t id = nodeIds ? nodeIds[u] : u;
    if (id < 0 || id >= tableRows)
      throw std::out_of_range("aggregateRelationRows: node " +
                              std::to_string(id) + " has no row in a table of " +
                              std::to_string(tableRows) + " rows");
  }
}

/// The factor of edge k's message: 1 / (messages of its pair) for a mean.
template <typename T> class MessageScale {
public:
  MessageScale(const RelationIndex &index, Reduce reduce)
      : sizes(reduce == Reduce::Mean ? index.pairSizeOfEdge.data() : nullptr) {}
  T operator()(int64_t k) const { return sizes ? T(1) / T(sizes[k]) : T(1); }

private:
  const int32_t *sizes;
};

/// row[width] = the sum of rows[node(k)] over pair p's edges k (in their
/// order), each scaled by scale(k); node(k) is the edge's other end.
template <typename T, typename Node, typename Scale>
void sumPair(const RelationPairs &pairs, int64_t p, const Node &node,
             const Scale &scale, const T *rows, int64_t width, T *row) {
  fillRow(row, T(0), width);
  const int64_t end = pairs.edgeBegin[p + 1];
  for (int64_t i = pairs.edgeBegin[p]; i < end; ++i) {
    if (i + kPrefetchEdges < end)
      prefetchRow(rows + node(pairs.edges[i + kPrefetchEdges]) * width, width);
    axpyRow(row, scale(pairs.edges[i]), rows + node(pairs.edges[i]) * width,
            width);
  }
}

/// For each relation r in turn, in chunks of at most kPairChunk of its
/// pairs on one side: gathered[count, width] holds each pair's sum of
/// rows[node(k)] (scaled by scale(k)), then visit(r, first, count,
/// gathered) transforms the chunk with one GEMM by r's matrix rather than a
/// vector-matrix product per pair. Within a relation every pair has its own
/// node, so visit may write node rows in parallel; relations come in
/// increasing order, so a node's sum over relations has a fixed order.
template <typename T, typename Node, typename Scale, typename Visit>
void forEachRelationChunk(const RelationPairs &pairs, int32_t numRelations,
                          const Node &node, const Scale &scale, const T *rows,
                          int64_t width, std::vector<T> &gathered,
                          const Visit &visit) {
  constexpr int64_t kPairChunk = 2048;
  for (int32_t r = 0; r < numRelations; ++r)
    for (int64_t first = pairs.relationBegin[r];
         first < pairs.relationBegin[r + 1]; first += kPairChunk) {
      const int64_t count =
          std::min(kPairChunk, pairs.relationBegin[r + 1] - first);
      gathered.resize(size_t(count * width));
#pragma omp parallel for schedule(dynamic, kNodeChunk) if (worthThreads(count * width * 8))
      for (int64_t i = 0; i < count; ++i)
        sumPair(pairs, pairs.relationPairs[first + i], node, scale, rows,
                width, gathered.data() + i * width);
      visit(r, first, count, gathered.data());
    }
}

/// For every pair p of `pairs` (relation r): out[node(p)] += (the sum over
/// p's edges k of scale(k) rows[other(k)]) @ op(w[r]), op transposing
/// w[r] ([rowWidth, outWidth], or [outWidth, rowWidth] when transposeW),
/// out zeroed first. The forward is this over (destination, relation)
/// pairs of source rows; the input adjoint over (source, relation) pairs of
/// output gradients, with w[r]^T.
template <typename T, typename Other>
void transformPairs(const GraphView &g, const RelationPairs &pairs,
                    const Other &other, const MessageScale<T> &scale,
                    const T *rows, int64_t rowWidth, const T *w,
                    bool transposeW, int64_t outWidth, int64_t outRows,
                    T *out) {
  fillRow(out, T(0), outRows * outWidth);
  const int64_t matrix = rowWidth * outWidth;
  std::vector<T> summed, transformed;
  forEachRelationChunk(
      pairs, g.numRelations, other, scale, rows, rowWidth, summed,
      [&](int32_t r, int64_t first, int64_t count, const T *chunk) {
        transformed.resize(size_t(count * outWidth));
        gemm<T>(false, transposeW, count, outWidth, rowWidth, chunk,
                w + r * matrix, transformed.data());
        // Within a relation every pair has its own node.
#pragma omp parallel for if (worthThreads(count * outWidth * 8))
        for (int64_t i = 0; i < count; ++i)
          addRow(out + pairs.pairNode[pairs.relationPairs[first + i]] *
                           outWidth,
                 transformed.data() + i * outWidth, outWidth);
      });
}

} // namespace

template <typename T>
void aggregateRelations(const GraphView &g, Reduce reduce, const T *x,
                        int64_t inWidth, const T *w, int64_t outWidth,
                        T *out) {
  checkTyped(g, reduce, "aggregateRelations");
  RelationIndex local;
  const RelationIndex &index = indexOf(g, local);
  transformPairs(
      g, index.byDst, [&](int64_t k) { return int64_t(g.edgeSrc[k]); },
      MessageScale<T>(index, reduce), x, inWidth, w, /*transposeW=*/false,
      outWidth, g.numDst, out);
}

template <typename T>
void aggregateRelationsGradInput(const GraphView &g, Reduce reduce,
                                 const T *dy, const T *w, int64_t inWidth,
                                 int64_t outWidth, T *dx) {
  checkTyped(g, reduce, "aggregateRelationsGradInput");
  // Per (source, relation) pair: its edges' scaled output gradients summed,
  // then times w[r]^T.
  RelationIndex local;
  const RelationIndex &index = indexOf(g, local);
  transformPairs(
      g, index.bySrc, [&](int64_t k) { return int64_t(g.edgeDst[k]); },
      MessageScale<T>(index, reduce), dy, outWidth, w, /*transposeW=*/true,
      inWidth, g.numSrc, dx);
}

template <typename T>
void aggregateRelationsGradWeight(const GraphView &g, Reduce reduce,
                                  const T *dy, const T *x, int64_t inWidth,
                                  int64_t outWidth, T *dw) {
  checkTyped(g, reduce, "aggregateRelationsGradWeight");
  RelationIndex local;
  const RelationIndex &index = indexOf(g, local);
  const RelationPairs &pairs = index.byDst;
  const MessageScale<T> scale(index, reduce);
  const int64_t matrix = inWidth * outWidth;
  fillRow(dw, T(0), g.numRelations * matrix);
  std::vector<T> reduced, grads;
  // dw[r] = sum over r's pairs of reduced^T dy[destination], a chunk at a
  // time (in chunk order, so the sum does not depend on the thread count).
  forEachRelationChunk(
      pairs, g.numRelations, [&](int64_t k) { return int64_t(g.edgeSrc[k]); },
      scale, x, inWidth, reduced,
      [&](int32_t r, int64_t first, int64_t count, const T *rows) {
        grads.resize(size_t(count * outWidth));
        for (int64_t i = 0; i < count; ++i)
          std::copy_n(dy + pairs.pairNode[pairs.relationPairs[first + i]] *
                               outWidth,
                      outWidth, grads.data() + i * outWidth);
        gemm<T>(true, false, inWidth, outWidth, count, rows, grads.data(),
                dw + r * matrix, /*accumulate=*/true);
      });
}

template <typename T>
void aggregateRelationRows(const GraphView &g, Reduce reduce, const T *table,
                           int64_t tableRows, int64_t width,
                           const int64_t *nodeIds, T *out) {
  checkTyped(g, reduce, "aggregateRelationRows");
  checkTableRows(nodeIds, g.numSrc, tableRows);
  RelationIndex local;
  const RelationPairs &pairs = indexOf(g, local).byDst;
  const int64_t matrix = tableRows * width;
#pragma omp parallel if (worthThreads(g.numEdges * width))
  {
    std::vector<T> row(static_cast<size_t>(width));
#pragma omp for schedule(dynamic, kNodeChunk)
    for (int64_t v = 0; v < g.numDst; ++v) {
      T *y = out + v * width;
      fillRow(y, T(0), width);
      for (int64_t p = pairs.nodePairs[v]; p < pairs.nodePairs[v + 1]; ++p) {
        const T *rows = table + pairs.relation[p] * matrix;
        fillRow(row.data(), T(0), width);
        for (int64_t i = pairs.edgeBegin[p]; i < pairs.edgeBegin[p + 1]; ++i) {
          const int64_t u = g.edgeSrc[pairs.edges[i]];
          addRow(row.data(), rows + (nodeIds ? nodeIds[u] : u) * width, width);
        }
        if (reduce == Reduce::Mean)
          scaleRow(row.data(), T(1) / T(pairs.count(p)), width);
        addRow(y, row.data(), width);
      }
    }
  }
}

template <typename T>
void aggregateRelationRowsGrad(const GraphView &g, Reduce reduce, const T *dy,
                               int64_t tableRows, int64_t width,
                               const int64_t *nodeIds, T *dtable) {
  checkTyped(g, reduce, "aggregateRelationRowsGrad");
  checkTableRows(nodeIds, g.numSrc, tableRows);
  RelationIndex local;
  const MessageScale<T> scale(indexOf(g, local), reduce);
  const int64_t matrix = tableRows * width;
  fillRow(dtable, T(0), g.numRelations * matrix);
  // Source u alone writes the rows id(u) of every relation's table.
#pragma omp parallel for schedule(dynamic, kNodeChunk) if (worthThreads(g.numEdges * width))
  for (int64_t u = 0; u < g.numSrc; ++u) {
    const int64_t id = nodeIds ? nodeIds[u] : u;
    for (int64_t i = g.outOffsets[u]; i < g.outOffsets[u + 1]; ++i) {
      const int64_t k = g.outEdges[i];
      axpyRow(dtable + g.edgeType[k] * matrix + id * width,
              scale(k),
              dy + int64_t(g.edgeDst[k]) * width, width);
    }
  }
}

namespace {

void checkRelationRows(const GraphView &g, int64_t tableRows,
                       const char *kernel) {
  if (g.numEdges > 0 && !g.edgeType)
    throw std::invalid_argument(std::string(kernel) +
                                ": the graph's edges have no relations");
  for (int64_t k = 0; k < g.numEdges; ++k)
    if (g.edgeType[k] < 0 || g.edgeType[k] >= tableRows)
      throw std::out_of_range(
          std::string(kernel) + ": edge " + std::to_string(k) +
          " has relation " + std::to_string(g.edgeType[k]) +
          ", but the table has " + std::to_string(tableRows) + " rows");
}

} // namespace

template <typename T>
void gatherRelation(const GraphView &g, const T *table, int64_t tableRows,
                    int64_t width, T *out) {
  checkRelationRows(g, tableRows, "gatherRelation");
#pragma omp parallel for schedule(static) if (worthThreads(g.numEdges * width))
  for (int64_t k = 0; k < g.numEdges; ++k)
    std::copy(table + int64_t(g.edgeType[k]) * width,
              table + int64_t(g.edgeType[k] + 1) * width, out + k * width);
}

template <typename T>
void gatherRelationGrad(const GraphView &g, const T *de, int64_t tableRows,
                        int64_t width, T *dtable) {
  checkRelationRows(g, tableRows, "gatherRelationGrad");
  fillRow(dtable, T(0), tableRows * width);
  // Few relations, many edges: each thread owns a band of columns of every
  // row and adds the edges in order, so sums do not depend on the threads.
  const int64_t band = 16;
  const int64_t bands = (width + band - 1) / band;
#pragma omp parallel for schedule(static) if (worthThreads(g.numEdges * width))
  for (int64_t b = 0; b < bands; ++b) {
    const int64_t begin = b * band, end = std::min(width, begin + band);
    for (int64_t k = 0; k < g.numEdges; ++k) {
      T *row = dtable + int64_t(g.edgeType[k]) * width;
      const T *d = de + k * width;
      for (int64_t j = begin; j < end; ++j)
        row[j] += d[j];
    }
  }
}

//===--- Instantiations ---------------------------------------------------===//

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Relational.def"
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels
