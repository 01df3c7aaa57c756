//===- Aggregate.cpp - aggregate and its adjoints on the CPU --------------===//
//
// Sum and mean (and their input adjoint) are linear gathers: a
// prefetching walk over each output row's list of rows that accumulates in
// registers. Max and min reduce the messages of Messages.h and route each
// gradient element to the first message that won it.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Aggregate.h"
#include "gnnrt/kernels/GatherStorage.h"

#include "gnnrt/graph/Reorder.h"

#include "Common.h"
#include "LinearGather.h"
#include "Messages.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace gnnrt::kernels {

using namespace detail;

namespace {

/// visit(k, v) for the out-edges k of source u, ascending, with their
/// destinations v. The destinations are random, so the walk prefetches the
/// destination id of the edge 2 * kPrefetchEdges ahead and, for the edge
/// kPrefetchEdges ahead (whose id has arrived by then), its row of
/// `dstRows` and, if `readsOffsets`, its inOffsets entry.
template <typename T, typename Visit>
void walkOutEdges(const GraphView &g, int64_t u, const T *dstRows,
                  int64_t width, bool readsOffsets, Visit &&visit) {
  // GraphView::outDst, when present, lists the destinations directly.
  auto dstAt = [&](int64_t i) -> int64_t {
    return g.outDst ? g.outDst[i] : g.edgeDst[g.outEdges[i]];
  };
  for (int64_t i = g.outOffsets[u]; i < g.outOffsets[u + 1]; ++i) {
    if (!g.outDst && i + 2 * kPrefetchEdges < g.numEdges)
      prefetchLine(g.edgeDst + g.outEdges[i + 2 * kPrefetchEdges]);
    if (i + kPrefetchEdges < g.numEdges) {
      const int64_t ahead = dstAt(i + kPrefetchEdges);
      prefetchRow(dstRows + ahead * width, width);
      if (readsOffsets)
        prefetchLine(g.inOffsets + ahead);
    }
    visit(g.outEdges[i], dstAt(i));
  }
}

/// GraphView::outDst, or, for a view without it, the same list derived
/// into `storage`.
const int32_t *outDestinations(const GraphView &g,
                               std::vector<int32_t> &storage) {
  if (g.outDst || g.numEdges == 0)
    return g.outDst;
  storage.resize(size_t(g.numEdges));
  const bool threaded = worthThreads(g.numEdges);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t i = 0; i < g.numEdges; ++i)
    storage[i] = g.edgeDst[g.outEdges[i]];
  return storage.data();
}

} // namespace

//===--- Linear gathers: one walk per instruction set ---------------------===//
//
// LinearGatherWalk.inc compiled twice: for every x86-64 (SSE2 vectors), and
// for AVX-512 (whole-cache-line vectors: a bf16 row widens 16 values per
// instruction), chosen per process by the CPU. Both give the same bits.
// The AVX-512 copy is compiled under a target pragma (without contracting
// multiply-adds into FMAs), so only its own functions (internal to this
// file) use those instructions; the helpers it calls from headers keep the
// baseline's.

namespace baseline {
namespace {
#define GNNRT_GATHER_VECTOR_BYTES 16
#include "LinearGatherWalk.inc"
#undef GNNRT_GATHER_VECTOR_BYTES
} // namespace
} // namespace baseline

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl")
// AVX-512 brings FMA: a weight times a row plus the sum must stay two
// roundings (Aggregate.def's contract), as on the baseline.
#pragma GCC optimize("fp-contract=off")
namespace avx512 {
namespace {
#define GNNRT_GATHER_VECTOR_BYTES 64
#include "LinearGatherWalk.inc"
#undef GNNRT_GATHER_VECTOR_BYTES
} // namespace
} // namespace avx512
#pragma GCC pop_options

namespace {

/// Rows narrower than this many bytes of T (16 floats and 32, measured on
/// 300k nodes / 12M random edges, 2 threads: 0.034 -> 0.037 s and 0.047 ->
/// 0.051 s) are gathered faster by the SSE2 walk; from 64 floats on the
/// AVX-512 one is as fast or faster (128: 0.29 -> 0.22 s). bf16 rows always
/// take it: widening 16 values per instruction (64 bf16 values: 0.111 ->
/// 0.072 s; 128: 0.264 -> 0.129 s).
constexpr int64_t kAvx512FloatRowBytes = 256;

template <typename T, typename S>
void linearGatherStored(const LinearGather<T, S> &p) {
  const bool pays = !std::is_same_v<S, T> ||
                    p.width * int64_t(sizeof(T)) >= kAvx512FloatRowBytes;
  if (pays && useAvx512())
    avx512::linearGatherStored(p);
  else
    baseline::linearGatherStored(p);
}

/// linearGatherStored over p's rows as the process's gather storage
/// (GatherStorage.h) keeps them: float rows in bf16 are read from their
/// rounded copy.
template <typename T> void linearGather(const LinearGather<T> &p) {
  if constexpr (std::is_same_v<T, float>) {
    if (gatherStorage() == GatherStorage::BFloat16 && p.numOut > 0) {
      linearGatherStored(
          p.readingRows(bfloat16Rows(p.rows, p.numRows * p.width)));
      return;
    }
  }
  linearGatherStored(p);
}

} // namespace

//===--- Graph primitives and their adjoints ------------------------------===//

/// The sum or mean over each destination's in-edges (and itself, with
/// self loops) of x's source rows, unweighted and unscaled.
template <typename T>
static LinearGather<T> inEdgeGather(const GraphView &g, Reduce reduce,
                                    bool selfLoops, const T *x, int64_t width,
                                    T *out) {
  LinearGather<T> p;
  p.numOut = g.numDst;
  p.offsets = g.inOffsets;
  p.ids = g.edgeSrc;
  p.rows = x;
  p.numRows = g.numSrc;
  p.width = width;
  p.selfRows = selfLoops ? g.numDst : 0;
  p.meanOut = reduce == Reduce::Mean;
  p.out = out;
  return p;
}

template <typename T>
void aggregate(const GraphView &g, Reduce reduce, bool selfLoops, const T *x,
               int64_t width, const T *weight, int64_t weightWidth, T *out,
               bool accumulate) {
  if (accumulate && reduce != Reduce::Sum)
    throw std::invalid_argument("aggregate: only a sum can accumulate");
  if (isLinear(reduce)) {
    LinearGather<T> p = inEdgeGather(g, reduce, selfLoops, x, width, out);
    p.weight = weight;
    p.weightWidth = weight ? weightWidth : 1;
    p.accumulate = accumulate;
    linearGather(p);
    return;
  }
  reduceMessages(aggregateMessages(g, selfLoops, x, width, weight, weightWidth),
                 reduce, out);
}

template <typename T>
void aggregateScaledRows(const GraphView &g, Reduce reduce, bool selfLoops,
                         const T *x, const T *rowScale, int64_t width, T *out) {
  if (!isLinear(reduce))
    throw std::invalid_argument("aggregateScaledRows: sum or mean only");
  // LinearGather's coefficient of a term is rowScale(source) * 1, which is
  // rowScale(source) exactly.
  LinearGather<T> p = inEdgeGather(g, reduce, selfLoops, x, width, out);
  p.rowScale = rowScale;
  linearGather(p);
}

template <typename T>
void aggregateGradInput(const GraphView &g, Reduce reduce, bool selfLoops,
                        const T *dy, const T *x, const T *out, int64_t width,
                        const T *weight, int64_t weightWidth, T *dx) {
  if (isLinear(reduce)) {
    // Source u adds, per out-edge k -> v, norm(v) * weight(k) * dy[v], and
    // its self loop's norm(u) * dy[u]; norm is 1 / count(v) for mean.
    std::vector<int32_t> derivedDst;
    const int32_t *outDst = outDestinations(g, derivedDst);
    std::vector<T> norm;
    if (reduce == Reduce::Mean) {
      const Messages<T> m =
          aggregateMessages(g, selfLoops, x, width, weight, weightWidth);
      norm.resize(size_t(g.numDst));
      const bool threaded = worthThreads(g.numDst);
#pragma omp parallel for schedule(static) if (threaded)
      for (int64_t v = 0; v < g.numDst; ++v)
        norm[v] = m.meanScale(v);
    }
    LinearGather<T> p;
    p.numOut = g.numSrc;
    p.offsets = g.outOffsets;
    p.ids = outDst;
    p.edgeIds = g.outEdges;
    p.rows = dy;
    p.numRows = g.numDst;
    p.width = width;
    p.weight = weight;
    p.weightWidth = weight ? weightWidth : 1;
    p.rowScale = norm.empty() ? nullptr : norm.data();
    p.selfRows = selfLoops ? g.numDst : 0;
    p.out = dx;
    linearGather(p);
    return;
  }
  const Messages<T> m =
      aggregateMessages(g, selfLoops, x, width, weight, weightWidth);
  // Max/min route each output element to one message; record which, per
  // destination, so the source-major pass below can look it up.
  std::vector<int32_t> winners(size_t(g.numDst * width));
  {
    const bool threaded = worthThreads(graphWork(g, width));
#pragma omp parallel for schedule(dynamic, kNodeChunk) if (threaded)
    for (int64_t v = 0; v < g.numDst; ++v)
      findWinners(m, v, out + v * width, winners.data() + v * width);
  }
  // The adjoint of message k with respect to its source row: the weighted
  // dy row of its destination, masked to the columns it won.
  auto accumulate = [&](T *d, int64_t k, int64_t v) {
    const T *dyRow = dy + v * width;
    const int64_t index = k == kSelfLoop ? g.inOffsets[v + 1] - g.inOffsets[v]
                                         : k - g.inOffsets[v];
    const int32_t *won = winners.data() + v * width;
    m.forEachGroup(k, [&](int64_t j0, int64_t n, T a) {
      for (int64_t j = j0; j < j0 + n; ++j)
        d[j] += won[j] == index ? a * dyRow[j] : T(0);
    });
  };
  const bool threaded = worthThreads(graphWork(g, width));
#pragma omp parallel for schedule(dynamic, kNodeChunk) if (threaded)
  for (int64_t u = 0; u < g.numSrc; ++u) {
    T *d = dx + u * width;
    fillRow(d, T(0), width);
    walkOutEdges(g, u, dy, width, true,
                 [&](int64_t k, int64_t v) { accumulate(d, k, v); });
    if (selfLoops && u < g.numDst)
      accumulate(d, kSelfLoop, u);
  }
}

template <typename T>
void aggregateGradWeight(const GraphView &g, Reduce reduce, bool selfLoops,
                         const T *dy, const T *x, const T *out, int64_t width,
                         const T *weight, int64_t weightWidth, T *dweight) {
  const Messages<T> m =
      aggregateMessages(g, selfLoops, x, width, weight, weightWidth);
  const int64_t groupWidth = m.groupWidth();
  const bool threaded = worthThreads(graphWork(g, width));
#pragma omp parallel if (threaded)
  {
    std::vector<int32_t> winner(isLinear(reduce) ? 0 : size_t(width));
#pragma omp for schedule(dynamic, kNodeChunk)
    for (int64_t v = 0; v < g.numDst; ++v) {
      const T *dyRow = dy + v * width;
      if (!isLinear(reduce))
        findWinners(m, v, out + v * width, winner.data());
      const T norm = reduce == Reduce::Mean ? m.meanScale(v) : T(1);
      m.forEach(v, [&](int64_t index, int64_t k, const T *row) {
        if (k == kSelfLoop)
          return; // unweighted
        for (int64_t group = 0; group < m.weightWidth; ++group) {
          const int64_t j0 = group * groupWidth;
          T grad = 0;
          if (isLinear(reduce)) {
            grad = norm * dotRow(dyRow + j0, row + j0, groupWidth);
          } else {
            for (int64_t j = j0; j < j0 + groupWidth; ++j)
              grad += winner[j] == index ? dyRow[j] * row[j] : T(0);
          }
          dweight[k * m.weightWidth + group] = grad;
        }
      });
    }
  }
}

//===--- Instantiations ---------------------------------------------------===//

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Aggregate.def"
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels
