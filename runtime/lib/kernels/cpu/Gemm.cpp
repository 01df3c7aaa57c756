//===- Gemm.cpp - GEMM through CBLAS --------------------------------------===//
//
// Dense products through CBLAS, one single-threaded BLAS call per block of
// output rows (or per chunk of K) spread over OpenMP threads
// (Common.h's blockedGemm), so that the result does not depend on the thread count.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Gemm.h"
#include "gnnrt/kernels/GatherStorage.h"

#include "Common.h"

#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace gnnrt::kernels {

using namespace detail;

namespace {

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

template <typename T>
void gemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, const T *A,
          const T *B, T *C, bool accumulate, const GemmEpilogue &epilogue) {
  if (M == 0 || N == 0)
    return;
  // precision = bf16: the inputs rounded, fp32 accumulation
  // (GemmBFloat16.cpp); float64 (--gradcheck) stays exact.
  if constexpr (std::is_same_v<T, float>)
    if (gatherStorage() == GatherStorage::BFloat16)
      return gemmBFloat16(transA, transB, M, N, K, A, B, C, accumulate,
                          epilogue);
  const CBLAS_TRANSPOSE ta = transA ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE tb = transB ? CblasTrans : CblasNoTrans;
  const blasint lda = blasint(transA ? M : K), ldb = blasint(transB ? K : N);
  // Rows r of op(A) start at A + r * K, or at column r of A^T.
  auto rowsOfA = [&](int64_t r) { return transA ? A + r : A + r * K; };
  // Rows k of op(B) start at B + k * N, or at column k of B^T.
  auto depthOfB = [&](int64_t k) { return transB ? B + k : B + k * N; };
  auto depthOfA = [&](int64_t k) { return transA ? A + k * M : A + k; };
  blockedGemm(
      M, N, K, C, accumulate, epilogue,
      [&](int64_t r0, int64_t r1, T *c) {
        blasGemm(ta, tb, blasint(r1 - r0), blasint(N), blasint(K), T(1),
                 rowsOfA(r0), lda, B, ldb, accumulate ? T(1) : T(0), c,
                 blasint(N));
      },
      [&](int64_t k0, int64_t k1, T *out) {
        blasGemm(ta, tb, blasint(M), blasint(N), blasint(k1 - k0), T(1),
                 depthOfA(k0), lda, depthOfB(k0), ldb, T(0), out, blasint(N));
      });
}

//===--- Instantiations ---------------------------------------------------===//

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Gemm.def"
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels
