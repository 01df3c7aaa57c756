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

//===--- Linear gathers: sum and mean, forward and input adjoint ----------===//
//
// Sum and mean of aggregate, and their adjoint with respect to the input,
// are one pattern: output row i adds up gathered rows, one per position p of
// its list [offsets[i], offsets[i + 1]) (in-edges forward, out-edges
// backward), then optionally its own row (the self loop). The rows lie at
// random places, so the walk keeps a fixed number of cache lines requested
// ahead of it (a fixed number of rows ahead leaves memory idle on narrow
// rows); rows of up to kTwoStageRowBytes go there in two stages, far ahead
// into L2 and the next few rows from there into L1. It accumulates a row of
// width <= kLocalWidth in registers or a local buffer that is written to the
// output once, and walks the backward pass's destinations through
// GraphView::outDst (no edge id lookup per edge). Wide rows of a matrix the
// last-level cache cannot hold are walked one column tile at a time
// (gatherTileWidth).

/// Cache lines of gathered rows a thread keeps requested ahead of its walk
/// straight into L1, and the bounds of that distance in positions: 14 rows
/// of 128 floats (measured on 1M nodes / 40M random edges, 2 threads: 64
/// lines ahead or 8 rows of any width are slower).
constexpr int64_t kGatherLinesAhead = 128;
constexpr int64_t kMinGatherDistance = 4;
constexpr int64_t kMaxGatherDistance = 64;
/// Rows of at most this many bytes are prefetched in two stages:
/// kTwoStageLinesAhead lines ahead into L2 (64 rows of 16 floats), and
/// kNearGatherDistance rows ahead from L2 into L1. One core tracks few
/// misses into L1 at once; this keeps more rows in flight. Measured with
/// bench/aggregate.sh (1M nodes, 5M random edges, 1 thread, CPU seconds,
/// load 16-24): widths 16, 32 and 64 forward 0.064 -> 0.047, 0.112 -> 0.065,
/// 0.271 -> 0.226 s, transpose 0.065 -> 0.042, 0.116 -> 0.081, 0.269 ->
/// 0.241 s. Width 128: 0.877 -> 0.669 s forward, 0.720 -> 0.702 s transpose
/// at load 5 (-6% and -8% in two sessions at load 20, and with 2 threads
/// on 40M edges faster in wall but 8% more CPU time: unresolved, see
/// bench/README.md); width 256 no change, so wider rows keep the one-stage
/// walk.
constexpr int64_t kTwoStageRowBytes = 512;
constexpr int64_t kTwoStageLinesAhead = 256;
constexpr int64_t kNearGatherDistance = 3;
/// Rows up to this many values accumulate in a local buffer.
constexpr int64_t kLocalWidth = 256;

/// How a walk prefetches rows of rowBytes bytes.
struct GatherPrefetch {
  /// Positions ahead of the walk of the first (or only) stage.
  int64_t distance = 0;
  /// The first stage goes to L2, and kNearGatherDistance rows to L1.
  bool twoStage = false;
};

GatherPrefetch gatherPrefetch(int64_t rowBytes) {
  // A row that does not start on a cache line spans one line more.
  const int64_t lines = (rowBytes + kCacheLine - 1) / kCacheLine + 1;
  const bool twoStage = rowBytes <= kTwoStageRowBytes;
  const int64_t ahead = twoStage ? kTwoStageLinesAhead : kGatherLinesAhead;
  return {std::clamp(ahead / lines, kMinGatherDistance, kMaxGatherDistance),
          twoStage};
}

/// Output row i = sum over p in [offsets[i], offsets[i + 1]) of
/// c(p) * rows[ids[p]], plus, for i < selfRows, rowScale(i) * rows[i];
/// then, with meanOut, times 1 / (number of terms) if there are any.
/// c(p) = rowScale(ids[p]) * weight[edge(p)] (per weight group), where a
/// missing rowScale or weight is 1 and edge(p) is edgeIds[p], or p itself
/// when edgeIds is null. The terms are added in list order, self row last,
/// to a zero row: the same operations, in the same order, as the message
/// loop of reduceMessages. The rows are stored as S: T itself, or, for
/// float, BFloat16 (gather storage bf16), each value widened exactly to a
/// float before it is used, so the result is that of the float gather over
/// the rounded rows, to the bit.
template <typename T, typename S = T> struct LinearGather {
  int64_t numOut = 0;
  const int64_t *offsets = nullptr;
  const int32_t *ids = nullptr;
  const int64_t *edgeIds = nullptr;
  const S *rows = nullptr;
  /// Rows in `rows` (the working set of the gather).
  int64_t numRows = 0;
  /// Values gathered per row, and the distance between rows of `rows` and
  /// `out` (linearGather sets it): a column tile gathers `width` of
  /// `stride` columns.
  int64_t width = 0;
  int64_t stride = 0;
  const T *weight = nullptr;
  int64_t weightWidth = 1;
  const T *rowScale = nullptr;
  int64_t selfRows = 0;
  bool meanOut = false;
  /// Add to out's rows rather than overwrite them (sums only).
  bool accumulate = false;
  T *out = nullptr;
};

/// The accumulator of one output row of compile-time width W > 0 (W a
/// multiple of 16 bytes of T), or, for W == 0, of any width (up to
/// kLocalWidth values locally, wider rows in place in the output row).
/// The fixed widths are written with GCC vector types so that the sum stays
/// in vector registers next to the prefetch statements of the gather loop
/// (with them the auto-vectorizer broke a 16-wide row into scalars); each
/// lane does the same IEEE operations, in the same order, as the scalar
/// loops, so both give the same bits.
/// A stored value as T: itself, or a bf16 widened (exactly) to float.
template <typename T> inline T widen(T x) { return x; }
inline float widen(BFloat16 x) { return toFloat(x); }

template <typename T, int64_t W> class RowAccumulator {
public:
  explicit RowAccumulator(int64_t) {}
  void reset(T *) {
    for (V &v : acc)
      v = V{};
  }
  /// Starts from the row's current values.
  void resume(T *out) {
    for (int64_t i = 0; i < kVectors; ++i)
      acc[i] = load(out + i * kLanes);
  }
  template <typename S> void add(const S *row) {
    for (int64_t i = 0; i < kVectors; ++i)
      acc[i] += load(row + i * kLanes);
  }
  template <typename S>
  void addScaled(T a, const S *row, int64_t j0, int64_t n) {
    // W > 0 has one weight group: j0 == 0 and n == W.
    (void)j0;
    (void)n;
    for (int64_t i = 0; i < kVectors; ++i)
      acc[i] += a * load(row + i * kLanes);
  }
  void scale(T a) {
    for (V &v : acc)
      v *= a;
  }
  void store(T *out) const {
    for (int64_t i = 0; i < kVectors; ++i)
      *reinterpret_cast<Unaligned *>(out + i * kLanes) = acc[i];
  }

private:
  typedef T V __attribute__((vector_size(16)));
  /// V at any address of a T (rows need not be 16-byte aligned).
  typedef T Unaligned
      __attribute__((vector_size(16), aligned(alignof(T)), may_alias));
  static constexpr int64_t kLanes = int64_t(16 / sizeof(T));
  static constexpr int64_t kVectors = W / kLanes;
  static_assert(W % kLanes == 0, "W must fill whole vectors");
  static V load(const T *p) { return *reinterpret_cast<const Unaligned *>(p); }
  /// kLanes bf16 values widened to floats: each one's bits are the high
  /// half of its float's.
  static V load(const BFloat16 *p) {
    static_assert(std::is_same_v<T, float>, "bf16 rows widen to float");
    typedef uint16_t Half __attribute__((vector_size(8), aligned(2), may_alias));
    typedef uint32_t Bits __attribute__((vector_size(16)));
    const Bits bits =
        __builtin_convertvector(*reinterpret_cast<const Half *>(p), Bits) << 16;
    return __builtin_bit_cast(V, bits);
  }
  V acc[kVectors];
};

template <typename T> class RowAccumulator<T, 0> {
public:
  explicit RowAccumulator(int64_t width) : width(width) {}
  void reset(T *out) {
    acc = width <= kLocalWidth ? local : out;
    fillRow(acc, T(0), width);
  }
  void resume(T *out) {
    acc = width <= kLocalWidth ? local : out;
    if (acc != out)
      std::memcpy(acc, out, size_t(width) * sizeof(T));
  }
  void add(const T *row) { addRow(acc, row, width); }
  void addScaled(T a, const T *row, int64_t j0, int64_t n) {
    axpyRow(acc + j0, a, row + j0, n);
  }
  void add(const BFloat16 *row) {
    for (int64_t j = 0; j < width; ++j)
      acc[j] += widen(row[j]);
  }
  void addScaled(T a, const BFloat16 *row, int64_t j0, int64_t n) {
    for (int64_t j = j0; j < j0 + n; ++j)
      acc[j] += a * widen(row[j]);
  }
  void scale(T a) { scaleRow(acc, a, width); }
  void store(T *out) const {
    if (acc != out)
      std::memcpy(out, acc, size_t(width) * sizeof(T));
  }

private:
  int64_t width;
  T *acc = nullptr;
  alignas(64) T local[kLocalWidth];
};

/// Output rows [i0, i1) of LinearGather `p` (a copy: its fields stay in
/// registers) with width W (0: p.width, any) and coefficients (Scaled:
/// weights or row scales; otherwise every coefficient is 1 and skipped,
/// since 1 * x == x exactly). W > 0 requires p.weightWidth == 1.
template <typename T, typename S, int64_t W, bool Scaled>
void linearGatherRows(const LinearGather<T, S> p, int64_t i0, int64_t i1,
                      GatherPrefetch ahead) {
  const int64_t width = W > 0 ? W : p.width;
  const int64_t stride = p.stride;
  const int64_t groups = Scaled && p.weight ? p.weightWidth : 1;
  const int64_t groupWidth = width / groups;
  const int64_t *const offsets = p.offsets;
  const int32_t *const ids = p.ids;
  const S *const rows = p.rows;
  auto coefficient = [&](int64_t q, int64_t group) {
    const T norm = p.rowScale ? p.rowScale[ids[q]] : T(1);
    const int64_t k = p.edgeIds ? p.edgeIds[q] : q;
    return norm * (p.weight ? p.weight[k * p.weightWidth + group] : T(1));
  };
  const int64_t distance = ahead.distance;
  const int64_t near = ahead.twoStage ? kNearGatherDistance : 0;
  auto prefetch = [&](int64_t q) {
    const S *row = rows + int64_t(ids[q]) * stride;
    if (ahead.twoStage)
      prefetchRowToL2(row, width);
    else
      prefetchRow(row, width);
    if constexpr (Scaled) {
      if (p.weight && p.edgeIds)
        prefetchLine(p.weight + p.edgeIds[q] * p.weightWidth);
      if (p.rowScale)
        prefetchLine(p.rowScale + ids[q]);
    }
  };
  auto prefetchNear = [&](int64_t q) {
    prefetchRow(rows + int64_t(ids[q]) * stride, width);
  };
  const int64_t qEnd = offsets[i1];
  // Start the first rows; the walk requests the rest as it goes.
  for (int64_t q = offsets[i0]; q < std::min(qEnd, offsets[i0] + distance);
       ++q)
    prefetch(q);
  for (int64_t q = offsets[i0]; q < std::min(qEnd, offsets[i0] + near); ++q)
    prefetchNear(q);
  RowAccumulator<T, W> acc(width);
  for (int64_t i = i0; i < i1; ++i) {
    T *o = p.out + i * stride;
    if (p.accumulate)
      acc.resume(o);
    else
      acc.reset(o);
    const int64_t begin = offsets[i], end = offsets[i + 1];
    for (int64_t q = begin; q < end; ++q) {
      if (q + distance < qEnd)
        prefetch(q + distance);
      if (near > 0 && q + near < qEnd)
        prefetchNear(q + near);
      const S *row = rows + int64_t(ids[q]) * stride;
      if constexpr (!Scaled) {
        acc.add(row);
      } else {
        for (int64_t group = 0; group < groups; ++group)
          acc.addScaled(coefficient(q, group), row, group * groupWidth,
                        groupWidth);
      }
    }
    const bool self = i < p.selfRows;
    if (self) {
      if (Scaled && p.rowScale)
        acc.addScaled(p.rowScale[i], rows + i * stride, 0, width);
      else
        acc.add(rows + i * stride);
    }
    const int64_t count = end - begin + (self ? 1 : 0);
    if (p.meanOut && count > 0)
      acc.scale(T(1) / T(count));
    acc.store(o);
  }
}

/// LinearGather over all output rows, in parallel chunks of rows.
template <typename T, typename S, int64_t W, bool Scaled>
void runLinearGather(const LinearGather<T, S> &p) {
  const int64_t width = W > 0 ? W : p.width;
  const GatherPrefetch ahead = gatherPrefetch(width * int64_t(sizeof(S)));
  const int64_t chunks = (p.numOut + kNodeChunk - 1) / kNodeChunk;
  const bool threaded =
      worthThreads((p.offsets[p.numOut] + p.numOut) * width);
#pragma omp parallel for schedule(dynamic, 1) if (threaded)
  for (int64_t c = 0; c < chunks; ++c)
    linearGatherRows<T, S, W, Scaled>(
        p, c * kNodeChunk, std::min(p.numOut, (c + 1) * kNodeChunk), ahead);
}

/// Rows wider than this many bytes are gathered in column tiles of this
/// width when the source matrix does not fit in the last-level cache.
/// A tile's column slice of the matrix is a fraction of the whole, so more
/// of the rows that several destinations read are still in the cache when
/// the next one reads them; each tile costs one more walk over the ids and
/// offsets. Measured on the GCN benchmark's graphs (community order, width
/// 128, 1 thread, epoch CPU seconds, bench/README.md): 300k nodes / 12M
/// edges whole rows 1.63, tiles of 64 floats 1.39, of 32 floats 1.83 (16:
/// 2.7; narrower tiles cost more walks than they save misses); 1M nodes /
/// 40M edges 7.30 -> 5.65.
constexpr int64_t kGatherTileBytes = 256;
/// A last-level cache holds at least this much.
constexpr int64_t kAnyCacheBytes = int64_t(1) << 20;

/// The columns each walk of a linear gather reads of a row.
template <typename T, typename S>
int64_t gatherTileWidth(const LinearGather<T, S> &p) {
  const int64_t tile = kGatherTileBytes / int64_t(sizeof(S));
  if (p.width <= tile)
    return p.width;
  // Gathers of matrices the cache holds read every row from memory once
  // (those of a few MiB skip the lookup: the many tiny calls of a gradient
  // check).
  const int64_t matrixBytes = p.numRows * p.width * int64_t(sizeof(S));
  if (matrixBytes <= kAnyCacheBytes || matrixBytes <= lastLevelCacheBytes())
    return p.width;
  return tile;
}

/// One walk over columns [j0, j0 + p.width) of rows p.stride apart.
template <typename T, typename S>
void linearGatherColumns(const LinearGather<T, S> &p) {
  auto run = [&](auto scaled) {
    constexpr bool Scaled = decltype(scaled)::value;
    switch (p.width) {
    case 16:
      return runLinearGather<T, S, 16, Scaled>(p);
    case 32:
      return runLinearGather<T, S, 32, Scaled>(p);
    case 64:
      return runLinearGather<T, S, 64, Scaled>(p);
    case 128:
      return runLinearGather<T, S, 128, Scaled>(p);
    default:
      return runLinearGather<T, S, 0, Scaled>(p);
    }
  };
  if (p.weight || p.rowScale)
    run(std::true_type());
  else
    run(std::false_type());
}

template <typename T, typename S> void linearGatherStored(LinearGather<T, S> p) {
  if (p.numOut == 0)
    return;
  p.stride = p.width;
  // A weight per group of columns walks whole rows (the groups' scales).
  if (p.weight && p.weightWidth > 1) {
    runLinearGather<T, S, 0, true>(p);
    return;
  }
  // Each output value gets the same terms in the same order whatever the
  // tiles: the results do not depend on them.
  const int64_t width = p.width, tile = gatherTileWidth(p);
  const S *rows = p.rows;
  T *out = p.out;
  for (int64_t j0 = 0; j0 < width; j0 += tile) {
    p.width = std::min(tile, width - j0);
    p.rows = rows + j0;
    p.out = out + j0;
    linearGatherColumns(p);
  }
}

/// linearGatherStored over p's rows as the process's gather storage
/// (GatherStorage.h) keeps them: float rows in bf16 are read from their
/// rounded copy.
template <typename T> void linearGather(const LinearGather<T> &p) {
  if constexpr (std::is_same_v<T, float>) {
    if (gatherStorage() == GatherStorage::BFloat16 && p.numOut > 0) {
      LinearGather<float, BFloat16> q;
      q.numOut = p.numOut;
      q.offsets = p.offsets;
      q.ids = p.ids;
      q.edgeIds = p.edgeIds;
      q.rows = bfloat16Rows(p.rows, p.numRows * p.width);
      q.numRows = p.numRows;
      q.width = p.width;
      q.weight = p.weight;
      q.weightWidth = p.weightWidth;
      q.rowScale = p.rowScale;
      q.selfRows = p.selfRows;
      q.meanOut = p.meanOut;
      q.accumulate = p.accumulate;
      q.out = p.out;
      linearGatherStored(q);
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
