//===- LinearGather.h - The walk of sum and mean gathers --------*- C++ -*-===//
//
// What aggregate's linear gathers (Aggregate.cpp) share between the
// instruction sets they are compiled for: the description of a gather, its
// prefetch and tiling constants. The walk itself is LinearGatherWalk.inc.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_KERNELS_CPU_LINEARGATHER_H
#define GNNRT_LIB_KERNELS_CPU_LINEARGATHER_H

#include "gnnrt/support/BFloat16.h"

#include "Common.h"

#include <algorithm>
#include <cstdint>

namespace gnnrt::kernels::detail {

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

inline GatherPrefetch gatherPrefetch(int64_t rowBytes) {
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

  /// The same gather over `stored`: these rows kept as R.
  template <typename R> LinearGather<T, R> readingRows(const R *stored) const {
    LinearGather<T, R> p;
    p.numOut = numOut;
    p.offsets = offsets;
    p.ids = ids;
    p.edgeIds = edgeIds;
    p.rows = stored;
    p.numRows = numRows;
    p.width = width;
    p.stride = stride;
    p.weight = weight;
    p.weightWidth = weightWidth;
    p.rowScale = rowScale;
    p.selfRows = selfRows;
    p.meanOut = meanOut;
    p.accumulate = accumulate;
    p.out = out;
    return p;
  }
};

/// The accumulator of one output row of compile-time width W > 0 (W a
/// multiple of 16 bytes of T), or, for W == 0, of any width (up to
/// kLocalWidth values locally, wider rows in place in the output row).
/// The fixed widths are written with GCC vector types so that the sum stays
/// in vector registers next to the prefetch statements of the gather loop
/// (with them the auto-vectorizer broke a 16-wide row into scalars); each
/// lane does the same IEEE operations, in the same order, as the scalar
/// loops, so both give the same bits.

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

/// A stored value as T: itself, or a bf16 widened (exactly) to float.
template <typename T> T widen(T x) { return x; }
inline float widen(BFloat16 x) { return toFloat(x); }

} // namespace gnnrt::kernels::detail

#endif // GNNRT_LIB_KERNELS_CPU_LINEARGATHER_H
