//===- Edge.cpp - Per-edge kernels on the CPU -----------------------------===//
//
// Gather, scatter, edge softmax and degrees: each parallel loop owns its
// output rows (destinations, sources or edges), so no two threads add into
// the same row.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Edge.h"

#include "ColumnSoftmax.h"
#include "Common.h"
#include "Messages.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace gnnrt::kernels {

using namespace detail;

template <typename T>
void gather(const GraphView &g, Side side, const T *x, int64_t width, T *out) {
  const int32_t *node = side == Side::Src ? g.edgeSrc : g.edgeDst;
  const bool threaded = worthThreads(g.numEdges * width);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t k = 0; k < g.numEdges; ++k)
    std::memcpy(out + k * width, x + int64_t(node[k]) * width,
                size_t(width) * sizeof(T));
}

template <typename T>
void gatherGrad(const GraphView &g, Side side, const T *de, int64_t width,
                T *dx) {
  if (side == Side::Dst) {
    const bool threaded = worthThreads(graphWork(g, width));
#pragma omp parallel for schedule(dynamic, kNodeChunk) if (threaded)
    for (int64_t v = 0; v < g.numDst; ++v) {
      T *d = dx + v * width;
      fillRow(d, T(0), width);
      for (int64_t k = g.inOffsets[v]; k < g.inOffsets[v + 1]; ++k)
        addRow(d, de + k * width, width);
    }
    return;
  }
  const bool threaded = worthThreads(graphWork(g, width));
#pragma omp parallel for schedule(dynamic, kNodeChunk) if (threaded)
  for (int64_t u = 0; u < g.numSrc; ++u) {
    T *d = dx + u * width;
    fillRow(d, T(0), width);
    for (int64_t i = g.outOffsets[u]; i < g.outOffsets[u + 1]; ++i) {
      // Out-edge ids are ascending but sparse: their rows are far apart.
      if (i + kPrefetchEdges < g.numEdges)
        prefetchRow(de + g.outEdges[i + kPrefetchEdges] * width, width);
      addRow(d, de + g.outEdges[i] * width, width);
    }
  }
}

template <typename T>
void scatter(const GraphView &g, Reduce reduce, const T *e, int64_t width,
             T *out) {
  reduceMessages(edgeMessages(g, e, width), reduce, out);
}

template <typename T>
void scatterGrad(const GraphView &g, Reduce reduce, const T *dy, const T *e,
                 const T *out, int64_t width, T *de) {
  const Messages<T> m = edgeMessages(g, e, width);
  const bool threaded = worthThreads(graphWork(g, width));
#pragma omp parallel if (threaded)
  {
    std::vector<int32_t> winner(isLinear(reduce) ? 0 : size_t(width));
#pragma omp for schedule(dynamic, kNodeChunk)
    for (int64_t v = 0; v < g.numDst; ++v) {
      const int64_t begin = g.inOffsets[v], end = g.inOffsets[v + 1];
      const T *dyRow = dy + v * width;
      if (isLinear(reduce)) {
        const T norm = reduce == Reduce::Mean ? m.meanScale(v) : T(1);
        for (int64_t k = begin; k < end; ++k)
          scaledCopyRow(de + k * width, norm, dyRow, width);
        continue;
      }
      findWinners(m, v, out + v * width, winner.data());
      for (int64_t k = begin; k < end; ++k)
        for (int64_t j = 0; j < width; ++j)
          de[k * width + j] = winner[j] == k - begin ? dyRow[j] : T(0);
    }
  }
}

template <typename T>
void edgeSoftmax(const GraphView &g, const T *scores, int64_t width, T *out) {
  const bool threaded = worthThreads(graphWork(g, width));
#pragma omp parallel if (threaded)
  {
    std::vector<T> colMax(static_cast<size_t>(width)),
        colSum(static_cast<size_t>(width));
#pragma omp for schedule(dynamic, kNodeChunk)
    for (int64_t v = 0; v < g.numDst; ++v) {
      // A destination's in-edges are consecutive rows.
      const int64_t first = g.inOffsets[v], n = g.inOffsets[v + 1] - first;
      if (n > 0)
        softmaxColumns(scores + first * width, n, width, width,
                       out + first * width, colMax.data(), colSum.data());
    }
  }
}

template <typename T>
void edgeSoftmaxGrad(const GraphView &g, const T *dy, const T *y, int64_t width,
                     T *ds) {
  const bool threaded = worthThreads(graphWork(g, width));
#pragma omp parallel if (threaded)
  {
    std::vector<T> colDot(static_cast<size_t>(width));
#pragma omp for schedule(dynamic, kNodeChunk)
    for (int64_t v = 0; v < g.numDst; ++v) {
      const int64_t at = g.inOffsets[v] * width;
      softmaxGradColumns(dy + at, y + at, g.inOffsets[v + 1] - g.inOffsets[v],
                         width, width, ds + at, colDot.data());
    }
  }
}

template <typename T> void degree(const GraphView &g, Side side, T *out) {
  const bool src = side == Side::Src;
  const int64_t *offsets = src ? g.outOffsets : g.inOffsets;
  const int64_t n = src ? g.numSrc : g.numDst;
  const bool threaded = worthThreads(n);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t v = 0; v < n; ++v)
    out[v] = T(offsets[v + 1] - offsets[v]);
}

template <typename T>
void nodeTypeIndicator(const GraphView &g, const int64_t *nodeIds,
                       IdRange type, T *out) {
#pragma omp parallel for schedule(static) if (worthThreads(g.numSrc))
  for (int64_t u = 0; u < g.numSrc; ++u) {
    const int64_t id = nodeIds ? nodeIds[u] : u;
    out[u] = T(id >= type.begin && id < type.end);
  }
}

//===--- Instantiations ---------------------------------------------------===//

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Edge.def"
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels
