//===- Kernels.h - Compute kernels called by generated code -----*- C++ -*-===//
//
// The kernels that generated trainers call for the non-elementwise parts of a
// program: GEMM (BLAS), graph aggregation and its adjoints, edge softmax,
// axis softmax and reductions, the loss. Elementwise maps are emitted inline
// by gnnc; everything here is a template over the scalar type, instantiated
// for float (training) and double (finite-difference gradient checks) in
// Kernels.cpp, so generated code compiles against declarations only.
//
// Conventions. Tensors are dense and row-major. A node or edge tensor
// [rows, d1, ..., dk] is passed as its row count and its row `width`
// (d1 * ... * dk). Per-edge tensors follow GraphView's edge numbering.
// An optional per-edge weight has `weightWidth` values per edge
// (1, or the leading feature dims such as the heads of [E, H]) and message
// element j of edge k is x[src(k)][j] * weight[k][j / (width / weightWidth)].
// Every kernel writes its whole output (no accumulation into the caller's
// buffer) unless its comment says otherwise. Kernels parallelize with OpenMP
// over destinations, rows or sources, never with atomics, so results do not
// depend on the thread count.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_KERNELS_H
#define GNNRT_KERNELS_KERNELS_H

#include "gnnrt/graph/GraphView.h"

#include <cstdint>
#include <functional>

namespace gnnrt {

enum class Reduce : int { Sum = 0, Mean = 1, Max = 2, Min = 3 };
enum class Side : int { Src = 0, Dst = 1 };

namespace kernels {

//===--- Dense linear algebra ---------------------------------------------===//

/// Called with a range of rows [r0, r1) of a GEMM's C as soon as they are
/// final, on the thread that computed them: a fused epilogue.
using GemmEpilogue = std::function<void(int64_t r0, int64_t r1)>;

/// C[M, N] = op(A) * op(B) (+ C if accumulate), op(X) = X or X^T; A is
/// [M, K] (or [K, M] when transA), B is [K, N] (or [N, K] when transB).
/// Through cblas_sgemm / cblas_dgemm, single-threaded BLAS calls spread over
/// OpenMP threads: blocks of C rows, or, when C has few rows and K is long
/// (a weight gradient), fixed chunks of K whose partial products are summed
/// in chunk order. The blocking does not depend on the thread count, so
/// neither does the result. `epilogue`, if given, sees every row block.
template <typename T>
void gemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K,
          const T *A, const T *B, T *C, bool accumulate = false,
          const GemmEpilogue &epilogue = nullptr);

//===--- Graph primitives and their adjoints ------------------------------===//

/// out[numDst, width]: the reduction over the in-edges of each destination
/// of the (weighted) source rows; with selfLoops each destination v also
/// receives its own row x[v] with weight 1 (and counts it for mean).
/// A destination with no messages gets zeros. With `accumulate` (sum only)
/// the reduction is added to out's rows instead (a partitioned aggregation
/// adds each remote part's share without a temporary).
template <typename T>
void aggregate(const GraphView &g, Reduce reduce, bool selfLoops, const T *x,
               int64_t width, const T *weight, int64_t weightWidth, T *out,
               bool accumulate = false);

/// dx[numSrc, width] = d(loss)/dx given dy = d(loss)/d(out) of aggregate.
/// `out` is the forward result (used by max/min to find the winner: the
/// first message, in edge order with the self loop last, equal to it).
template <typename T>
void aggregateGradInput(const GraphView &g, Reduce reduce, bool selfLoops,
                        const T *dy, const T *x, const T *out, int64_t width,
                        const T *weight, int64_t weightWidth, T *dx);

/// dweight[numEdges, weightWidth] for aggregate's weight (sum and mean; for
/// max/min the winning edge gets dy * x).
template <typename T>
void aggregateGradWeight(const GraphView &g, Reduce reduce, bool selfLoops,
                         const T *dy, const T *x, const T *out, int64_t width,
                         const T *weight, int64_t weightWidth, T *dweight);

/// out[numEdges, width] = rows of x at each edge's `side` endpoint.
template <typename T>
void gather(const GraphView &g, Side side, const T *x, int64_t width, T *out);

/// The adjoint of gather: dx[numSrc or numDst rows, width] = sum of de over
/// the edges whose `side` endpoint is that node.
template <typename T>
void gatherGrad(const GraphView &g, Side side, const T *de, int64_t width,
                T *dx);

/// out[numDst, width] = reduction of the edge rows e[numEdges, width] over
/// each destination's in-edges (zeros without in-edges).
template <typename T>
void scatter(const GraphView &g, Reduce reduce, const T *e, int64_t width,
             T *out);

/// de[numEdges, width] given dy of scatter; `out` as for aggregateGradInput.
template <typename T>
void scatterGrad(const GraphView &g, Reduce reduce, const T *dy, const T *e,
                 const T *out, int64_t width, T *de);

/// out[numEdges, width] = softmax of scores over each destination's in-edges,
/// independently for each of the `width` columns.
template <typename T>
void edgeSoftmax(const GraphView &g, const T *scores, int64_t width, T *out);

/// ds = y * (dy - sum over the destination's in-edges of y * dy).
template <typename T>
void edgeSoftmaxGrad(const GraphView &g, const T *dy, const T *y,
                     int64_t width, T *ds);

/// out[n, 1]: out-degree of each source (side Src, n = numSrc) or in-degree
/// of each destination (side Dst, n = numDst).
template <typename T> void degree(const GraphView &g, Side side, T *out);

//===--- Axis operations on [outer, n, inner] views -----------------------===//

/// softmax / log-softmax along the middle axis of x viewed as [outer, n,
/// inner]; numerically stable (max subtracted).
template <typename T>
void softmax(int64_t outer, int64_t n, int64_t inner, const T *x, T *y);
template <typename T>
void softmaxGrad(int64_t outer, int64_t n, int64_t inner, const T *dy,
                 const T *y, T *dx);
template <typename T>
void logSoftmax(int64_t outer, int64_t n, int64_t inner, const T *x, T *y);
template <typename T>
void logSoftmaxGrad(int64_t outer, int64_t n, int64_t inner, const T *dy,
                    const T *y, T *dx);

/// y[outer, inner] = reduction of x[outer, n, inner] along the middle axis
/// (zeros if n == 0). The max/min gradient goes to the first element equal
/// to y.
template <typename T>
void reduceAxis(Reduce kind, int64_t outer, int64_t n, int64_t inner,
                const T *x, T *y);
template <typename T>
void reduceAxisGrad(Reduce kind, int64_t outer, int64_t n, int64_t inner,
                    const T *dy, const T *x, const T *y, T *dx);

/// Copies x[outer, n, inner] into columns [offset, offset + n) of the middle
/// axis of out[outer, total, inner] (concat; writes only those columns), and
/// the reverse (slice).
template <typename T>
void copyIntoAxis(int64_t outer, int64_t n, int64_t inner, const T *x,
                  int64_t total, int64_t offset, T *out);
template <typename T>
void sliceAxis(int64_t outer, int64_t total, int64_t inner, const T *x,
               int64_t offset, int64_t n, T *out);

/// The adjoint of broadcasting: out (shape outShape, rank outRank) = sum of
/// dy (shape dyShape, rank dyRank >= outRank) over the dims that were
/// broadcast (missing leading dims and dims of size 1 in outShape). Ranks
/// up to 8; throws std::invalid_argument if a dim of outShape is neither 1
/// nor the matching dim of dyShape.
template <typename T>
void unbroadcast(const T *dy, const int64_t *dyShape, int dyRank, T *out,
                 const int64_t *outShape, int outRank);

//===--- Dropout and the loss ---------------------------------------------===//

/// Inverted dropout with a counter-based mask: element i is kept (and scaled
/// by 1/(1-p)) iff 16-bit lane i % 8 of randomBits(seed, stream, i / 8) is at
/// least ceil(p * 2^16). The mask depends on (seed, stream, i) alone, so
/// calling it again with the same (seed, stream) on the adjoint applies the
/// same mask (dropout's backward).
template <typename T>
void dropout(uint64_t seed, uint64_t stream, double p, int64_t n, const T *x,
             T *y);

/// dropout() of a [rows, width] node tensor whose row r is global node
/// rowIds[r] (null: row r is node r): each element's mask is that of the
/// same element in the whole graph's tensor, wherever the row is stored.
template <typename T>
void dropoutRows(uint64_t seed, uint64_t stream, double p, int64_t rows,
                 int64_t width, const int64_t *rowIds, const T *x, T *y);

/// Mean over the selected rows (mask[i] != 0, or all rows if mask is null)
/// with a label >= 0 of -log_softmax(logits[i])[labels[i]]. 0 if none.
template <typename T>
T crossEntropy(int64_t rows, int64_t classes, const T *logits,
               const int64_t *labels, const uint8_t *mask);

/// dlogits = dloss * d(crossEntropy)/d(logits) (zero on unselected rows).
template <typename T>
void crossEntropyGrad(int64_t rows, int64_t classes, const T *logits,
                      const int64_t *labels, const uint8_t *mask, T dloss,
                      T *dlogits);

} // namespace kernels
} // namespace gnnrt

#endif // GNNRT_KERNELS_KERNELS_H
