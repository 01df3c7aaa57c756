//===- Edge.cu - Per-edge kernels on CUDA devices -------------------------===//
//
// The CUDA half of gnnrt/kernels/families/Edge.def. Gather copies one element
// per thread; everything that reduces (the gather adjoint, scatter and its
// adjoint, the edge softmax) gives each destination or source row to one warp
// whose lanes stride over the columns and walk the row's edges in the CPU
// kernel's order.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "Common.h"
#include "Messages.h"

#include <cstdint>

namespace gnnrt::kernels::cuda {

using namespace detail;

namespace {

template <typename T>
__global__ void gatherKernel(int64_t numEdges, const int32_t *node, const T *x,
                             int64_t width, T *out) {
  const int64_t i = globalThread();
  if (i >= numEdges * width)
    return;
  const int64_t k = i / width, j = i % width;
  out[i] = x[int64_t(node[k]) * width + j];
}

/// dx[n] = sum of de over the edges listed for n: edges [offsets[n],
/// offsets[n + 1]) themselves, or (edgeIds) the ids listed there.
template <typename T>
__global__ void sumEdgeRowsKernel(int64_t numNodes, const int64_t *offsets,
                                  const int64_t *edgeIds, const T *de,
                                  int64_t width, T *dx) {
  const int64_t n = globalWarp();
  if (n >= numNodes)
    return;
  for (int64_t j = lane(); j < width; j += kWarp) {
    T acc = T(0);
    for (int64_t i = offsets[n]; i < offsets[n + 1]; ++i)
      acc = add(acc, de[(edgeIds ? edgeIds[i] : i) * width + j]);
    dx[n * width + j] = acc;
  }
}

/// de[k] = norm(v) * dy[v] for v's in-edges k (sum, mean), or dy[v] in the
/// columns k won and 0 elsewhere (max, min).
template <typename T>
__global__ void scatterGradKernel(const MessageArgs<T> m, bool mean,
                                  const T *dy, const int32_t *winner, T *de) {
  const int64_t v = globalWarp();
  if (v >= m.numDst)
    return;
  const int64_t begin = m.offsets[v], end = m.offsets[v + 1];
  const T norm = mean ? T(1) / T(m.count(v)) : T(1);
  for (int64_t j = lane(); j < m.width; j += kWarp) {
    const T d = dy[v * m.width + j];
    for (int64_t k = begin; k < end; ++k)
      de[k * m.width + j] =
          winner ? (winner[v * m.width + j] == k - begin ? d : T(0))
                 : mul(norm, d);
  }
}

/// Softmax of each column over a destination's in-edge rows, max
/// subtracted (cpu/ColumnSoftmax.h's order).
template <typename T>
__global__ void edgeSoftmaxKernel(int64_t numDst, const int64_t *offsets,
                                  const T *scores, int64_t width, T *out) {
  const int64_t v = globalWarp();
  if (v >= numDst)
    return;
  const int64_t begin = offsets[v], end = offsets[v + 1];
  if (begin == end)
    return;
  for (int64_t j = lane(); j < width; j += kWarp) {
    T colMax = scores[begin * width + j];
    for (int64_t k = begin + 1; k < end; ++k) {
      const T s = scores[k * width + j];
      colMax = colMax < s ? s : colMax;
    }
    T sum = T(0);
    for (int64_t k = begin; k < end; ++k) {
      const T y = expOf(sub(scores[k * width + j], colMax));
      out[k * width + j] = y;
      sum = add(sum, y);
    }
    const T inverse = T(1) / sum;
    for (int64_t k = begin; k < end; ++k)
      out[k * width + j] = mul(out[k * width + j], inverse);
  }
}

/// ds = y * (dy - sum over the destination's in-edges of y * dy).
template <typename T>
__global__ void edgeSoftmaxGradKernel(int64_t numDst, const int64_t *offsets,
                                      const T *dy, const T *y, int64_t width,
                                      T *ds) {
  const int64_t v = globalWarp();
  if (v >= numDst)
    return;
  const int64_t begin = offsets[v], end = offsets[v + 1];
  for (int64_t j = lane(); j < width; j += kWarp) {
    T dot = T(0);
    for (int64_t k = begin; k < end; ++k)
      dot = add(dot, mul(y[k * width + j], dy[k * width + j]));
    for (int64_t k = begin; k < end; ++k)
      ds[k * width + j] = mul(y[k * width + j], sub(dy[k * width + j], dot));
  }
}

template <typename T>
__global__ void degreeKernel(int64_t n, const int64_t *offsets, T *out) {
  const int64_t v = globalThread();
  if (v < n)
    out[v] = T(offsets[v + 1] - offsets[v]);
}

template <typename T>
__global__ void nodeTypeIndicatorKernel(int64_t n, const int64_t *nodeIds,
                                        IdRange type, T *out) {
  const int64_t u = globalThread();
  if (u < n) {
    const int64_t id = nodeIds ? nodeIds[u] : u;
    out[u] = T(id >= type.begin && id < type.end);
  }
}

} // namespace

template <typename T>
void gather(const GraphView &g, Side side, const T *x, int64_t width, T *out) {
  if (g.numEdges == 0 || width == 0)
    return;
  GNNRT_LAUNCH(blocksFor(g.numEdges * width), kBlock, 0, stream(),
               gatherKernel<T>)
  (g.numEdges, side == Side::Src ? g.edgeSrc : g.edgeDst, x, width, out);
  checkLaunch("gather launch");
}

template <typename T>
void gatherGrad(const GraphView &g, Side side, const T *de, int64_t width,
                T *dx) {
  const bool src = side == Side::Src;
  const int64_t n = src ? g.numSrc : g.numDst;
  if (n == 0 || width == 0)
    return;
  GNNRT_LAUNCH(warpBlocksFor(n), kBlock, 0, stream(), sumEdgeRowsKernel<T>)
  (n, src ? g.outOffsets : g.inOffsets, src ? g.outEdges : nullptr, de, width,
   dx);
  checkLaunch("gatherGrad launch");
}

template <typename T>
void scatter(const GraphView &g, Reduce reduce, const T *e, int64_t width,
             T *out) {
  reduceMessages(edgeMessages(g, e, width), reduce, false, out,
                 "scatter launch");
}

template <typename T>
void scatterGrad(const GraphView &g, Reduce reduce, const T *dy, const T *e,
                 const T *out, int64_t width, T *de) {
  if (g.numDst == 0 || width == 0)
    return;
  const MessageArgs<T> m = edgeMessages(g, e, width);
  const bool linear = reduce == Reduce::Sum || reduce == Reduce::Mean;
  const int32_t *winner =
      linear ? nullptr : findWinners(m, out, "scatterGrad launch");
  GNNRT_LAUNCH(warpBlocksFor(g.numDst), kBlock, 0, stream(),
               scatterGradKernel<T>)
  (m, reduce == Reduce::Mean, dy, winner, de);
  checkLaunch("scatterGrad launch");
}

template <typename T>
void edgeSoftmax(const GraphView &g, const T *scores, int64_t width, T *out) {
  if (g.numDst == 0 || width == 0)
    return;
  GNNRT_LAUNCH(warpBlocksFor(g.numDst), kBlock, 0, stream(),
               edgeSoftmaxKernel<T>)
  (g.numDst, g.inOffsets, scores, width, out);
  checkLaunch("edgeSoftmax launch");
}

template <typename T>
void edgeSoftmaxGrad(const GraphView &g, const T *dy, const T *y, int64_t width,
                     T *ds) {
  if (g.numDst == 0 || width == 0)
    return;
  GNNRT_LAUNCH(warpBlocksFor(g.numDst), kBlock, 0, stream(),
               edgeSoftmaxGradKernel<T>)
  (g.numDst, g.inOffsets, dy, y, width, ds);
  checkLaunch("edgeSoftmaxGrad launch");
}

template <typename T> void degree(const GraphView &g, Side side, T *out) {
  const bool src = side == Side::Src;
  const int64_t n = src ? g.numSrc : g.numDst;
  if (n == 0)
    return;
  GNNRT_LAUNCH(blocksFor(n), kBlock, 0, stream(), degreeKernel<T>)
  (n, src ? g.outOffsets : g.inOffsets, out);
  checkLaunch("degree launch");
}

template <typename T>
void nodeTypeIndicator(const GraphView &g, const int64_t *nodeIds,
                       IdRange type, T *out) {
  if (g.numSrc == 0)
    return;
  GNNRT_LAUNCH(blocksFor(g.numSrc), kBlock, 0, stream(),
               nodeTypeIndicatorKernel<T>)
  (g.numSrc, nodeIds, type, out);
  checkLaunch("nodeTypeIndicator launch");
}

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Edge.def"
#define GNNRT_KERNEL_CUDA
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels::cuda
