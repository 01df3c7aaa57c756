//===- Aggregate.cu - aggregate and its adjoints on CUDA devices ----------===//
//
// The CUDA half of gnnrt/kernels/families/Aggregate.def. The forward reduces
// each destination's messages with one warp (Messages.h). The input adjoint is
// a walk over each source's out-edges, one warp per source, in the CPU's order
// (out-edges ascending, then the self loop), so it needs no atomics and gives
// the CPU's bits (for sum and mean of rows up to 512 wide, one walk with the
// lane's columns in registers); max/min first record each destination's
// winners. The weight adjoint gives each in-edge's dot product to a warp: lanes
// multiply their columns and a butterfly of shuffles adds them up. In a bf16
// run the sum and mean forward reads x, and their input adjoint dy, from a
// rounded copy (BFloat16Rows.h): the CPU's bf16 gathers, bit for bit.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "Common.h"
#include "Messages.h"

#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace gnnrt::kernels::cuda {

using namespace detail;

namespace {

/// The input adjoint, by value into the kernel; dy stored as S.
template <typename T, typename S = T> struct GradInputArgs {
  MessageArgs<T> m;
  int64_t numSrc;
  const int64_t *outOffsets;
  const int64_t *outEdges;
  const int32_t *outDst;
  const int32_t *edgeDst;
  bool mean;
  const S *dy;
  /// Max/min: the winners of findWinnersKernel; null for sum and mean.
  const int32_t *winner;
  T *dx;
};

/// Out-edge k -> v's term of dx[u, j] (k < 0: u's self loop, v = u):
/// c(k) * dy[v, j], c = the edge's weight (1 for the self loop), times
/// 1/count(v) for mean.
template <typename T, typename S>
__device__ T gradInputTerm(const GradInputArgs<T, S> &p, int64_t v, int64_t k,
                           int64_t j) {
  const MessageArgs<T> &m = p.m;
  const T scale =
      k < 0 || !m.weight
          ? T(1)
          : m.weight[k * m.weightWidth + j / (m.width / m.weightWidth)];
  const T c = p.mean ? mul(T(1) / T(m.count(v)), scale) : scale;
  return mul(c, widen(p.dy[v * m.width + j]));
}

/// dx[u] = sum over u's out-edges k -> v of c(k) * dy[v] (masked to the
/// columns k won, for max/min), then the self loop's.
template <typename T, typename S>
__global__ void aggregateGradInputKernel(const GradInputArgs<T, S> p) {
  const int64_t u = globalWarp();
  if (u >= p.numSrc)
    return;
  const MessageArgs<T> &m = p.m;
  const int64_t width = m.width;
  const int64_t first = p.outOffsets[u], last = p.outOffsets[u + 1];
  for (int64_t j = lane(); j < width; j += kWarp) {
    T acc = T(0);
    // `index`: the message's place among v's (the self loop last).
    auto term = [&](int64_t v, int64_t k, int64_t index) {
      const T d = gradInputTerm(p, v, k, j);
      if (!p.winner)
        acc = add(acc, d);
      else
        acc = add(acc, p.winner[v * width + j] == index ? d : T(0));
    };
    for (int64_t i = first; i < last; ++i) {
      const int64_t k = p.outEdges[i];
      const int64_t v = p.outDst ? p.outDst[i] : p.edgeDst[k];
      term(v, k, k - m.offsets[v]);
    }
    if (m.selfLoops && u < m.numDst)
      term(u, -1, m.offsets[u + 1] - m.offsets[u]);
    p.dx[u * width + j] = acc;
  }
}

/// The sum and mean input adjoint with every column of a lane in registers
/// (rows up to kWarp * kColumnsPerLane wide, Messages.h's
/// withColumnsPerLane): one walk over u's out-edges instead of one per 32
/// columns, the same terms in the same order per column.
template <int kColumnsPerLane, typename T, typename S>
__global__ void sumGradInputInRegistersKernel(const GradInputArgs<T, S> p) {
  const int64_t u = globalWarp();
  if (u >= p.numSrc)
    return;
  const int64_t width = p.m.width;
  T acc[kColumnsPerLane];
  GNNRT_UNROLL
  for (int c = 0; c < kColumnsPerLane; ++c)
    acc[c] = T(0);
  auto term = [&](int64_t v, int64_t k) {
    GNNRT_UNROLL
    for (int c = 0; c < kColumnsPerLane; ++c) {
      const int64_t j = lane() + int64_t(kWarp) * c;
      if (j < width)
        acc[c] = add(acc[c], gradInputTerm(p, v, k, j));
    }
  };
  for (int64_t i = p.outOffsets[u]; i < p.outOffsets[u + 1]; ++i) {
    const int64_t k = p.outEdges[i];
    term(p.outDst ? p.outDst[i] : p.edgeDst[k], k);
  }
  if (p.m.selfLoops && u < p.m.numDst)
    term(u, -1);
  GNNRT_UNROLL
  for (int c = 0; c < kColumnsPerLane; ++c) {
    const int64_t j = lane() + int64_t(kWarp) * c;
    if (j < width)
      p.dx[u * width + j] = acc[c];
  }
}

/// The input adjoint's launch: a lane's columns in registers where the
/// reduction is linear and the rows fit, else the general kernel.
template <typename T, typename S>
void launchGradInput(const GradInputArgs<T, S> &args) {
  const bool inRegisters =
      !args.winner && withColumnsPerLane(args.m.width, [&](auto columns) {
        GNNRT_LAUNCH_WITHOUT_BARRIERS(
            warpBlocksFor(args.numSrc), kBlock, 0, stream(),
            sumGradInputInRegistersKernel<decltype(columns)::value, T, S>)
        (args);
      });
  if (!inRegisters) {
    GNNRT_LAUNCH(warpBlocksFor(args.numSrc), kBlock, 0, stream(),
                 aggregateGradInputKernel<T, S>)
    (args);
  }
  checkLaunch("aggregateGradInput launch");
}

/// dweight[k, group] = norm(v) * (dy[v] . x[src(k)]) over the group's
/// columns (for max/min, over the columns k won), one warp per destination.
template <typename T>
__global__ void aggregateGradWeightKernel(const MessageArgs<T> m, bool mean,
                                          const T *dy, const int32_t *winner,
                                          T *dweight) {
  const int64_t v = globalWarp();
  if (v >= m.numDst)
    return;
  const int64_t width = m.width, groupWidth = width / m.weightWidth;
  const int64_t begin = m.offsets[v], end = m.offsets[v + 1];
  const T norm = mean ? T(1) / T(m.count(v)) : T(1);
  for (int64_t k = begin; k < end; ++k) {
    const T *row = m.row(k);
    for (int64_t group = 0; group < m.weightWidth; ++group) {
      T partial = T(0);
      for (int64_t j = group * groupWidth + lane();
           j < (group + 1) * groupWidth; j += kWarp) {
        const T d = mul(dy[v * width + j], row[j]);
        partial = add(partial,
                      !winner || winner[v * width + j] == k - begin ? d : T(0));
      }
      const T dot = warpSum(partial);
      if (lane() == 0)
        dweight[k * m.weightWidth + group] = winner ? dot : mul(norm, dot);
    }
  }
}

bool isLinear(Reduce reduce) {
  return reduce == Reduce::Sum || reduce == Reduce::Mean;
}

} // namespace

template <typename T>
void aggregate(const GraphView &g, Reduce reduce, bool selfLoops, const T *x,
               int64_t width, const T *weight, int64_t weightWidth, T *out,
               bool accumulate) {
  if (accumulate && reduce != Reduce::Sum)
    throw std::invalid_argument("aggregate: only a sum can accumulate");
  const MessageArgs<T> m =
      aggregateMessages(g, selfLoops, x, width, weight, weightWidth);
  if constexpr (std::is_same_v<T, float>) {
    if (isLinear(reduce) && gathersBFloat16<T>() && g.numDst > 0 &&
        width > 0) {
      // x's rows (the self loop's row v < numDst <= numSrc among them).
      reduceMessages(m.readingRows(deviceBFloat16Rows(x, g.numSrc * width)),
                     reduce, accumulate, out, "aggregate launch");
      return;
    }
  }
  reduceMessages(m, reduce, accumulate, out, "aggregate launch");
}

template <typename T>
void aggregateGradInput(const GraphView &g, Reduce reduce, bool selfLoops,
                        const T *dy, const T *x, const T *out, int64_t width,
                        const T *weight, int64_t weightWidth, T *dx) {
  if (g.numSrc == 0 || width == 0)
    return;
  const MessageArgs<T> m =
      aggregateMessages(g, selfLoops, x, width, weight, weightWidth);
  const int32_t *winner =
      isLinear(reduce) ? nullptr
                       : findWinners(m, out, "aggregateGradInput launch");
  auto launch = [&](const auto *dyRows) {
    using S = std::remove_cv_t<std::remove_pointer_t<decltype(dyRows)>>;
    const GradInputArgs<T, S> args{
        m,        g.numSrc,  g.outOffsets,           g.outEdges,
        g.outDst, g.edgeDst, reduce == Reduce::Mean, dyRows,
        winner,   dx};
    launchGradInput(args);
  };
  if constexpr (std::is_same_v<T, float>) {
    if (isLinear(reduce) && gathersBFloat16<T>() && g.numDst > 0) {
      launch(deviceBFloat16Rows(dy, g.numDst * width));
      return;
    }
  }
  launch(dy);
}

template <typename T>
void aggregateGradWeight(const GraphView &g, Reduce reduce, bool selfLoops,
                         const T *dy, const T *x, const T *out, int64_t width,
                         const T *weight, int64_t weightWidth, T *dweight) {
  if (g.numDst == 0 || g.numEdges == 0)
    return;
  const MessageArgs<T> m =
      aggregateMessages(g, selfLoops, x, width, weight, weightWidth);
  const int32_t *winner =
      isLinear(reduce) ? nullptr
                       : findWinners(m, out, "aggregateGradWeight launch");
  GNNRT_LAUNCH(warpBlocksFor(g.numDst), kBlock, 0, stream(),
               aggregateGradWeightKernel<T>)
  (m, reduce == Reduce::Mean, dy, winner, dweight);
  checkLaunch("aggregateGradWeight launch");
}

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Aggregate.def"
#define GNNRT_KERNEL_CUDA
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels::cuda
