//===- Common.h - What the CPU kernels share --------------------*- C++ -*-===//
//
// Internal to lib/kernels/cpu: the thresholds that decide when a kernel
// goes parallel and how far ahead it prefetches, and the row primitives
// every family's inner loops are made of.
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

#ifndef GNNRT_LIB_KERNELS_CPU_COMMON_H
#define GNNRT_LIB_KERNELS_CPU_COMMON_H

#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/Gemm.h"
#include "gnnrt/kernels/Types.h"
#include "gnnrt/support/CpuIsa.h"
#include "gnnrt/support/Prefetch.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace gnnrt::kernels::detail {

/// Whether kernels with an AVX-512 version run it (gnnrt/support/CpuIsa.h).
using gnnrt::useAvx512;

/// Destinations (or sources) per dynamically scheduled chunk: enough to
/// amortize scheduling, few enough to balance power-law degrees.
inline constexpr int64_t kNodeChunk = 64;
/// How many edges ahead a gather prefetches, and at most how much of a row.
inline constexpr int64_t kPrefetchEdges = 8;
inline constexpr int64_t kPrefetchBytes = 2048;
inline constexpr int64_t kCacheLine = 64;
/// Below this many elements of work a kernel runs on the calling thread:
/// waking the thread team would cost more than it saves (small graphs, and
/// the many tiny calls of a gradient check).
inline constexpr int64_t kMinThreadedWork = int64_t(1) << 15;
/// GEMMs (Gemm.cpp, GemmBFloat16.cpp): rows of C per block, small enough
/// that an epilogue finds the block in cache, large enough that each block
/// product runs at full speed; and the length of the K chunks a
/// short-and-wide product is split into (partial products summed in order).
inline constexpr int64_t kGemmRowBlock = 256;
inline constexpr int64_t kGemmDepthChunk = 16384;

inline bool worthThreads(int64_t work) { return work >= kMinThreadedWork; }

/// Columns per task of the operations along one axis of [outer, n, inner]
/// (softmax, reductions, batch normalization): contiguous enough to
/// vectorize, narrow enough to split a single wide slice over threads.
inline constexpr int64_t kInnerTile = 64;

/// Runs body(o, i0, i1) in parallel over every slice o of [outer, n, inner]
/// and every tile [i0, i1) of its inner columns; a tile owns its columns of
/// the whole middle axis.
template <typename Body>
void forEachColumnTile(int64_t outer, int64_t n, int64_t inner, Body &&body) {
  const int64_t tilesPerSlice = (inner + kInnerTile - 1) / kInnerTile;
  const int64_t tiles = outer * tilesPerSlice;
  const bool threaded = worthThreads(outer * n * inner);
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t o = t / tilesPerSlice, i0 = (t % tilesPerSlice) * kInnerTile;
    body(o, i0, std::min(inner, i0 + kInnerTile));
  }
}

/// 16 bytes of T: the columns one SSE register sums. Column sums over rows
/// (batch normalization's statistics, bias gradients) keep a few dozen
/// columns' sums in registers of these while the rows stream past (GCC's
/// SLP vectorizer scalarized the same loops over arrays); each lane adds
/// its column's values in row order, as a scalar loop would.
template <typename T> struct Lanes {
  typedef T Vector __attribute__((vector_size(16)));
  static constexpr int64_t kCount = 16 / sizeof(T);
  static Vector load(const T *p) {
    Vector v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static void store(T *p, Vector v) { std::memcpy(p, &v, sizeof v); }
};

/// The elements a graph kernel touches, for worthThreads.
inline int64_t graphWork(const GraphView &g, int64_t width) {
  return (g.numEdges + g.numSrc) * width;
}

inline bool isLinear(Reduce reduce) {
  return reduce == Reduce::Sum || reduce == Reduce::Mean;
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

/// Calls request(line) for the cache lines of the first kPrefetchBytes of
/// a row.
template <typename T, typename Request>
void forEachRowLine(const T *row, int64_t width, Request &&request) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(row);
  const uintptr_t end =
      begin +
      uintptr_t(std::min<int64_t>(width * int64_t(sizeof(T)), kPrefetchBytes));
  for (uintptr_t line = begin & ~uintptr_t(kCacheLine - 1); line < end;
       line += kCacheLine)
    request(reinterpret_cast<const void *>(line));
}

/// Requests the cache lines of a row that a later iteration gathers: rows
/// selected by edge endpoints lie at random places, which no hardware
/// prefetcher predicts.
template <typename T> void prefetchRow(const T *row, int64_t width) {
  forEachRowLine(row, width, [](const void *line) { prefetchLine(line); });
}

/// prefetchRow into L2 only (prefetchLineToL2): the far stage of a gather
/// that prefetches in two stages.
template <typename T> void prefetchRowToL2(const T *row, int64_t width) {
  forEachRowLine(row, width, [](const void *line) { prefetchLineToL2(line); });
}

//===--- GEMM blocking ----------------------------------------------------===//
//
// gemm (fp32 and float64 through BLAS) and its bf16 form (GemmBFloat16.cpp)
// cut C the same way: blocks of kGemmRowBlock rows spread over OpenMP
// threads, each handed to the epilogue when final; or, when C has few rows
// and K is long (a weight gradient), fixed chunks of K whose partial
// products are summed in chunk order. The cut does not depend on the thread
// count, so neither does the result.

/// Whether a [M, ?] x [?, N] product over K is cut into row blocks (else
/// into K chunks).
inline bool gemmByRowBlocks(int64_t M, int64_t K) {
  const int64_t rowBlocks = (M + kGemmRowBlock - 1) / kGemmRowBlock;
  const int64_t depthChunks = (K + kGemmDepthChunk - 1) / kGemmDepthChunk;
  return rowBlocks >= 4 || depthChunks < 2;
}

/// C [M, N] (+)= the product, cut as above: `rows(r0, r1, c)` computes C's
/// rows [r0, r1) at c (adding to them if `accumulate`); `depth(k0, k1,
/// out)` the product over K [k0, k1) into `out` [M, N].
template <typename T, typename RowBlock, typename DepthChunk>
void blockedGemm(int64_t M, int64_t N, int64_t K, T *C, bool accumulate,
                 const GemmEpilogue &epilogue, RowBlock rows,
                 DepthChunk depth) {
  // An empty sum (BLAS would also reject the leading dimension 0 of K == 0).
  if (K == 0) {
    if (!accumulate)
      fillRow(C, T(0), M * N);
    if (epilogue)
      epilogue(0, M);
    return;
  }
  const bool threaded = worthThreads(M * N * std::min<int64_t>(K, 64));
  if (gemmByRowBlocks(M, K)) {
    const int64_t rowBlocks = (M + kGemmRowBlock - 1) / kGemmRowBlock;
#pragma omp parallel for schedule(dynamic, 1) if (threaded && rowBlocks > 1)
    for (int64_t b = 0; b < rowBlocks; ++b) {
      const int64_t r0 = b * kGemmRowBlock;
      const int64_t r1 = std::min(M, r0 + kGemmRowBlock);
      rows(r0, r1, C + r0 * N);
      if (epilogue)
        epilogue(r0, r1);
    }
    return;
  }
  const int64_t chunks = (K + kGemmDepthChunk - 1) / kGemmDepthChunk;
  std::vector<T> partial(size_t(chunks * M * N));
#pragma omp parallel for schedule(dynamic, 1) if (threaded)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t k0 = c * kGemmDepthChunk;
    depth(k0, std::min(K, k0 + kGemmDepthChunk), partial.data() + c * M * N);
  }
#pragma omp parallel for schedule(static) if (threaded)
  for (int64_t i = 0; i < M * N; ++i) {
    T sum = accumulate ? C[i] : T(0);
    for (int64_t c = 0; c < chunks; ++c)
      sum += partial[size_t(c * M * N + i)];
    C[i] = sum;
  }
  if (epilogue)
    epilogue(0, M);
}

} // namespace gnnrt::kernels::detail

#endif // GNNRT_LIB_KERNELS_CPU_COMMON_H
