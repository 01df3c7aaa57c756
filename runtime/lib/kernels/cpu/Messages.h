//===- Messages.h - What a destination reduces ------------------*- C++ -*-===//
//
// Internal to lib/kernels/cpu: the messages of aggregate (the weighted
// source row of each in-edge, then optionally the destination's own row)
// and of scatter (each in-edge's own row), one walk for both, and the
// reduction and winner search both families build on.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_KERNELS_CPU_MESSAGES_H
#define GNNRT_LIB_KERNELS_CPU_MESSAGES_H

#include "Common.h"

#include <cstdint>

namespace gnnrt::kernels::detail {

//===--- Messages: what a destination reduces -----------------------------===//

/// The edge id of a destination's self-loop message.
inline constexpr int64_t kSelfLoop = -1;

/// The messages each destination reduces, shared by aggregate (the weighted
/// source row of each in-edge, then optionally the destination's own row)
/// and scatter (each in-edge's own row). Element j of the message of edge k
/// is row(k)[j] * scale(k, j / groupWidth()).
template <typename T> struct Messages {
  const GraphView &g;
  const T *rows;
  bool rowPerEdge; ///< row k of `rows` (scatter) or row edgeSrc[k]
  int64_t width;
  const T *weight;     ///< null: every scale is 1
  int64_t weightWidth; ///< scales per edge; 1 if weight is null
  bool selfLoops;

  int64_t groupWidth() const { return width / weightWidth; }
  /// Messages of v, which mean divides by.
  int64_t count(int64_t v) const {
    return g.inOffsets[v + 1] - g.inOffsets[v] + (selfLoops ? 1 : 0);
  }
  T meanScale(int64_t v) const { return T(1) / T(count(v)); }
  const T *row(int64_t k) const {
    return rows + (rowPerEdge ? k : int64_t(g.edgeSrc[k])) * width;
  }
  T scale(int64_t k, int64_t group) const {
    return weight && k != kSelfLoop ? weight[k * weightWidth + group] : T(1);
  }

  /// fn(index, edge, row) for v's messages in order: in-edges by edge id,
  /// then the self loop (edge kSelfLoop); index counts from 0.
  template <typename Fn> void forEach(int64_t v, Fn &&fn) const {
    const int64_t begin = g.inOffsets[v], end = g.inOffsets[v + 1];
    for (int64_t k = begin; k < end; ++k) {
      if (!rowPerEdge && k + kPrefetchEdges < g.numEdges)
        prefetchRow(row(k + kPrefetchEdges), width);
      fn(k - begin, k, row(k));
    }
    if (selfLoops)
      fn(end - begin, kSelfLoop, rows + v * width);
  }

  /// fn(firstColumn, columns, scale) for each weight group of edge k.
  template <typename Fn> void forEachGroup(int64_t k, Fn &&fn) const {
    const int64_t n = groupWidth();
    for (int64_t group = 0; group < weightWidth; ++group)
      fn(group * n, n, scale(k, group));
  }
};

template <typename T>
Messages<T> aggregateMessages(const GraphView &g, bool selfLoops, const T *x,
                              int64_t width, const T *weight,
                              int64_t weightWidth) {
  return {g, x, false, width, weight, weight ? weightWidth : 1, selfLoops};
}

template <typename T>
Messages<T> edgeMessages(const GraphView &g, const T *e, int64_t width) {
  return {g, e, true, width, nullptr, 1, false};
}

/// out[numDst, width]: the forward of aggregate and scatter.
template <typename T>
void reduceMessages(const Messages<T> &m, Reduce reduce, T *out) {
  const int64_t width = m.width;
  const bool threaded = worthThreads(graphWork(m.g, width));
#pragma omp parallel for schedule(dynamic, kNodeChunk) if (threaded)
  for (int64_t v = 0; v < m.g.numDst; ++v) {
    T *o = out + v * width;
    if (isLinear(reduce)) {
      fillRow(o, T(0), width);
      m.forEach(v, [&](int64_t, int64_t k, const T *row) {
        m.forEachGroup(k, [&](int64_t j0, int64_t n, T a) {
          axpyRow(o + j0, a, row + j0, n);
        });
      });
      if (reduce == Reduce::Mean && m.count(v) > 0)
        scaleRow(o, m.meanScale(v), width);
      continue;
    }
    bool first = true;
    m.forEach(v, [&](int64_t, int64_t k, const T *row) {
      m.forEachGroup(k, [&](int64_t j0, int64_t n, T a) {
        if (first)
          scaledCopyRow(o + j0, a, row + j0, n);
        else if (reduce == Reduce::Max)
          maxScaledRow(o + j0, a, row + j0, n);
        else
          minScaledRow(o + j0, a, row + j0, n);
      });
      first = false;
    });
    if (first)
      fillRow(o, T(0), width);
  }
}

/// For max/min: winner[j] is the index (in forEach order) of v's first
/// message whose element j equals out[j], or -1. An in-degree must stay
/// below 2^31 - 1 for the index to fit.
template <typename T>
void findWinners(const Messages<T> &m, int64_t v, const T *out,
                 int32_t *winner) {
  fillRow(winner, int32_t(-1), m.width);
  m.forEach(v, [&](int64_t index, int64_t k, const T *row) {
    m.forEachGroup(k, [&](int64_t j0, int64_t n, T a) {
      for (int64_t j = j0; j < j0 + n; ++j)
        if (winner[j] < 0 && a * row[j] == out[j])
          winner[j] = int32_t(index);
    });
  });
}

} // namespace gnnrt::kernels::detail

#endif // GNNRT_LIB_KERNELS_CPU_MESSAGES_H
