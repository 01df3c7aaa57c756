//===- Messages.h - What a destination reduces, on a device -----*- C++ -*-===//
//
// Internal to lib/kernels/cuda, the counterpart of cpu/Messages.h: the
// messages of aggregate (the weighted source row of each in-edge, then
// optionally the destination's own row) and of scatter (each in-edge's own
// row), reduced by one warp per destination with lanes striding over the
// columns, so each message row is read with coalesced loads (sum and mean
// of rows up to 512 wide: every column of a lane in registers, one walk over
// the messages). Each lane
// combines its column in the order Aggregate.h fixes (edge order, self loop
// last; a mean as a multiply by the reciprocal; max/min from the first
// message), and finds, for the adjoints of max/min, the first message that
// equals the result. The rows may be stored as bf16 (S = BFloat16: a bf16
// run's sum and mean aggregations, BFloat16Rows.h), widened before any use.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_KERNELS_CUDA_MESSAGES_H
#define GNNRT_LIB_KERNELS_CUDA_MESSAGES_H

#include "BFloat16Rows.h"
#include "Common.h"
#include "gnnrt/kernels/Types.h"

#include <cstdint>
#include <type_traits>

namespace gnnrt::kernels::cuda::detail {

/// The messages of one aggregate or scatter, by value into the kernels;
/// rows stored as S, arithmetic in T.
template <typename T, typename S = T> struct MessageArgs {
  int64_t numDst;
  const int64_t *offsets;
  const int32_t *sources;
  /// Row k of `rows` is edge k's message (scatter) rather than row
  /// sources[k] (aggregate).
  bool rowPerEdge;
  bool selfLoops;
  const S *rows;
  int64_t width;
  const T *weight; ///< null: every scale is 1
  int64_t weightWidth;

  __device__ int64_t count(int64_t v) const {
    return offsets[v + 1] - offsets[v] + (selfLoops ? 1 : 0);
  }
  __device__ const S *row(int64_t k) const {
    return rows + (rowPerEdge ? k : int64_t(sources[k])) * width;
  }
  /// Element j of destination v's own row (the self loop's message).
  __device__ T selfRow(int64_t v, int64_t j) const {
    return widen(rows[v * width + j]);
  }
  /// The same messages over rows stored as R (a rounded copy of `rows`).
  template <typename R> MessageArgs<T, R> readingRows(const R *copy) const {
    return {numDst, offsets, sources, rowPerEdge, selfLoops,
            copy,   width,   weight,  weightWidth};
  }
  /// Element j of edge k's message.
  __device__ T message(int64_t k, int64_t j) const {
    const T v = widen(row(k)[j]);
    return weight ? mul(weight[k * weightWidth + j / (width / weightWidth)], v)
                  : v;
  }
};

template <typename T>
MessageArgs<T> aggregateMessages(const GraphView &g, bool selfLoops, const T *x,
                                 int64_t width, const T *weight,
                                 int64_t weightWidth) {
  return {g.numDst, g.inOffsets, g.edgeSrc,
          false,    selfLoops,   x,
          width,    weight,      weight ? weightWidth : 1};
}

template <typename T>
MessageArgs<T> edgeMessages(const GraphView &g, const T *e, int64_t width) {
  return {g.numDst, g.inOffsets, g.edgeSrc, true, false, e, width, nullptr, 1};
}

/// out[numDst, width] = the reduction of each destination's messages
/// (with `accumulate`, a sum added to out's rows).
template <typename T, typename S>
__global__ void reduceMessagesKernel(const MessageArgs<T, S> m, Reduce reduce,
                                     bool accumulate, T *out) {
  const int64_t v = globalWarp();
  if (v >= m.numDst)
    return;
  const int64_t begin = m.offsets[v], end = m.offsets[v + 1];
  const bool linear = reduce == Reduce::Sum || reduce == Reduce::Mean;
  for (int64_t j = lane(); j < m.width; j += kWarp) {
    T *o = out + v * m.width + j;
    T acc = accumulate ? *o : T(0);
    bool first = true;
    auto combine = [&](T msg) {
      if (linear)
        acc = add(acc, msg);
      else if (first)
        acc = msg;
      else if (reduce == Reduce::Max)
        acc = msg > acc ? msg : acc;
      else
        acc = msg < acc ? msg : acc;
      first = false;
    };
    for (int64_t k = begin; k < end; ++k)
      combine(m.message(k, j));
    if (m.selfLoops)
      combine(m.selfRow(v, j));
    const int64_t count = m.count(v);
    if (reduce == Reduce::Mean && count > 0)
      acc = mul(acc, T(1) / T(count));
    *o = acc;
  }
}

/// Sum and mean of rows at most kWarp * kColumnsPerLane wide: one walk over
/// each destination's messages, each lane keeping its columns j = lane +
/// kWarp * c in registers, so an edge's whole row is requested at once (the
/// kernel above walks the edges once per 32 columns, a row's 128 bytes at a
/// time). Each column adds the same terms in the same order: the same bits.
template <int kColumnsPerLane, typename T, typename S>
__global__ void sumMessagesInRegistersKernel(const MessageArgs<T, S> m,
                                             bool mean, bool accumulate,
                                             T *out) {
  const int64_t v = globalWarp();
  if (v >= m.numDst)
    return;
  T *o = out + v * m.width;
  T acc[kColumnsPerLane];
  GNNRT_UNROLL
  for (int c = 0; c < kColumnsPerLane; ++c) {
    const int64_t j = lane() + int64_t(kWarp) * c;
    acc[c] = accumulate && j < m.width ? o[j] : T(0);
  }
  const int64_t begin = m.offsets[v], end = m.offsets[v + 1];
  for (int64_t k = begin; k < end; ++k) {
    GNNRT_UNROLL
    for (int c = 0; c < kColumnsPerLane; ++c) {
      const int64_t j = lane() + int64_t(kWarp) * c;
      if (j < m.width)
        acc[c] = add(acc[c], m.message(k, j));
    }
  }
  const int64_t count = m.count(v);
  GNNRT_UNROLL
  for (int c = 0; c < kColumnsPerLane; ++c) {
    const int64_t j = lane() + int64_t(kWarp) * c;
    if (j >= m.width)
      continue;
    if (m.selfLoops)
      acc[c] = add(acc[c], m.selfRow(v, j));
    if (mean && count > 0)
      acc[c] = mul(acc[c], T(1) / T(count));
    o[j] = acc[c];
  }
}

/// Calls f(std::integral_constant<int, C>()) for the smallest C of 1, 2, 4,
/// 8 and 16 with kWarp * C >= width, and returns true; false for wider rows.
template <typename F> bool withColumnsPerLane(int64_t width, F &&f) {
  if (width <= kWarp)
    f(std::integral_constant<int, 1>());
  else if (width <= 2 * kWarp)
    f(std::integral_constant<int, 2>());
  else if (width <= 4 * kWarp)
    f(std::integral_constant<int, 4>());
  else if (width <= 8 * kWarp)
    f(std::integral_constant<int, 8>());
  else if (width <= 16 * kWarp)
    f(std::integral_constant<int, 16>());
  else
    return false;
  return true;
}

/// For max/min: winner[v, j] = the index (in message order, the self loop
/// last) of v's first message whose element j equals out[v, j], or -1.
template <typename T>
__global__ void findWinnersKernel(const MessageArgs<T> m, const T *out,
                                  int32_t *winner) {
  const int64_t v = globalWarp();
  if (v >= m.numDst)
    return;
  const int64_t begin = m.offsets[v], end = m.offsets[v + 1];
  for (int64_t j = lane(); j < m.width; j += kWarp) {
    const T result = out[v * m.width + j];
    int32_t won = -1;
    for (int64_t k = begin; k < end && won < 0; ++k)
      if (m.message(k, j) == result)
        won = int32_t(k - begin);
    if (won < 0 && m.selfLoops && m.selfRow(v, j) == result)
      won = int32_t(end - begin);
    winner[v * m.width + j] = won;
  }
}

template <typename T, typename S>
void reduceMessages(const MessageArgs<T, S> &m, Reduce reduce, bool accumulate,
                    T *out, const char *what) {
  if (m.numDst == 0 || m.width == 0)
    return;
  const bool linear = reduce == Reduce::Sum || reduce == Reduce::Mean;
  if (linear && withColumnsPerLane(m.width, [&](auto columns) {
        GNNRT_LAUNCH_WITHOUT_BARRIERS(
            warpBlocksFor(m.numDst), kBlock, 0, stream(),
            sumMessagesInRegistersKernel<decltype(columns)::value, T, S>)
        (m, reduce == Reduce::Mean, accumulate, out);
      })) {
    checkLaunch(what);
    return;
  }
  GNNRT_LAUNCH(warpBlocksFor(m.numDst), kBlock, 0, stream(),
               reduceMessagesKernel<T, S>)
  (m, reduce, accumulate, out);
  checkLaunch(what);
}

/// The winners of every destination, in scratch memory.
template <typename T>
int32_t *findWinners(const MessageArgs<T> &m, const T *out, const char *what) {
  auto *winner = static_cast<int32_t *>(
      scratch(size_t(m.numDst * m.width) * sizeof(int32_t)));
  if (m.numDst > 0 && m.width > 0) {
    GNNRT_LAUNCH(warpBlocksFor(m.numDst), kBlock, 0, stream(),
                 findWinnersKernel<T>)
    (m, out, winner);
    checkLaunch(what);
  }
  return winner;
}

} // namespace gnnrt::kernels::cuda::detail

#endif // GNNRT_LIB_KERNELS_CUDA_MESSAGES_H
