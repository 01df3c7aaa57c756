//===- Cublas.cpp - cuBLAS GEMM served by OpenBLAS ------------------------===//
//
// cuBLAS and CBLAS share the column-major convention, so a cublas?gemm call
// is the same cblas_?gemm call in CblasColMajor order, after the argument
// checks cuBLAS makes and a check that each matrix the call reads or writes
// lies inside one device allocation.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/cudaemu/Cublas.h"

#include "Errors.h"

#include <cblas.h>

#include <algorithm>
#include <cstdio>
#include <string>

struct cublasContext {
  cudaStream_t stream = nullptr;
};

namespace gnnrt::cudaemu {
namespace {

cublasStatus_t cublasFail(cublasStatus_t status, const std::string &message) {
  std::fprintf(stderr, "cudaemu: %s: %s\n", cublasGetStatusString(status),
               message.c_str());
  return status;
}

/// "" if a rows x cols column-major matrix with leading dimension ld at p
/// lies in one device allocation.
template <typename T>
std::string checkMatrix(const char *name, const T *p, int rows, int cols,
                        int ld) {
  if (rows == 0 || cols == 0)
    return "";
  const size_t elements = size_t(ld) * size_t(cols - 1) + size_t(rows);
  if (isDeviceRange(p, elements * sizeof(T)))
    return "";
  return std::string("matrix ") + name + " (" + std::to_string(rows) + "x" +
         std::to_string(cols) + ", ld " + std::to_string(ld) + ") at " +
         addressText(p) + " is not inside one device allocation";
}

template <typename T, typename Gemm>
cublasStatus_t
gemm(const char *call, cublasHandle_t handle, cublasOperation_t transa,
     cublasOperation_t transb, int m, int n, int k, const T *alpha, const T *A,
     int lda, const T *B, int ldb, const T *beta, T *C, int ldc, Gemm &&blas) {
  if (!handle)
    return cublasFail(CUBLAS_STATUS_NOT_INITIALIZED,
                      std::string(call) + ": null handle");
  if (stickyError())
    return cublasFail(CUBLAS_STATUS_EXECUTION_FAILED,
                      std::string(call) + ": the device has a sticky error");
  const bool ta = transa != CUBLAS_OP_N, tb = transb != CUBLAS_OP_N;
  const int aRows = ta ? k : m, aCols = ta ? m : k;
  const int bRows = tb ? n : k, bCols = tb ? k : n;
  if (m < 0 || n < 0 || k < 0 || lda < std::max(1, aRows) ||
      ldb < std::max(1, bRows) || ldc < std::max(1, m) || !alpha || !beta)
    return cublasFail(CUBLAS_STATUS_INVALID_VALUE,
                      std::string(call) + ": m " + std::to_string(m) + " n " +
                          std::to_string(n) + " k " + std::to_string(k) +
                          " lda " + std::to_string(lda) + " ldb " +
                          std::to_string(ldb) + " ldc " + std::to_string(ldc));
  if (m == 0 || n == 0)
    return CUBLAS_STATUS_SUCCESS;
  std::string problem = checkMatrix("C", C, m, n, ldc);
  if (problem.empty() && k > 0)
    problem = checkMatrix("A", A, aRows, aCols, lda);
  if (problem.empty() && k > 0)
    problem = checkMatrix("B", B, bRows, bCols, ldb);
  if (!problem.empty())
    return cublasFail(CUBLAS_STATUS_EXECUTION_FAILED,
                      std::string(call) + ": " + problem);
  if (k == 0) {
    // BLAS rejects k == 0 with some leading dimensions; C = beta * C.
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        T &c = C[size_t(j) * ldc + i];
        c = *beta == T(0) ? T(0) : *beta * c;
      }
    return CUBLAS_STATUS_SUCCESS;
  }
  blas(CblasColMajor, ta ? CblasTrans : CblasNoTrans,
       tb ? CblasTrans : CblasNoTrans, m, n, k, *alpha, A, lda, B, ldb, *beta,
       C, ldc);
  return CUBLAS_STATUS_SUCCESS;
}

} // namespace
} // namespace gnnrt::cudaemu

using namespace gnnrt::cudaemu;

cublasStatus_t cublasCreate(cublasHandle_t *handle) {
  if (!handle)
    return CUBLAS_STATUS_INVALID_VALUE;
  *handle = new cublasContext;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  if (!handle)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
  if (!handle)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!isValidStream(stream))
    return cublasFail(CUBLAS_STATUS_INVALID_VALUE,
                      "cublasSetStream: the stream was destroyed or never "
                      "created");
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t *stream) {
  if (!handle)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!stream)
    return CUBLAS_STATUS_INVALID_VALUE;
  *stream = handle->stream;
  return CUBLAS_STATUS_SUCCESS;
}

const char *cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_MAPPING_ERROR:
    return "CUBLAS_STATUS_MAPPING_ERROR";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k,
                           const float *alpha, const float *A, int lda,
                           const float *B, int ldb, const float *beta, float *C,
                           int ldc) {
  return gemm("cublasSgemm", handle, transa, transb, m, n, k, alpha, A, lda, B,
              ldb, beta, C, ldc, [](auto... args) { cblas_sgemm(args...); });
}

cublasStatus_t cublasDgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k,
                           const double *alpha, const double *A, int lda,
                           const double *B, int ldb, const double *beta,
                           double *C, int ldc) {
  return gemm("cublasDgemm", handle, transa, transb, m, n, k, alpha, A, lda, B,
              ldb, beta, C, ldc, [](auto... args) { cblas_dgemm(args...); });
}
