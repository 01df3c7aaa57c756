//===- Gemm.cpp - GEMM through CBLAS --------------------------------------===//
//
// Dense products through CBLAS, one single-threaded BLAS call per block of
// output rows (or per chunk of K) spread over OpenMP threads, so that the
// blocking, and with it the result, does not depend on the thread count.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Gemm.h"

#include "Common.h"

#include <cblas.h>

#include <algorithm>
#include <cstdint>
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

//===--- Instantiations ---------------------------------------------------===//

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Gemm.def"
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels
