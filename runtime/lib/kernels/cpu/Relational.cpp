//===- Relational.cpp - aggregate_relations and its adjoints on the CPU ---===//
//
// The three kernels share one view of the graph, RelationPairs: the
// (destination, relation) pairs that have edges, each with its edges listed
// contiguously in edge order. Built per call in O(E) (a stable counting sort
// of each destination's in-edges by relation), it turns every kernel into
// loops over pairs:
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

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gnnrt::kernels {

using namespace detail;

namespace {

/// The (destination, relation) pairs of a typed graph, destination-major
/// and by increasing relation within a destination.
struct RelationPairs {
  /// numDst + 1 offsets into the pair arrays.
  std::vector<int64_t> dstPairs;
  /// Per pair: its relation and its edges, edges[edgeBegin[p] ..
  /// edgeBegin[p + 1]) (edge ids, ascending).
  std::vector<int32_t> relation;
  std::vector<int64_t> edgeBegin;
  std::vector<int64_t> edges;
  /// Pair ids grouped by relation (relationPairs[relationBegin[r] ..
  /// relationBegin[r + 1]), ascending destinations).
  std::vector<int64_t> relationBegin, relationPairs;

  int64_t size() const { return int64_t(relation.size()); }
  int64_t count(int64_t p) const { return edgeBegin[p + 1] - edgeBegin[p]; }
};

void checkTyped(const GraphView &g, Reduce reduce, const char *kernel) {
  if (!isLinear(reduce))
    throw std::invalid_argument(std::string(kernel) +
                                ": only sum and mean are supported");
  if (g.numEdges > 0 && (!g.edgeType || g.numRelations <= 0))
    throw std::invalid_argument(std::string(kernel) +
                                ": the graph has no relation types");
}

RelationPairs relationPairs(const GraphView &g) {
  RelationPairs pairs;
  const int64_t numDst = g.numDst, R = g.numRelations;
  // Pass 1: how many pairs each destination has.
  std::vector<int64_t> pairCount(size_t(numDst) + 1, 0);
#pragma omp parallel if (worthThreads(g.numEdges))
  {
    std::vector<int64_t> seen(size_t(std::max<int64_t>(R, 1)), -1);
#pragma omp for schedule(dynamic, kNodeChunk)
    for (int64_t v = 0; v < numDst; ++v) {
      int64_t n = 0;
      for (int64_t k = g.inOffsets[v]; k < g.inOffsets[v + 1]; ++k) {
        int32_t r = g.edgeType[k];
        if (seen[r] != v) {
          seen[r] = v;
          ++n;
        }
      }
      pairCount[v + 1] = n;
    }
  }
  pairs.dstPairs.assign(size_t(numDst) + 1, 0);
  for (int64_t v = 0; v < numDst; ++v)
    pairs.dstPairs[v + 1] = pairs.dstPairs[v] + pairCount[v + 1];
  const int64_t P = pairs.dstPairs[numDst];
  pairs.relation.resize(size_t(P));
  pairs.edgeBegin.resize(size_t(P) + 1);
  pairs.edges.resize(size_t(g.numEdges));
  pairs.edgeBegin[P] = g.numEdges;
  // Pass 2: each destination's edges, stably sorted by relation (a pair's
  // edges keep edge order). A destination's edges stay in its own CSR
  // range, so its pairs' edge offsets start at inOffsets[v].
#pragma omp parallel if (worthThreads(g.numEdges))
  {
    std::vector<int64_t> slot(size_t(std::max<int64_t>(R, 1)), -1);
    std::vector<int32_t> rels;
#pragma omp for schedule(dynamic, kNodeChunk)
    for (int64_t v = 0; v < numDst; ++v) {
      const int64_t begin = g.inOffsets[v], end = g.inOffsets[v + 1];
      rels.clear();
      for (int64_t k = begin; k < end; ++k) {
        int32_t r = g.edgeType[k];
        if (slot[r] < 0) {
          slot[r] = 0;
          rels.push_back(r);
        }
        ++slot[r];
      }
      std::sort(rels.begin(), rels.end());
      int64_t p = pairs.dstPairs[v], offset = begin;
      for (int32_t r : rels) {
        pairs.relation[p] = r;
        pairs.edgeBegin[p] = offset;
        int64_t n = slot[r];
        slot[r] = offset; // now the next write position of relation r
        offset += n;
        ++p;
      }
      for (int64_t k = begin; k < end; ++k)
        pairs.edges[slot[g.edgeType[k]]++] = k;
      for (int32_t r : rels)
        slot[r] = -1;
    }
  }
  // Pairs by relation (a counting sort; destinations stay ascending).
  pairs.relationBegin.assign(size_t(R) + 1, 0);
  for (int64_t p = 0; p < P; ++p)
    ++pairs.relationBegin[pairs.relation[p] + 1];
  for (int64_t r = 0; r < R; ++r)
    pairs.relationBegin[r + 1] += pairs.relationBegin[r];
  pairs.relationPairs.resize(size_t(P));
  std::vector<int64_t> next(pairs.relationBegin.begin(),
                            pairs.relationBegin.end() - 1);
  for (int64_t p = 0; p < P; ++p)
    pairs.relationPairs[next[pairs.relation[p]]++] = p;
  return pairs;
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

/// Per edge, 1 / (messages of its pair) for a mean, else empty.
template <typename T>
std::vector<T> meanScales(const GraphView &g, Reduce reduce) {
  std::vector<T> scale;
  if (reduce != Reduce::Mean)
    return scale;
  const RelationPairs pairs = relationPairs(g);
  scale.resize(size_t(g.numEdges));
  for (int64_t p = 0; p < pairs.size(); ++p)
    for (int64_t i = pairs.edgeBegin[p]; i < pairs.edgeBegin[p + 1]; ++i)
      scale[pairs.edges[i]] = T(1) / T(pairs.count(p));
  return scale;
}

/// row[inWidth] = the reduction of pair p's source rows (in edge order).
template <typename T>
void reducePair(const GraphView &g, const RelationPairs &pairs, int64_t p,
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
  const RelationPairs pairs = relationPairs(g);
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
  const std::vector<T> edgeScale = meanScales<T>(g, reduce);
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
        const T scale = edgeScale.empty() ? T(1) : edgeScale[k];
        axpyRow(s, scale, dy + int64_t(g.edgeDst[k]) * outWidth, outWidth);
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
  const RelationPairs pairs = relationPairs(g);
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
  const RelationPairs pairs = relationPairs(g);
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
  const std::vector<T> scale = meanScales<T>(g, reduce);
  const int64_t matrix = tableRows * width;
  fillRow(dtable, T(0), g.numRelations * matrix);
  // Source u alone writes the rows id(u) of every relation's table.
#pragma omp parallel for schedule(dynamic, kNodeChunk) if (worthThreads(g.numEdges * width))
  for (int64_t u = 0; u < g.numSrc; ++u) {
    const int64_t id = nodeIds ? nodeIds[u] : u;
    for (int64_t i = g.outOffsets[u]; i < g.outOffsets[u + 1]; ++i) {
      const int64_t k = g.outEdges[i];
      axpyRow(dtable + g.edgeType[k] * matrix + id * width,
              scale.empty() ? T(1) : scale[k],
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
