//===- Relational.cu - Relation-batched aggregation on CUDA devices -------===//
//
// The CUDA half of gnnrt/kernels/families/Relational.def: grid-stride kernels
// without barriers, one thread per output element, each summing in edge
// order.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "Common.h"
#include "gnnrt/kernels/cuda/Memory.h"

#include <stdexcept>
#include <string>

namespace gnnrt::kernels::cuda {

using namespace detail;

namespace {

void checkTyped(const GraphView &g, Reduce reduce, const char *kernel) {
  if (reduce != Reduce::Sum && reduce != Reduce::Mean)
    throw std::invalid_argument(std::string(kernel) +
                                ": only sum and mean are supported");
  if (g.numEdges > 0 && (!g.edgeType || g.numRelations <= 0))
    throw std::invalid_argument(std::string(kernel) +
                                ": the graph has no relation types");
}

/// The factor of in-edge k of destination v: 1 for a sum, 1 / (v's
/// in-edges of k's relation) for a mean.
template <typename T>
__device__ T messageScale(const GraphView &g, bool mean, int64_t v,
                          int64_t k) {
  if (!mean)
    return T(1);
  const int32_t r = g.edgeType[k];
  int64_t count = 0;
  for (int64_t e = g.inOffsets[v]; e < g.inOffsets[v + 1]; ++e)
    count += g.edgeType[e] == r;
  return T(1) / T(count);
}

/// out[v, j] = sum over v's in-edges k (relation r) of
/// scale(k) * (x[src(k)] @ w[r])[j].
template <typename T>
__global__ void forwardKernel(GraphView g, bool mean, const T *x,
                              int64_t inWidth, const T *w, int64_t outWidth,
                              T *out) {
  const int64_t n = g.numDst * outWidth;
  for (int64_t t = globalThread(); t < n; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t v = t / outWidth, j = t % outWidth;
    T acc = T(0);
    for (int64_t k = g.inOffsets[v]; k < g.inOffsets[v + 1]; ++k) {
      const T *row = x + int64_t(g.edgeSrc[k]) * inWidth;
      const T *wr = w + int64_t(g.edgeType[k]) * inWidth * outWidth + j;
      T m = T(0);
      for (int64_t i = 0; i < inWidth; ++i)
        m = add(m, mul(row[i], wr[i * outWidth]));
      acc = add(acc, mul(messageScale<T>(g, mean, v, k), m));
    }
    out[t] = acc;
  }
}

/// dx[u, i] = sum over u's out-edges k (destination v, relation r) of
/// scale(k) * (dy[v] @ w[r]^T)[i].
template <typename T>
__global__ void gradInputKernel(GraphView g, bool mean, const T *dy,
                                const T *w, int64_t inWidth, int64_t outWidth,
                                T *dx) {
  const int64_t n = g.numSrc * inWidth;
  for (int64_t t = globalThread(); t < n; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t u = t / inWidth, i = t % inWidth;
    T acc = T(0);
    for (int64_t p = g.outOffsets[u]; p < g.outOffsets[u + 1]; ++p) {
      const int64_t k = g.outEdges[p], v = g.outDst[p];
      const T *grad = dy + v * outWidth;
      const T *wr = w + int64_t(g.edgeType[k]) * inWidth * outWidth +
                    i * outWidth;
      T m = T(0);
      for (int64_t j = 0; j < outWidth; ++j)
        m = add(m, mul(grad[j], wr[j]));
      acc = add(acc, mul(messageScale<T>(g, mean, v, k), m));
    }
    dx[t] = acc;
  }
}

/// dw[r, i, j] = sum over the edges k of relation r, destination by
/// destination, of scale(k) * x[src(k), i] * dy[dst(k), j]: thread (i, j)
/// owns that element of every relation's matrix.
template <typename T>
__global__ void gradWeightKernel(GraphView g, bool mean, const T *dy,
                                 const T *x, int64_t inWidth, int64_t outWidth,
                                 T *dw) {
  const int64_t n = inWidth * outWidth, matrix = inWidth * outWidth;
  for (int64_t t = globalThread(); t < n; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = t / outWidth, j = t % outWidth;
    for (int64_t r = 0; r < g.numRelations; ++r)
      dw[r * matrix + t] = T(0);
    for (int64_t v = 0; v < g.numDst; ++v) {
      const T grad = dy[v * outWidth + j];
      for (int64_t k = g.inOffsets[v]; k < g.inOffsets[v + 1]; ++k) {
        T &d = dw[int64_t(g.edgeType[k]) * matrix + t];
        d = add(d, mul(messageScale<T>(g, mean, v, k),
                       mul(x[int64_t(g.edgeSrc[k]) * inWidth + i], grad)));
      }
    }
  }
}

/// out[v, j] = sum over v's in-edges k of scale(k) *
/// table[type(k), id(src(k)), j].
template <typename T>
__global__ void rowsKernel(GraphView g, bool mean, const T *table,
                           int64_t tableRows, int64_t width,
                           const int64_t *nodeIds, T *out) {
  const int64_t n = g.numDst * width;
  for (int64_t t = globalThread(); t < n; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t v = t / width, j = t % width;
    T acc = T(0);
    for (int64_t k = g.inOffsets[v]; k < g.inOffsets[v + 1]; ++k) {
      const int64_t u = g.edgeSrc[k], id = nodeIds ? nodeIds[u] : u;
      const T value =
          table[(int64_t(g.edgeType[k]) * tableRows + id) * width + j];
      acc = add(acc, mul(messageScale<T>(g, mean, v, k), value));
    }
    out[t] = acc;
  }
}

/// dtable[type(k), id(u), j] += scale(k) * dy[dst(k), j] over u's
/// out-edges k: thread (u, j) owns row id(u) of every relation's table.
template <typename T>
__global__ void rowsGradKernel(GraphView g, bool mean, const T *dy,
                               int64_t tableRows, int64_t width,
                               const int64_t *nodeIds, T *dtable) {
  const int64_t n = g.numSrc * width;
  for (int64_t t = globalThread(); t < n; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t u = t / width, j = t % width, id = nodeIds ? nodeIds[u] : u;
    for (int64_t p = g.outOffsets[u]; p < g.outOffsets[u + 1]; ++p) {
      const int64_t k = g.outEdges[p], v = g.outDst[p];
      T &d = dtable[(int64_t(g.edgeType[k]) * tableRows + id) * width + j];
      d = add(d, mul(messageScale<T>(g, mean, v, k), dy[v * width + j]));
    }
  }
}

/// Launches `kernel` over `items` threads (at least one block).
template <typename Kernel, typename... Args>
void launch(int64_t items, const char *what, Kernel kernel, Args... args) {
  if (items <= 0)
    return;
  GNNRT_LAUNCH_WITHOUT_BARRIERS(generatedGrid(items), kGeneratedBlock, 0,
                                stream(), kernel)
  (args...);
  checkLaunch(what);
}

} // namespace

template <typename T>
void aggregateRelations(const GraphView &g, Reduce reduce, const T *x,
                        int64_t inWidth, const T *w, int64_t outWidth, T *out) {
  checkTyped(g, reduce, "aggregateRelations");
  launch(g.numDst * outWidth, "aggregateRelations", forwardKernel<T>, g,
         reduce == Reduce::Mean, x, inWidth, w, outWidth, out);
}

template <typename T>
void aggregateRelationsGradInput(const GraphView &g, Reduce reduce,
                                 const T *dy, const T *w, int64_t inWidth,
                                 int64_t outWidth, T *dx) {
  checkTyped(g, reduce, "aggregateRelationsGradInput");
  launch(g.numSrc * inWidth, "aggregateRelationsGradInput",
         gradInputKernel<T>, g, reduce == Reduce::Mean, dy, w, inWidth,
         outWidth, dx);
}

template <typename T>
void aggregateRelationsGradWeight(const GraphView &g, Reduce reduce,
                                  const T *dy, const T *x, int64_t inWidth,
                                  int64_t outWidth, T *dw) {
  checkTyped(g, reduce, "aggregateRelationsGradWeight");
  launch(inWidth * outWidth, "aggregateRelationsGradWeight",
         gradWeightKernel<T>, g, reduce == Reduce::Mean, dy, x, inWidth,
         outWidth, dw);
}

template <typename T>
void aggregateRelationRows(const GraphView &g, Reduce reduce, const T *table,
                           int64_t tableRows, int64_t width,
                           const int64_t *nodeIds, T *out) {
  checkTyped(g, reduce, "aggregateRelationRows");
  launch(g.numDst * width, "aggregateRelationRows", rowsKernel<T>, g,
         reduce == Reduce::Mean, table, tableRows, width, nodeIds, out);
}

template <typename T>
void aggregateRelationRowsGrad(const GraphView &g, Reduce reduce, const T *dy,
                               int64_t tableRows, int64_t width,
                               const int64_t *nodeIds, T *dtable) {
  checkTyped(g, reduce, "aggregateRelationRowsGrad");
  zero(dtable, int64_t(g.numRelations) * tableRows * width);
  launch(g.numSrc * width, "aggregateRelationRowsGrad", rowsGradKernel<T>, g,
         reduce == Reduce::Mean, dy, tableRows, width, nodeIds, dtable);
}

namespace {

template <typename T>
__global__ void gatherRelationKernel(GraphView g, const T *table, int64_t width,
                                     T *out) {
  const int64_t n = g.numEdges * width;
  for (int64_t t = globalThread(); t < n; t += int64_t(gridDim.x) * blockDim.x)
    out[t] = table[int64_t(g.edgeType[t / width]) * width + t % width];
}

/// Thread (r, j) sums column j of relation r's edges in edge order.
template <typename T>
__global__ void gatherRelationGradKernel(GraphView g, const T *de,
                                         int64_t tableRows, int64_t width,
                                         T *dtable) {
  const int64_t n = tableRows * width;
  for (int64_t t = globalThread(); t < n;
       t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = t / width, j = t % width;
    T acc = T(0);
    for (int64_t k = 0; k < g.numEdges; ++k)
      if (g.edgeType[k] == r)
        acc = add(acc, de[k * width + j]);
    dtable[t] = acc;
  }
}

void checkEdgeTypes(const GraphView &g, const char *kernel) {
  if (g.numEdges > 0 && !g.edgeType)
    throw std::invalid_argument(std::string(kernel) +
                                ": the graph's edges have no relations");
}

} // namespace

template <typename T>
void gatherRelation(const GraphView &g, const T *table, int64_t tableRows,
                    int64_t width, T *out) {
  (void)tableRows;
  checkEdgeTypes(g, "gatherRelation");
  launch(g.numEdges * width, "gatherRelation", gatherRelationKernel<T>, g,
         table, width, out);
}

template <typename T>
void gatherRelationGrad(const GraphView &g, const T *de, int64_t tableRows,
                        int64_t width, T *dtable) {
  checkEdgeTypes(g, "gatherRelationGrad");
  launch(tableRows * width, "gatherRelationGrad", gatherRelationGradKernel<T>,
         g, de, tableRows, width, dtable);
}

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Relational.def"
#define GNNRT_KERNEL_CUDA
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels::cuda
