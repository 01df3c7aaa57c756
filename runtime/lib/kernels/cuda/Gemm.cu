//===- Gemm.cu - GEMM through cuBLAS --------------------------------------===//
//
// The CUDA half of gnnrt/kernels/cuda/Gemm.h. cuBLAS is column-major and
// our matrices row-major; a row-major C = op(A) op(B) is the column-major
// C^T = op(B)^T op(A)^T, so the call passes B before A with the row-major
// leading dimensions. One cuBLAS handle per host thread, on the current
// stream.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Gemm.h"

#include "Common.h"

#include <cublas_v2.h>

#include <climits>
#include <stdexcept>
#include <string>

namespace gnnrt::kernels::cuda {

using namespace detail;

namespace {

void checkCublas(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw DeviceError(std::string("cuBLAS ") + what + ": " +
                      cublasGetStatusString(status));
}

/// This host thread's handle, set to the current stream.
cublasHandle_t handle() {
  struct Handle {
    cublasHandle_t handle = nullptr;
    ~Handle() {
      if (handle)
        cublasDestroy(handle);
    }
  };
  thread_local Handle h;
  if (!h.handle)
    checkCublas(cublasCreate(&h.handle), "handle creation");
  checkCublas(cublasSetStream(h.handle, stream()), "stream");
  return h.handle;
}

cublasStatus_t gemmCall(cublasHandle_t handle, cublasOperation_t ta,
                        cublasOperation_t tb, int m, int n, int k,
                        const float *alpha, const float *a, int lda,
                        const float *b, int ldb, const float *beta, float *c,
                        int ldc) {
  return cublasSgemm(handle, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                     ldc);
}

cublasStatus_t gemmCall(cublasHandle_t handle, cublasOperation_t ta,
                        cublasOperation_t tb, int m, int n, int k,
                        const double *alpha, const double *a, int lda,
                        const double *b, int ldb, const double *beta, double *c,
                        int ldc) {
  return cublasDgemm(handle, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                     ldc);
}

} // namespace

template <typename T>
void gemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, const T *A,
          const T *B, T *C, bool accumulate) {
  if (M == 0 || N == 0)
    return;
  if (M > INT_MAX || N > INT_MAX || K > INT_MAX)
    throw std::invalid_argument("gemm: dimensions " + std::to_string(M) + ", " +
                                std::to_string(N) + ", " + std::to_string(K) +
                                " exceed cuBLAS's 32-bit sizes");
  // cuBLAS rejects the leading dimension 0 that K == 0 would give.
  if (K == 0) {
    if (!accumulate)
      check(cudaMemsetAsync(C, 0, size_t(M * N) * sizeof(T), stream()), "gemm");
    return;
  }
  const T one = 1, beta = accumulate ? T(1) : T(0);
  checkCublas(gemmCall(handle(), transB ? CUBLAS_OP_T : CUBLAS_OP_N,
                       transA ? CUBLAS_OP_T : CUBLAS_OP_N, int(N), int(M),
                       int(K), &one, B, int(transB ? K : N), A,
                       int(transA ? M : K), &beta, C, int(N)),
              "gemm");
}

template void gemm<float>(bool, bool, int64_t, int64_t, int64_t, const float *,
                          const float *, float *, bool);
template void gemm<double>(bool, bool, int64_t, int64_t, int64_t,
                           const double *, const double *, double *, bool);

} // namespace gnnrt::kernels::cuda
