//===- Relational.cpp - aggregate_relations and its adjoints on the CPU ---===//
//
// The kernels share one view of the graph, its RelationIndex
// (graph/RelationIndex.h): the (destination, relation) pairs that have
// edges, each with its edges listed contiguously in edge order. The graph's
// storage builds it once; it turns every kernel into loops over pairs:
//   - forward, parallel over destinations: reduce a pair's source rows into
//     a row of inWidth, multiply it by w[r] into the destination's output;
//   - input adjoint, parallel over sources: group a source's out-edges by
//     relation, sum the (scaled) output gradients of each group, multiply by
//     w[r]^T once per group;
//   - weight adjoint, parallel over relations: each relation's pairs add
//     their reduced row's outer product with dy into w[r]'s gradient.
// Each output row belongs to one iteration that adds in a fixed order, so
// results do not depend on the thread count (Common.h).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Relational.h"

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
  MessageScale(const GraphView &g, Reduce reduce)
      : sizes(reduce == Reduce::Mean ? indexOf(g, local).pairSizeOfEdge.data()
                                     : nullptr) {}
  T operator()(int64_t k) const { return sizes ? T(1) / T(sizes[k]) : T(1); }

private:
  RelationIndex local;
  const int32_t *sizes;
};

/// row[inWidth] = the reduction of pair p's source rows (in edge order).
template <typename T>
void reducePair(const GraphView &g, const RelationIndex &pairs, int64_t p,
                Reduce reduce, const T *x, int64_t inWidth, T *row) {
  fillRow(row, T(0), inWidth);
  for (int64_t i = pairs.edgeBegin[p]; i < pairs.edgeBegin[p + 1]; ++i) {
    if (i + kPrefetchEdges < pairs.edgeBegin[p + 1])
      prefetchRow(x + int64_t(g.edgeSrc[pairs.edges[i + kPrefetchEdges]]) *
                          inWidth,
                  inWidth);
    addRow(row, x + int64_t(g.edgeSrc[pairs.edges[i]]) * inWidth, inWidth);
  }
  if (reduce == Reduce::Mean)
    scaleRow(row, T(1) / T(pairs.count(p)), inWidth);
}

/// y[outWidth] += a[inWidth] @ w[inWidth, outWidth].
template <typename T>
void addVecMat(T *__restrict y, const T *__restrict a, const T *__restrict w,
               int64_t inWidth, int64_t outWidth) {
  for (int64_t i = 0; i < inWidth; ++i)
    axpyRow(y, a[i], w + i * outWidth, outWidth);
}

/// y[inWidth] += w[inWidth, outWidth] @ a[outWidth].
template <typename T>
void addMatVec(T *__restrict y, const T *__restrict w, const T *__restrict a,
               int64_t inWidth, int64_t outWidth) {
  for (int64_t i = 0; i < inWidth; ++i) {
    const T *wi = w + i * outWidth;
    T s = 0;
    for (int64_t j = 0; j < outWidth; ++j)
      s += wi[j] * a[j];
    y[i] += s;
  }
}

} // namespace

template <typename T>
void aggregateRelations(const GraphView &g, Reduce reduce, const T *x,
                        int64_t inWidth, const T *w, int64_t outWidth,
                        T *out) {
  checkTyped(g, reduce, "aggregateRelations");
  RelationIndex local;
  const RelationIndex &pairs = indexOf(g, local);
  const int64_t matrix = inWidth * outWidth;
#pragma omp parallel if (worthThreads(pairs.size() * matrix + g.numEdges * inWidth))
  {
    std::vector<T> row(static_cast<size_t>(inWidth));
#pragma omp for schedule(dynamic, kNodeChunk)
    for (int64_t v = 0; v < g.numDst; ++v) {
      T *y = out + v * outWidth;
      fillRow(y, T(0), outWidth);
      for (int64_t p = pairs.dstPairs[v]; p < pairs.dstPairs[v + 1]; ++p) {
        reducePair(g, pairs, p, reduce, x, inWidth, row.data());
        addVecMat(y, row.data(), w + pairs.relation[p] * matrix, inWidth,
                  outWidth);
      }
    }
  }
}

template <typename T>
void aggregateRelationsGradInput(const GraphView &g, Reduce reduce,
                                 const T *dy, const T *w, int64_t inWidth,
                                 int64_t outWidth, T *dx) {
  checkTyped(g, reduce, "aggregateRelationsGradInput");
  // A mean scales each message by 1/c of its pair.
  const MessageScale<T> edgeScale(g, reduce);
  const int64_t R = g.numRelations, matrix = inWidth * outWidth;
#pragma omp parallel if (worthThreads(g.numEdges * matrix))
  {
    // Per relation met at this source: the summed output gradients.
    std::vector<T> sums(size_t(std::max<int64_t>(R, 1) * outWidth));
    std::vector<int32_t> rels;
    std::vector<char> met(size_t(std::max<int64_t>(R, 1)), 0);
#pragma omp for schedule(dynamic, kNodeChunk)
    for (int64_t u = 0; u < g.numSrc; ++u) {
      rels.clear();
      for (int64_t i = g.outOffsets[u]; i < g.outOffsets[u + 1]; ++i) {
        const int64_t k = g.outEdges[i];
        const int32_t r = g.edgeType[k];
        T *s = sums.data() + r * outWidth;
        if (!met[r]) {
          met[r] = 1;
          rels.push_back(r);
          fillRow(s, T(0), outWidth);
        }
        axpyRow(s, edgeScale(k), dy + int64_t(g.edgeDst[k]) * outWidth, outWidth);
      }
      std::sort(rels.begin(), rels.end());
      T *d = dx + u * inWidth;
      fillRow(d, T(0), inWidth);
      for (int32_t r : rels) {
        addMatVec(d, w + r * matrix, sums.data() + r * outWidth, inWidth,
                  outWidth);
        met[r] = 0;
      }
    }
  }
}

template <typename T>
void aggregateRelationsGradWeight(const GraphView &g, Reduce reduce,
                                  const T *dy, const T *x, int64_t inWidth,
                                  int64_t outWidth, T *dw) {
  checkTyped(g, reduce, "aggregateRelationsGradWeight");
  RelationIndex local;
  const RelationIndex &pairs = indexOf(g, local);
  const int64_t R = g.numRelations, matrix = inWidth * outWidth;
  std::vector<int64_t> dstOfPair(size_t(pairs.size()));
  for (int64_t v = 0; v < g.numDst; ++v)
    for (int64_t p = pairs.dstPairs[v]; p < pairs.dstPairs[v + 1]; ++p)
      dstOfPair[p] = v;
#pragma omp parallel if (worthThreads(pairs.size() * matrix))
  {
    std::vector<T> row(static_cast<size_t>(inWidth));
#pragma omp for schedule(dynamic, 1)
    for (int64_t r = 0; r < R; ++r) {
      T *d = dw + r * matrix;
      fillRow(d, T(0), matrix);
      for (int64_t i = pairs.relationBegin[r]; i < pairs.relationBegin[r + 1];
           ++i) {
        const int64_t p = pairs.relationPairs[i];
        reducePair(g, pairs, p, reduce, x, inWidth, row.data());
        const T *grad = dy + dstOfPair[p] * outWidth;
        for (int64_t a = 0; a < inWidth; ++a)
          axpyRow(d + a * outWidth, row[a], grad, outWidth);
      }
    }
  }
}

template <typename T>
void aggregateRelationRows(const GraphView &g, Reduce reduce, const T *table,
                           int64_t tableRows, int64_t width,
                           const int64_t *nodeIds, T *out) {
  checkTyped(g, reduce, "aggregateRelationRows");
  checkTableRows(nodeIds, g.numSrc, tableRows);
  RelationIndex local;
  const RelationIndex &pairs = indexOf(g, local);
  const int64_t matrix = tableRows * width;
#pragma omp parallel if (worthThreads(g.numEdges * width))
  {
    std::vector<T> row(static_cast<size_t>(width));
#pragma omp for schedule(dynamic, kNodeChunk)
    for (int64_t v = 0; v < g.numDst; ++v) {
      T *y = out + v * width;
      fillRow(y, T(0), width);
      for (int64_t p = pairs.dstPairs[v]; p < pairs.dstPairs[v + 1]; ++p) {
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
  const MessageScale<T> scale(g, reduce);
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

//===--- Instantiations ---------------------------------------------------===//

#define GNNRT_INSTANTIATE(T)                                                   \
  template void aggregateRelations<T>(const GraphView &, Reduce, const T *,    \
                                      int64_t, const T *, int64_t, T *);       \
  template void aggregateRelationsGradInput<T>(                                \
      const GraphView &, Reduce, const T *, const T *, int64_t, int64_t, T *); \
  template void aggregateRelationsGradWeight<T>(                               \
      const GraphView &, Reduce, const T *, const T *, int64_t, int64_t, T *); \
  template void aggregateRelationRows<T>(const GraphView &, Reduce, const T *, \
                                         int64_t, int64_t, const int64_t *,    \
                                         T *);                                 \
  template void aggregateRelationRowsGrad<T>(const GraphView &, Reduce,        \
                                             const T *, int64_t, int64_t,      \
                                             const int64_t *, T *);

GNNRT_INSTANTIATE(float)
GNNRT_INSTANTIATE(double)

#undef GNNRT_INSTANTIATE

} // namespace gnnrt::kernels
