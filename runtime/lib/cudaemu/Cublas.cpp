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
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

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
/// "" if the column-major rows x cols matrix at p (leading dimension ld,
/// elements of `elementBytes`) lies inside one device allocation.
std::string checkMatrix(const char *name, const void *p, int rows, int cols,
                        int ld, size_t elementBytes) {
  if (rows == 0 || cols == 0)
    return "";
  const size_t elements = size_t(ld) * size_t(cols - 1) + size_t(rows);
  if (isDeviceRange(p, elements * elementBytes))
    return "";
  return std::string("matrix ") + name + " (" + std::to_string(rows) + "x" +
         std::to_string(cols) + ", ld " + std::to_string(ld) + ") at " +
         addressText(p) + " is not inside one device allocation";
}

/// A matrix operand as cuBLAS receives it: where, and its element size.
struct Operand {
  const void *data;
  size_t elementBytes;
};

/// The checks every GEMM call makes, then `blas` (C = alpha op(A) op(B) +
/// beta C, column-major) unless there is nothing to multiply.
template <typename T, typename Gemm>
cublasStatus_t gemm(const char *call, cublasHandle_t handle,
                    cublasOperation_t transa, cublasOperation_t transb, int m,
                    int n, int k, const T *alpha, Operand A, int lda,
                    Operand B, int ldb, const T *beta, T *C, int ldc,
                    Gemm &&blas) {
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
  std::string problem = checkMatrix("C", C, m, n, ldc, sizeof(T));
  if (problem.empty() && k > 0)
    problem = checkMatrix("A", A.data, aRows, aCols, lda, A.elementBytes);
  if (problem.empty() && k > 0)
    problem = checkMatrix("B", B.data, bRows, bCols, ldb, B.elementBytes);
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
  blas(ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
       aRows, aCols, bRows, bCols);
  return CUBLAS_STATUS_SUCCESS;
}

/// The rows x cols column-major matrix at p (leading dimension ld) of
/// `type` as floats, with the same leading dimension (bf16 widens exactly).
std::vector<float> widened(const void *p, cudaDataType_t type, int rows,
                           int cols, int ld) {
  const size_t elements = size_t(ld) * size_t(cols - 1) + size_t(rows);
  std::vector<float> out(elements);
  if (type == CUDA_R_32F) {
    std::memcpy(out.data(), p, elements * sizeof(float));
    return out;
  }
  const auto *bits = static_cast<const uint16_t *>(p);
  for (size_t i = 0; i < elements; ++i) {
    const uint32_t u = uint32_t(bits[i]) << 16;
    std::memcpy(&out[i], &u, sizeof u);
  }
  return out;
}

size_t elementBytes(cudaDataType_t type) {
  return type == CUDA_R_16BF ? 2 : type == CUDA_R_64F ? 8 : 4;
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
  return gemm("cublasSgemm", handle, transa, transb, m, n, k, alpha,
              Operand{A, sizeof(float)}, lda, Operand{B, sizeof(float)}, ldb,
              beta, C, ldc,
              [&](CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, auto...) {
                cblas_sgemm(CblasColMajor, ta, tb, m, n, k, *alpha, A, lda, B,
                            ldb, *beta, C, ldc);
              });
}

cublasStatus_t cublasDgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k,
                           const double *alpha, const double *A, int lda,
                           const double *B, int ldb, const double *beta,
                           double *C, int ldc) {
  return gemm("cublasDgemm", handle, transa, transb, m, n, k, alpha,
              Operand{A, sizeof(double)}, lda, Operand{B, sizeof(double)}, ldb,
              beta, C, ldc,
              [&](CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, auto...) {
                cblas_dgemm(CblasColMajor, ta, tb, m, n, k, *alpha, A, lda, B,
                            ldb, *beta, C, ldc);
              });
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k,
                            const void *alpha, const void *A,
                            cudaDataType_t Atype, int lda, const void *B,
                            cudaDataType_t Btype, int ldb, const void *beta,
                            void *C, cudaDataType_t Ctype, int ldc,
                            cublasComputeType_t computeType,
                            cublasGemmAlgo_t) {
  auto operandType = [](cudaDataType_t t) {
    return t == CUDA_R_32F || t == CUDA_R_16BF;
  };
  if (!operandType(Atype) || !operandType(Btype) || Ctype != CUDA_R_32F ||
      computeType != CUBLAS_COMPUTE_32F)
    return cublasFail(CUBLAS_STATUS_NOT_SUPPORTED,
                      "cublasGemmEx: only float or bfloat16 A and B with a "
                      "float C, computed in CUBLAS_COMPUTE_32F");
  const auto *a = static_cast<const float *>(alpha);
  const auto *b = static_cast<const float *>(beta);
  auto *c = static_cast<float *>(C);
  return gemm("cublasGemmEx", handle, transa, transb, m, n, k, a,
              Operand{A, elementBytes(Atype)}, lda,
              Operand{B, elementBytes(Btype)}, ldb, b, c, ldc,
              [&](CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int aRows,
                  int aCols, int bRows, int bCols) {
                const std::vector<float> wa =
                    widened(A, Atype, aRows, aCols, lda);
                const std::vector<float> wb =
                    widened(B, Btype, bRows, bCols, ldb);
                cblas_sgemm(CblasColMajor, ta, tb, m, n, k, *a, wa.data(), lda,
                            wb.data(), ldb, *b, c, ldc);
              });
}
