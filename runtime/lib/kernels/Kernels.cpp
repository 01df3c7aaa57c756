//===- Kernels.cpp - CPU compute kernels called by generated code ---------===//
//
// Determinism without atomics: every parallel loop gives each output row (a
// destination, a source, an edge, a tile of an axis) to exactly one
// iteration, which accumulates it in a fixed order, so results are bitwise
// independent of the thread count. Adjoints that reduce onto sources walk
// the source-major out-edge lists (GraphView::outEdges) for the same reason.
//
// Graph kernels are memory bound: they stream one row per edge from random
// places, so the inner loops are plain row operations the compiler
// vectorizes, and gathers prefetch the rows of edges a few steps ahead.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Kernels.h"

#include "gnnrt/support/Prefetch.h"
#include "gnnrt/support/Random.h"

#include <cblas.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace gnnrt::kernels {
namespace {

/// Destinations (or sources) per dynamically scheduled chunk: enough to
/// amortize scheduling, few enough to balance power-law degrees.
constexpr int64_t kNodeChunk = 64;
/// Columns per task of the axis operations: contiguous enough to vectorize,
/// narrow enough to split a single wide slice over threads.
constexpr int64_t kInnerTile = 64;
/// How many edges ahead a gather prefetches, and at most how much of a row.
constexpr int64_t kPrefetchEdges = 8;
constexpr int64_t kPrefetchBytes = 2048;
constexpr int64_t kCacheLine = 64;
/// Rows per partial sum of the loss: fixed, so the summation order does not
/// depend on the thread count.
constexpr int64_t kLossChunk = 1024;
constexpr int kMaxRank = 8;
/// Below this many elements of work a kernel runs on the calling thread:
/// waking the thread team would cost more than it saves (small graphs, and
/// the many tiny calls of a gradient check).
constexpr int64_t kMinThreadedWork = int64_t(1) << 15;

bool worthThreads(int64_t work) { return work >= kMinThreadedWork; }

/// The elements a graph kernel touches, for worthThreads.
int64_t graphWork(const GraphView &g, int64_t width) {
  return (g.numEdges + g.numSrc) * width;
}

//===--- Row primitives (the vectorized inner loops) ----------------------===//

template <typename T> void fillRow(T *y, T value, int64_t n) {
  std::fill(y, y + n, value);
}

template <typename T> void scaleRow(T *y, T a, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    y[j] *= a;
}

template <typename T>
void addRow(T *__restrict y, const T *__restrict x, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    y[j] += x[j];
}

template <typename T>
void axpyRow(T *__restrict y, T a, const T *__restrict x, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    y[j] += a * x[j];
}

template <typename T>
void scaledCopyRow(T *__restrict y, T a, const T *__restrict x, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    y[j] = a * x[j];
}

template <typename T>
void maxScaledRow(T *__restrict y, T a, const T *__restrict x, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    T m = a * x[j];
    y[j] = m > y[j] ? m : y[j];
  }
}

template <typename T>
void minScaledRow(T *__restrict y, T a, const T *__restrict x, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    T m = a * x[j];
    y[j] = m < y[j] ? m : y[j];
  }
}

template <typename T> T dotRow(const T *a, const T *b, int64_t n) {
  T acc = 0;
  for (int64_t j = 0; j < n; ++j)
    acc += a[j] * b[j];
  return acc;
}

/// Requests the cache lines of a row that a later iteration gathers: rows
/// selected by edge endpoints lie at random places, which no hardware
/// prefetcher predicts.
template <typename T> void prefetchRow(const T *row, int64_t width) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(row);
  const uintptr_t end =
      begin +
      uintptr_t(std::min<int64_t>(width * int64_t(sizeof(T)), kPrefetchBytes));
  for (uintptr_t line = begin & ~uintptr_t(kCacheLine - 1); line < end;
       line += kCacheLine)
    prefetchLine(reinterpret_cast<const void *>(line));
}

//===--- Messages: what a destination reduces -----------------------------===//

/// The edge id of a destination's self-loop message.
constexpr int64_t kSelfLoop = -1;

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

bool isLinear(Reduce reduce) {
  return reduce == Reduce::Sum || reduce == Reduce::Mean;
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
// rows), accumulates a row of width <= kLocalWidth in registers or a local
// buffer that is written to the output once, and walks the backward pass's
// destinations through GraphView::outDst (no edge id lookup per edge).

/// Cache lines of gathered rows a thread keeps requested ahead of its walk,
/// and the bounds of that distance in positions: 14 rows of 128 floats,
/// 64 rows of 16 (measured on 1M nodes / 40M random edges, 2 threads:
/// 64 lines ahead or 8 rows of any width are slower).
constexpr int64_t kGatherLinesAhead = 128;
constexpr int64_t kMinGatherDistance = 4;
constexpr int64_t kMaxGatherDistance = 64;
/// Rows up to this many values accumulate in a local buffer.
constexpr int64_t kLocalWidth = 256;

/// Positions a walk prefetches ahead for rows of rowBytes bytes (a row that
/// does not start on a cache line spans one line more).
int64_t gatherDistance(int64_t rowBytes) {
  const int64_t lines = (rowBytes + kCacheLine - 1) / kCacheLine + 1;
  return std::clamp(kGatherLinesAhead / lines, kMinGatherDistance,
                    kMaxGatherDistance);
}

/// Output row i = sum over p in [offsets[i], offsets[i + 1]) of
/// c(p) * rows[ids[p]], plus, for i < selfRows, rowScale(i) * rows[i];
/// then, with meanOut, times 1 / (number of terms) if there are any.
/// c(p) = rowScale(ids[p]) * weight[edge(p)] (per weight group), where a
/// missing rowScale or weight is 1 and edge(p) is edgeIds[p], or p itself
/// when edgeIds is null. The terms are added in list order, self row last,
/// to a zero row: the same operations, in the same order, as the message
/// loop of reduceMessages.
template <typename T> struct LinearGather {
  int64_t numOut = 0;
  const int64_t *offsets = nullptr;
  const int32_t *ids = nullptr;
  const int64_t *edgeIds = nullptr;
  const T *rows = nullptr;
  int64_t width = 0;
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
  void add(const T *row) {
    for (int64_t i = 0; i < kVectors; ++i)
      acc[i] += load(row + i * kLanes);
  }
  void addScaled(T a, const T *row, int64_t j0, int64_t n) {
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
template <typename T, int64_t W, bool Scaled>
void linearGatherRows(const LinearGather<T> p, int64_t i0, int64_t i1,
                      int64_t distance) {
  const int64_t width = W > 0 ? W : p.width;
  const int64_t groups = Scaled && p.weight ? p.weightWidth : 1;
  const int64_t groupWidth = width / groups;
  const int64_t *const offsets = p.offsets;
  const int32_t *const ids = p.ids;
  const T *const rows = p.rows;
  auto coefficient = [&](int64_t q, int64_t group) {
    const T norm = p.rowScale ? p.rowScale[ids[q]] : T(1);
    const int64_t k = p.edgeIds ? p.edgeIds[q] : q;
    return norm * (p.weight ? p.weight[k * p.weightWidth + group] : T(1));
  };
  auto prefetch = [&](int64_t q) {
    prefetchRow(rows + int64_t(ids[q]) * width, width);
    if constexpr (Scaled) {
      if (p.weight && p.edgeIds)
        prefetchLine(p.weight + p.edgeIds[q] * p.weightWidth);
      if (p.rowScale)
        prefetchLine(p.rowScale + ids[q]);
    }
  };
  const int64_t qEnd = offsets[i1];
  // Start the first rows; the walk requests the rest as it goes.
  for (int64_t q = offsets[i0]; q < std::min(qEnd, offsets[i0] + distance);
       ++q)
    prefetch(q);
  RowAccumulator<T, W> acc(width);
  for (int64_t i = i0; i < i1; ++i) {
    T *o = p.out + i * width;
    if (p.accumulate)
      acc.resume(o);
    else
      acc.reset(o);
    const int64_t begin = offsets[i], end = offsets[i + 1];
    for (int64_t q = begin; q < end; ++q) {
      if (q + distance < qEnd)
        prefetch(q + distance);
      const T *row = rows + int64_t(ids[q]) * width;
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
        acc.addScaled(p.rowScale[i], rows + i * width, 0, width);
      else
        acc.add(rows + i * width);
    }
    const int64_t count = end - begin + (self ? 1 : 0);
    if (p.meanOut && count > 0)
      acc.scale(T(1) / T(count));
    acc.store(o);
  }
}

/// LinearGather over all output rows, in parallel chunks of rows.
template <typename T, int64_t W, bool Scaled>
void runLinearGather(const LinearGather<T> &p) {
  const int64_t width = W > 0 ? W : p.width;
  const int64_t distance = gatherDistance(width * int64_t(sizeof(T)));
  const int64_t chunks = (p.numOut + kNodeChunk - 1) / kNodeChunk;
  const bool threaded =
      worthThreads((p.offsets[p.numOut] + p.numOut) * width);
#pragma omp parallel for schedule(dynamic, 1) if (threaded)
  for (int64_t c = 0; c < chunks; ++c)
    linearGatherRows<T, W, Scaled>(
        p, c * kNodeChunk, std::min(p.numOut, (c + 1) * kNodeChunk),
        distance);
}

template <typename T> void linearGather(const LinearGather<T> &p) {
  if (p.numOut == 0)
    return;
  if (p.weight && p.weightWidth > 1) {
    runLinearGather<T, 0, true>(p);
    return;
  }
  auto run = [&](auto scaled) {
    constexpr bool Scaled = decltype(scaled)::value;
    switch (p.width) {
    case 16:
      return runLinearGather<T, 16, Scaled>(p);
    case 32:
      return runLinearGather<T, 32, Scaled>(p);
    case 64:
      return runLinearGather<T, 64, Scaled>(p);
    case 128:
      return runLinearGather<T, 128, Scaled>(p);
    default:
      return runLinearGather<T, 0, Scaled>(p);
    }
  };
  if (p.weight || p.rowScale)
    run(std::true_type());
  else
    run(std::false_type());
}

//===--- Axis tiles -------------------------------------------------------===//

/// Runs body(o, i0, i1) in parallel over every slice o of [outer, n, inner]
/// and every tile [i0, i1) of its inner columns; a tile owns its columns of
/// the whole middle axis.
template <typename Body>
void forEachAxisTile(int64_t outer, int64_t n, int64_t inner, Body &&body) {
  const int64_t tilesPerSlice = (inner + kInnerTile - 1) / kInnerTile;
  const int64_t tiles = outer * tilesPerSlice;
  const bool threaded = worthThreads(outer * n * inner);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t o = t / tilesPerSlice, i0 = (t % tilesPerSlice) * kInnerTile;
    body(o, i0, std::min(inner, i0 + kInnerTile));
  }
}

// Softmax over the rows of an [n, w] block whose rows lie `stride` apart,
// independently per column: an axis tile (stride inner) or a destination's
// in-edge rows (stride width). col* are scratch arrays of w values.

template <typename T>
void columnMax(const T *x, int64_t n, int64_t stride, int64_t w, T *colMax) {
  std::copy(x, x + w, colMax);
  for (int64_t t = 1; t < n; ++t)
    for (int64_t c = 0; c < w; ++c)
      colMax[c] = std::max(colMax[c], x[t * stride + c]);
}

/// y = softmax(x) for n >= 1 rows; the max is subtracted for stability.
template <typename T>
void softmaxColumns(const T *x, int64_t n, int64_t stride, int64_t w, T *y,
                    T *colMax, T *colSum) {
  columnMax(x, n, stride, w, colMax);
  fillRow(colSum, T(0), w);
  for (int64_t t = 0; t < n; ++t)
    for (int64_t c = 0; c < w; ++c) {
      y[t * stride + c] = std::exp(x[t * stride + c] - colMax[c]);
      colSum[c] += y[t * stride + c];
    }
  for (int64_t c = 0; c < w; ++c)
    colSum[c] = T(1) / colSum[c];
  for (int64_t t = 0; t < n; ++t)
    for (int64_t c = 0; c < w; ++c)
      y[t * stride + c] *= colSum[c];
}

/// dx = y * (dy - column sums of y * dy), the adjoint of softmaxColumns.
template <typename T>
void softmaxGradColumns(const T *dy, const T *y, int64_t n, int64_t stride,
                        int64_t w, T *dx, T *colDot) {
  fillRow(colDot, T(0), w);
  for (int64_t t = 0; t < n; ++t)
    for (int64_t c = 0; c < w; ++c)
      colDot[c] += y[t * stride + c] * dy[t * stride + c];
  for (int64_t t = 0; t < n; ++t)
    for (int64_t c = 0; c < w; ++c)
      dx[t * stride + c] = y[t * stride + c] * (dy[t * stride + c] - colDot[c]);
}

//===--- Loss helpers -----------------------------------------------------===//

bool isLossRow(int64_t i, const int64_t *labels, const uint8_t *mask) {
  return labels[i] >= 0 && (!mask || mask[i] != 0);
}

/// log(sum exp(row)), with the max subtracted for stability.
template <typename T> T logSumExp(const T *row, int64_t n) {
  const T rowMax = *std::max_element(row, row + n);
  T sum = 0;
  for (int64_t c = 0; c < n; ++c)
    sum += std::exp(row[c] - rowMax);
  return rowMax + std::log(sum);
}

//===--- Unbroadcast helpers ----------------------------------------------===//

/// A run of dy's dimensions that are all kept (or all summed away), merged
/// because they are adjacent in memory once size-1 dimensions are dropped.
struct DimRun {
  int64_t size, stride;
};

/// The dy offset of a linear index over runs listed innermost first.
int64_t offsetOf(int64_t linear, const DimRun *runs, int count) {
  int64_t offset = 0;
  for (int d = 0; d < count; ++d) {
    offset += (linear % runs[d].size) * runs[d].stride;
    linear /= runs[d].size;
  }
  return offset;
}

int64_t product(const int64_t *shape, int rank) {
  int64_t p = 1;
  for (int d = 0; d < rank; ++d)
    p *= shape[d];
  return p;
}

[[noreturn]] void throwShapeError(const std::string &message) {
  throw std::invalid_argument("unbroadcast: " + message);
}

//===--- CBLAS by scalar type ---------------------------------------------===//

void blasGemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n,
              blasint k, float alpha, const float *a, blasint lda,
              const float *b, blasint ldb, float beta, float *c, blasint ldc) {
  cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
              ldc);
}

void blasGemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n,
              blasint k, double alpha, const double *a, blasint lda,
              const double *b, blasint ldb, double beta, double *c,
              blasint ldc) {
  cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
              ldc);
}

} // namespace

//===--- Dense linear algebra ---------------------------------------------===//

/// Rows of C per block: small enough that an epilogue finds the block in
/// cache, large enough that each BLAS call runs at full speed.
constexpr int64_t kGemmRowBlock = 256;
/// Length of the K chunks a short-and-wide product is split into.
constexpr int64_t kGemmDepthChunk = 16384;

template <typename T>
void gemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, const T *A,
          const T *B, T *C, bool accumulate, const GemmEpilogue &epilogue) {
  if (M == 0 || N == 0)
    return;
  // BLAS rejects a leading dimension of 0, which K == 0 would give.
  if (K == 0) {
    if (!accumulate)
      fillRow(C, T(0), M * N);
    if (epilogue)
      epilogue(0, M);
    return;
  }
  const CBLAS_TRANSPOSE ta = transA ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE tb = transB ? CblasTrans : CblasNoTrans;
  const blasint lda = blasint(transA ? M : K), ldb = blasint(transB ? K : N);
  // Rows r of op(A) start at A + r * K, or at column r of A^T.
  auto rowsOfA = [&](int64_t r) { return transA ? A + r : A + r * K; };
  // Rows k of op(B) start at B + k * N, or at column k of B^T.
  auto depthOfB = [&](int64_t k) { return transB ? B + k : B + k * N; };
  auto depthOfA = [&](int64_t k) { return transA ? A + k * M : A + k; };
  const int64_t rowBlocks = (M + kGemmRowBlock - 1) / kGemmRowBlock;
  const int64_t depthChunks = (K + kGemmDepthChunk - 1) / kGemmDepthChunk;
  const bool threaded = worthThreads(M * N * std::min<int64_t>(K, 64));

  if (rowBlocks >= 4 || depthChunks < 2) {
#pragma omp parallel for schedule(dynamic, 1) if (threaded && rowBlocks > 1)
    for (int64_t b = 0; b < rowBlocks; ++b) {
      const int64_t r0 = b * kGemmRowBlock;
      const int64_t r1 = std::min(M, r0 + kGemmRowBlock);
      blasGemm(ta, tb, blasint(r1 - r0), blasint(N), blasint(K), T(1),
               rowsOfA(r0), lda, B, ldb, accumulate ? T(1) : T(0), C + r0 * N,
               blasint(N));
      if (epilogue)
        epilogue(r0, r1);
    }
    return;
  }
  // Few rows, long K: partial products over fixed K chunks, summed in order.
  std::vector<T> partial(size_t(depthChunks * M * N));
#pragma omp parallel for schedule(dynamic, 1) if (threaded)
  for (int64_t c = 0; c < depthChunks; ++c) {
    const int64_t k0 = c * kGemmDepthChunk;
    const int64_t k1 = std::min(K, k0 + kGemmDepthChunk);
    blasGemm(ta, tb, blasint(M), blasint(N), blasint(k1 - k0), T(1),
             depthOfA(k0), lda, depthOfB(k0), ldb, T(0),
             partial.data() + c * M * N, blasint(N));
  }
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t i = 0; i < M * N; ++i) {
    T sum = accumulate ? C[i] : T(0);
    for (int64_t c = 0; c < depthChunks; ++c)
      sum += partial[size_t(c * M * N + i)];
    C[i] = sum;
  }
  if (epilogue)
    epilogue(0, M);
}

//===--- Graph primitives and their adjoints ------------------------------===//

template <typename T>
void aggregate(const GraphView &g, Reduce reduce, bool selfLoops, const T *x,
               int64_t width, const T *weight, int64_t weightWidth, T *out,
               bool accumulate) {
  if (accumulate && reduce != Reduce::Sum)
    throw std::invalid_argument("aggregate: only a sum can accumulate");
  if (isLinear(reduce)) {
    LinearGather<T> p;
    p.numOut = g.numDst;
    p.offsets = g.inOffsets;
    p.ids = g.edgeSrc;
    p.rows = x;
    p.width = width;
    p.weight = weight;
    p.weightWidth = weight ? weightWidth : 1;
    p.selfRows = selfLoops ? g.numDst : 0;
    p.meanOut = reduce == Reduce::Mean;
    p.accumulate = accumulate;
    p.out = out;
    linearGather(p);
    return;
  }
  reduceMessages(aggregateMessages(g, selfLoops, x, width, weight, weightWidth),
                 reduce, out);
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

//===--- Axis operations --------------------------------------------------===//
//
// Element (o, t, i) of an [outer, n, inner] view is at o*n*inner + t*inner +
// i; a tile body sees xs = x + o*n*inner + i0, so its column c of row t is
// xs[t * inner + c].

template <typename T>
void softmax(int64_t outer, int64_t n, int64_t inner, const T *x, T *y) {
  if (n == 0)
    return;
  forEachAxisTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0;
    T colMax[kInnerTile], colSum[kInnerTile];
    softmaxColumns(x + base, n, inner, i1 - i0, y + base, colMax, colSum);
  });
}

template <typename T>
void softmaxGrad(int64_t outer, int64_t n, int64_t inner, const T *dy,
                 const T *y, T *dx) {
  forEachAxisTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0;
    T colDot[kInnerTile];
    softmaxGradColumns(dy + base, y + base, n, inner, i1 - i0, dx + base,
                       colDot);
  });
}

template <typename T>
void logSoftmax(int64_t outer, int64_t n, int64_t inner, const T *x, T *y) {
  if (n == 0)
    return;
  forEachAxisTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0, w = i1 - i0;
    const T *xs = x + base;
    T *ys = y + base;
    T colMax[kInnerTile], colSum[kInnerTile] = {};
    columnMax(xs, n, inner, w, colMax);
    for (int64_t t = 0; t < n; ++t)
      for (int64_t c = 0; c < w; ++c)
        colSum[c] += std::exp(xs[t * inner + c] - colMax[c]);
    for (int64_t c = 0; c < w; ++c)
      colMax[c] += std::log(colSum[c]); // now log-sum-exp
    for (int64_t t = 0; t < n; ++t)
      for (int64_t c = 0; c < w; ++c)
        ys[t * inner + c] = xs[t * inner + c] - colMax[c];
  });
}

template <typename T>
void logSoftmaxGrad(int64_t outer, int64_t n, int64_t inner, const T *dy,
                    const T *y, T *dx) {
  forEachAxisTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0, w = i1 - i0;
    T colSum[kInnerTile] = {};
    for (int64_t t = 0; t < n; ++t)
      for (int64_t c = 0; c < w; ++c)
        colSum[c] += dy[base + t * inner + c];
    for (int64_t t = 0; t < n; ++t)
      for (int64_t c = 0; c < w; ++c) {
        const int64_t at = base + t * inner + c;
        dx[at] = dy[at] - std::exp(y[at]) * colSum[c];
      }
  });
}

template <typename T>
void reduceAxis(Reduce kind, int64_t outer, int64_t n, int64_t inner,
                const T *x, T *y) {
  // An empty axis reduces to 0, like a destination without messages.
  if (n == 0) {
    fillRow(y, T(0), outer * inner);
    return;
  }
  forEachAxisTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const T *xs = x + o * n * inner + i0;
    T *ys = y + o * inner + i0;
    const int64_t w = i1 - i0;
    std::copy(xs, xs + w, ys);
    for (int64_t t = 1; t < n; ++t) {
      const T *row = xs + t * inner;
      if (kind == Reduce::Max)
        maxScaledRow(ys, T(1), row, w);
      else if (kind == Reduce::Min)
        minScaledRow(ys, T(1), row, w);
      else
        addRow(ys, row, w);
    }
    if (kind == Reduce::Mean)
      scaleRow(ys, T(1) / T(n), w);
  });
}

template <typename T>
void reduceAxisGrad(Reduce kind, int64_t outer, int64_t n, int64_t inner,
                    const T *dy, const T *x, const T *y, T *dx) {
  forEachAxisTile(outer, n, inner, [&](int64_t o, int64_t i0, int64_t i1) {
    const int64_t base = o * n * inner + i0, w = i1 - i0;
    const T *dys = dy + o * inner + i0, *ys = y + o * inner + i0;
    if (isLinear(kind)) {
      const T norm = kind == Reduce::Mean ? T(1) / T(n) : T(1);
      for (int64_t t = 0; t < n; ++t)
        scaledCopyRow(dx + base + t * inner, norm, dys, w);
      return;
    }
    // The first element equal to the result takes the whole gradient.
    bool won[kInnerTile] = {};
    for (int64_t t = 0; t < n; ++t)
      for (int64_t c = 0; c < w; ++c) {
        const int64_t at = base + t * inner + c;
        const bool wins = !won[c] && x[at] == ys[c];
        dx[at] = wins ? dys[c] : T(0);
        won[c] = won[c] || wins;
      }
  });
}

template <typename T>
void copyIntoAxis(int64_t outer, int64_t n, int64_t inner, const T *x,
                  int64_t total, int64_t offset, T *out) {
  const bool threaded = worthThreads(outer * n * inner);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(out + (o * total + offset) * inner, x + o * n * inner,
                size_t(n * inner) * sizeof(T));
}

template <typename T>
void sliceAxis(int64_t outer, int64_t total, int64_t inner, const T *x,
               int64_t offset, int64_t n, T *out) {
  const bool threaded = worthThreads(outer * n * inner);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(out + o * n * inner, x + (o * total + offset) * inner,
                size_t(n * inner) * sizeof(T));
}

template <typename T>
void unbroadcast(const T *dy, const int64_t *dyShape, int dyRank, T *out,
                 const int64_t *outShape, int outRank) {
  if (dyRank > kMaxRank || outRank < 0 || outRank > dyRank)
    throwShapeError("rank " + std::to_string(outRank) + " from rank " +
                    std::to_string(dyRank) + " (at most " +
                    std::to_string(kMaxRank) + ")");
  const int64_t outSize = product(outShape, outRank);
  const int64_t dySize = product(dyShape, dyRank);
  if (dySize == 0) {
    fillRow(out, T(0), outSize);
    return;
  }
  // Classify dy's dims, innermost first, into runs kept in out (which is
  // laid out as the kept runs) and runs summed away.
  DimRun kept[kMaxRank], summed[kMaxRank];
  int numKept = 0, numSummed = 0;
  bool previousSummed = false, havePrevious = false;
  int64_t stride = 1;
  for (int d = dyRank - 1; d >= 0; --d) {
    const int64_t size = dyShape[d];
    const int od = d - (dyRank - outRank);
    const int64_t target = od >= 0 ? outShape[od] : 1;
    if (target != size && target != 1)
      throwShapeError("dimension " + std::to_string(d) + " of size " +
                      std::to_string(size) + " cannot be reduced to " +
                      std::to_string(target));
    if (size != 1) {
      const bool isSummed = target == 1;
      DimRun *runs = isSummed ? summed : kept;
      int &count = isSummed ? numSummed : numKept;
      if (havePrevious && previousSummed == isSummed)
        runs[count - 1].size *= size;
      else
        runs[count++] = {size, stride};
      previousSummed = isSummed;
      havePrevious = true;
    }
    stride *= size;
  }
  if (numSummed == 0) {
    std::copy(dy, dy + dySize, out);
    return;
  }
  int64_t summedSize = 1;
  for (int d = 0; d < numSummed; ++d)
    summedSize *= summed[d].size;

  if (numKept > 0 && kept[0].stride == 1) {
    // The innermost dim is kept (a bias gradient): add whole row segments,
    // split into column tiles so even a single output row runs in parallel.
    const int64_t rowLength = kept[0].size, rows = outSize / rowLength;
    const int64_t tilesPerRow = (rowLength + kInnerTile - 1) / kInnerTile;
    const bool threaded = worthThreads(dySize);
#pragma omp parallel for schedule(static) if (threaded)
    for (int64_t t = 0; t < rows * tilesPerRow; ++t) {
      const int64_t row = t / tilesPerRow, i0 = (t % tilesPerRow) * kInnerTile;
      const int64_t w = std::min(kInnerTile, rowLength - i0);
      const T *first = dy + offsetOf(row, kept + 1, numKept - 1) + i0;
      T *o = out + row * rowLength + i0;
      fillRow(o, T(0), w);
      for (int64_t r = 0; r < summedSize; ++r)
        addRow(o, first + offsetOf(r, summed, numSummed), w);
    }
    return;
  }
  // The innermost dim is summed: each output element adds contiguous runs.
  const int64_t runLength = summed[0].size;
  const int64_t runs = summedSize / runLength;
  const bool threaded = worthThreads(dySize);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t o = 0; o < outSize; ++o) {
    const T *first = dy + offsetOf(o, kept, numKept);
    T acc = 0;
    for (int64_t r = 0; r < runs; ++r) {
      const T *run = first + offsetOf(r, summed + 1, numSummed - 1);
      for (int64_t i = 0; i < runLength; ++i)
        acc += run[i];
    }
    out[o] = acc;
  }
}

//===--- Dropout and the loss ---------------------------------------------===//

namespace {

/// One Philox block (128 random bits) decides 8 elements with 16 bits each:
/// lane k keeps its element iff its 16 bits are >= p * 2^16 (p resolved to
/// 1/65536, far finer than any dropout rate anyone sets).
template <typename T> struct DropoutLanes {
  explicit DropoutLanes(double p)
      : threshold(uint32_t(std::min(65536.0, std::ceil(p * 65536.0)))),
        keptScale(p < 1 ? T(1.0 / (1.0 - p)) : T(0)) {}
  T apply(const std::array<uint32_t, 4> &bits, int lane, T v) const {
    const uint32_t r = (bits[lane / 2] >> (16 * (lane % 2))) & 0xFFFFu;
    return r >= threshold ? v * keptScale : T(0);
  }
  uint32_t threshold;
  T keptScale;
};

} // namespace

template <typename T>
void dropout(uint64_t seed, uint64_t stream, double p, int64_t n, const T *x,
             T *y) {
  // Element i is lane i % 8 of block i / 8: the mask is a function of
  // (seed, stream, i) only, whoever computes it.
  const DropoutLanes<T> lanes(p);
  const int64_t blocks = (n + 7) / 8;
  const bool threaded = worthThreads(n);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t first = b * 8, last = std::min(n, first + 8);
    // Zeros stay zero whatever the mask: sparse inputs (bag-of-words
    // features) skip most of the cipher.
    bool allZero = true;
    for (int64_t i = first; i < last; ++i)
      allZero &= x[i] == T(0);
    if (allZero) {
      std::fill(y + first, y + last, T(0));
      continue;
    }
    const std::array<uint32_t, 4> bits = randomBits(seed, stream, uint64_t(b));
    for (int64_t i = first; i < last; ++i)
      y[i] = lanes.apply(bits, int(i - first), x[i]);
  }
}

template <typename T>
void dropoutRows(uint64_t seed, uint64_t stream, double p, int64_t rows,
                 int64_t width, const int64_t *rowIds, const T *x, T *y) {
  if (!rowIds) {
    dropout(seed, stream, p, rows * width, x, y);
    return;
  }
  // Element (r, j) decides as element rowIds[r] * width + j of dropout():
  // the mask of a node's row does not depend on where the row lives.
  const DropoutLanes<T> lanes(p);
  const bool threaded = worthThreads(rows * width);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t r = 0; r < rows; ++r) {
    const uint64_t base = uint64_t(rowIds[r]) * uint64_t(width);
    uint64_t block = ~uint64_t(0);
    std::array<uint32_t, 4> bits{};
    for (int64_t j = 0; j < width; ++j) {
      const T v = x[r * width + j];
      if (v == T(0)) {
        y[r * width + j] = T(0);
        continue;
      }
      const uint64_t i = base + uint64_t(j);
      if (i / 8 != block) {
        block = i / 8;
        bits = randomBits(seed, stream, block);
      }
      y[r * width + j] = lanes.apply(bits, int(i % 8), v);
    }
  }
}

template <typename T>
T crossEntropy(int64_t rows, int64_t classes, const T *logits,
               const int64_t *labels, const uint8_t *mask) {
  const int64_t chunks = (rows + kLossChunk - 1) / kLossChunk;
  std::vector<T> chunkLoss(size_t(chunks), T(0));
  std::vector<int64_t> chunkRows(size_t(chunks), 0);
  const bool threaded = worthThreads(rows * classes);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t c = 0; c < chunks; ++c) {
    T loss = 0;
    int64_t count = 0;
    for (int64_t i = c * kLossChunk; i < std::min(rows, (c + 1) * kLossChunk);
         ++i) {
      if (!isLossRow(i, labels, mask))
        continue;
      const T *row = logits + i * classes;
      loss += logSumExp(row, classes) - row[labels[i]];
      ++count;
    }
    chunkLoss[c] = loss;
    chunkRows[c] = count;
  }
  T total = 0;
  int64_t count = 0;
  for (int64_t c = 0; c < chunks; ++c) {
    total += chunkLoss[c];
    count += chunkRows[c];
  }
  return count > 0 ? total / T(count) : T(0);
}

template <typename T>
void crossEntropyGrad(int64_t rows, int64_t classes, const T *logits,
                      const int64_t *labels, const uint8_t *mask, T dloss,
                      T *dlogits) {
  int64_t count = 0;
  const bool threaded = worthThreads(rows * classes);
#pragma omp parallel for schedule(static) reduction(+ : count) if (threaded)
  for (int64_t i = 0; i < rows; ++i)
    count += isLossRow(i, labels, mask) ? 1 : 0;
  const T rowScale = count > 0 ? dloss / T(count) : T(0);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t i = 0; i < rows; ++i) {
    T *d = dlogits + i * classes;
    if (count == 0 || !isLossRow(i, labels, mask)) {
      fillRow(d, T(0), classes);
      continue;
    }
    const T *row = logits + i * classes;
    const T lse = logSumExp(row, classes);
    for (int64_t c = 0; c < classes; ++c)
      d[c] = rowScale * std::exp(row[c] - lse);
    d[labels[i]] -= rowScale;
  }
}

//===--- Instantiations ---------------------------------------------------===//

#define GNNRT_INSTANTIATE_KERNELS(T)                                           \
  template void gemm<T>(bool, bool, int64_t, int64_t, int64_t, const T *,      \
                        const T *, T *, bool, const GemmEpilogue &);           \
  template void aggregate<T>(const GraphView &, Reduce, bool, const T *,       \
                             int64_t, const T *, int64_t, T *, bool);          \
  template void aggregateGradInput<T>(const GraphView &, Reduce, bool,         \
                                      const T *, const T *, const T *,         \
                                      int64_t, const T *, int64_t, T *);       \
  template void aggregateGradWeight<T>(const GraphView &, Reduce, bool,        \
                                       const T *, const T *, const T *,        \
                                       int64_t, const T *, int64_t, T *);      \
  template void gather<T>(const GraphView &, Side, const T *, int64_t, T *);   \
  template void gatherGrad<T>(const GraphView &, Side, const T *, int64_t,     \
                              T *);                                            \
  template void scatter<T>(const GraphView &, Reduce, const T *, int64_t,      \
                           T *);                                               \
  template void scatterGrad<T>(const GraphView &, Reduce, const T *,           \
                               const T *, const T *, int64_t, T *);            \
  template void edgeSoftmax<T>(const GraphView &, const T *, int64_t, T *);    \
  template void edgeSoftmaxGrad<T>(const GraphView &, const T *, const T *,    \
                                   int64_t, T *);                              \
  template void degree<T>(const GraphView &, Side, T *);                       \
  template void softmax<T>(int64_t, int64_t, int64_t, const T *, T *);         \
  template void softmaxGrad<T>(int64_t, int64_t, int64_t, const T *,           \
                               const T *, T *);                                \
  template void logSoftmax<T>(int64_t, int64_t, int64_t, const T *, T *);      \
  template void logSoftmaxGrad<T>(int64_t, int64_t, int64_t, const T *,        \
                                  const T *, T *);                             \
  template void reduceAxis<T>(Reduce, int64_t, int64_t, int64_t, const T *,    \
                              T *);                                            \
  template void reduceAxisGrad<T>(Reduce, int64_t, int64_t, int64_t,           \
                                  const T *, const T *, const T *, T *);       \
  template void copyIntoAxis<T>(int64_t, int64_t, int64_t, const T *, int64_t, \
                                int64_t, T *);                                 \
  template void sliceAxis<T>(int64_t, int64_t, int64_t, const T *, int64_t,    \
                             int64_t, T *);                                    \
  template void unbroadcast<T>(const T *, const int64_t *, int, T *,           \
                               const int64_t *, int);                          \
  template void dropout<T>(uint64_t, uint64_t, double, int64_t, const T *,     \
                           T *);                                               \
  template void dropoutRows<T>(uint64_t, uint64_t, double, int64_t, int64_t,   \
                               const int64_t *, const T *, T *);               \
  template T crossEntropy<T>(int64_t, int64_t, const T *, const int64_t *,     \
                             const uint8_t *);                                 \
  template void crossEntropyGrad<T>(int64_t, int64_t, const T *,               \
                                    const int64_t *, const uint8_t *, T, T *);

GNNRT_INSTANTIATE_KERNELS(float)
GNNRT_INSTANTIATE_KERNELS(double)

#undef GNNRT_INSTANTIATE_KERNELS

} // namespace gnnrt::kernels
