//===- Gemm.h - Dense matrix products ---------------------------*- C++ -*-===//
//
// The dense linear algebra of a layer (x W, and its two adjoints), through
// BLAS, with an optional epilogue that sees each block of output rows as
// soon as it is final, so that an elementwise map fused after the product
// runs while the block is still in cache.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_GEMM_H
#define GNNRT_KERNELS_GEMM_H

#include <cstdint>
#include <functional>

namespace gnnrt::kernels {

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

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_GEMM_H
