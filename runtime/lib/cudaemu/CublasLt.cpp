//===- CublasLt.cpp - cuBLASLt matmuls served by OpenBLAS -----------------===//
//
// See gnnrt/cudaemu/CublasLt.h. A descriptor keeps what was set on it; the
// matmul checks the layouts against each other and the device allocations,
// multiplies with cblas_?gemm into a scratch matrix, then writes
// D = product + beta * C, the bias and ReLU column by column.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/cudaemu/CublasLt.h"

#include "Errors.h"

#include <cblas.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

struct cublasLtContext {};

struct cublasLtMatmulDescOpaque {
  cublasComputeType_t compute;
  cudaDataType_t scale;
  cublasOperation_t transA = CUBLAS_OP_N, transB = CUBLAS_OP_N;
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void *bias = nullptr;
};

struct cublasLtMatrixLayoutOpaque {
  cudaDataType_t type;
  uint64_t rows, cols;
  int64_t ld;
};

namespace gnnrt::cudaemu {
namespace {

cublasStatus_t ltFail(cublasStatus_t status, const std::string &message) {
  std::fprintf(stderr, "cudaemu: %s: cublasLtMatmul: %s\n",
               cublasGetStatusString(status), message.c_str());
  return status;
}

size_t elementSize(cudaDataType_t type) {
  return type == CUDA_R_64F ? sizeof(double) : sizeof(float);
}

/// "" if `layout`'s matrix at p lies in one device allocation.
std::string checkMatrix(const char *name, const void *p,
                        const cublasLtMatrixLayoutOpaque &layout) {
  if (layout.rows == 0 || layout.cols == 0)
    return "";
  const size_t elements =
      size_t(layout.ld) * size_t(layout.cols - 1) + size_t(layout.rows);
  if (isDeviceRange(p, elements * elementSize(layout.type)))
    return "";
  return std::string("matrix ") + name + " (" + std::to_string(layout.rows) +
         "x" + std::to_string(layout.cols) + ", ld " +
         std::to_string(layout.ld) + ") at " + addressText(p) +
         " is not inside one device allocation";
}

void blasGemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k,
              float alpha, const float *a, int lda, const float *b, int ldb,
              float *c, int ldc) {
  cblas_sgemm(CblasColMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, 0.0f, c,
              ldc);
}
void blasGemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k,
              double alpha, const double *a, int lda, const double *b, int ldb,
              double *c, int ldc) {
  cblas_dgemm(CblasColMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, 0.0, c,
              ldc);
}

template <typename T>
void matmul(const cublasLtMatmulDescOpaque &desc, int m, int n, int k,
            T alpha, const T *A, int lda, const T *B, int ldb, T beta,
            const T *C, int ldc, T *D, int ldd) {
  const bool ta = desc.transA != CUBLAS_OP_N, tb = desc.transB != CUBLAS_OP_N;
  std::vector<T> product(size_t(m) * size_t(n), T(0));
  if (k > 0)
    blasGemm(ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m,
             n, k, alpha, A, lda, B, ldb, product.data(), m);
  const bool bias = desc.epilogue == CUBLASLT_EPILOGUE_BIAS ||
                    desc.epilogue == CUBLASLT_EPILOGUE_RELU_BIAS;
  const bool relu = desc.epilogue == CUBLASLT_EPILOGUE_RELU ||
                    desc.epilogue == CUBLASLT_EPILOGUE_RELU_BIAS;
  const T *b = static_cast<const T *>(desc.bias);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      T v = product[size_t(j) * m + i];
      if (beta != T(0))
        v = beta * C[size_t(j) * ldc + i] + v;
      if (bias)
        v = v + b[i];
      if (relu)
        v = v > T(0) ? v : T(0);
      D[size_t(j) * ldd + i] = v;
    }
}

} // namespace
} // namespace gnnrt::cudaemu

using namespace gnnrt::cudaemu;

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle) {
  if (!handle)
    return CUBLAS_STATUS_INVALID_VALUE;
  *handle = new cublasLtContext;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  if (!handle)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc,
                                        cublasComputeType_t computeType,
                                        cudaDataType_t scaleType) {
  if (!desc)
    return CUBLAS_STATUS_INVALID_VALUE;
  const bool f32 = computeType == CUBLAS_COMPUTE_32F && scaleType == CUDA_R_32F;
  const bool f64 = computeType == CUBLAS_COMPUTE_64F && scaleType == CUDA_R_64F;
  if (!f32 && !f64)
    return ltFail(CUBLAS_STATUS_NOT_SUPPORTED,
                  "the emulation computes float (CUBLAS_COMPUTE_32F, "
                  "CUDA_R_32F) and double (CUBLAS_COMPUTE_64F, CUDA_R_64F) "
                  "only");
  *desc = new cublasLtMatmulDescOpaque{computeType, scaleType};
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  delete desc;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                               cublasLtMatmulDescAttributes_t attribute,
                               const void *buffer, size_t bytes) {
  if (!desc || !buffer)
    return CUBLAS_STATUS_INVALID_VALUE;
  auto read = [&](auto &field) {
    if (bytes != sizeof(field))
      return CUBLAS_STATUS_INVALID_VALUE;
    std::copy_n(static_cast<const char *>(buffer), bytes,
                reinterpret_cast<char *>(&field));
    return CUBLAS_STATUS_SUCCESS;
  };
  switch (attribute) {
  case CUBLASLT_MATMUL_DESC_TRANSA:
    return read(desc->transA);
  case CUBLASLT_MATMUL_DESC_TRANSB:
    return read(desc->transB);
  case CUBLASLT_MATMUL_DESC_EPILOGUE:
    return read(desc->epilogue);
  case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
    return read(desc->bias);
  }
  return ltFail(CUBLAS_STATUS_NOT_SUPPORTED,
                "descriptor attribute " + std::to_string(int(attribute)) +
                    " is not emulated");
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout,
                                          cudaDataType_t type, uint64_t rows,
                                          uint64_t cols, int64_t ld) {
  if (!layout || ld < int64_t(std::max<uint64_t>(1, rows)))
    return CUBLAS_STATUS_INVALID_VALUE;
  // The emulation multiplies float and double matrices only (bf16 GEMMs
  // go through cublasGemmEx).
  if (type != CUDA_R_32F && type != CUDA_R_64F)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  *layout = new cublasLtMatrixLayoutOpaque{type, rows, cols, ld};
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  delete layout;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t
cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
               const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
               const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
               const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
               cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
               void *, size_t, cudaStream_t stream) {
  if (!handle)
    return ltFail(CUBLAS_STATUS_NOT_INITIALIZED, "null handle");
  if (stickyError())
    return ltFail(CUBLAS_STATUS_EXECUTION_FAILED,
                  "the device has a sticky error");
  if (!desc || !Adesc || !Bdesc || !Cdesc || !Ddesc || !alpha || !beta)
    return ltFail(CUBLAS_STATUS_INVALID_VALUE, "a null descriptor or scalar");
  if (algo)
    return ltFail(CUBLAS_STATUS_NOT_SUPPORTED,
                  "the emulation takes no algorithm (pass null)");
  if (!isValidStream(stream))
    return ltFail(CUBLAS_STATUS_INVALID_VALUE,
                  "the stream was destroyed or never created");
  const bool ta = desc->transA != CUBLAS_OP_N, tb = desc->transB != CUBLAS_OP_N;
  const uint64_t m = Ddesc->rows, n = Ddesc->cols;
  const uint64_t k = ta ? Adesc->rows : Adesc->cols;
  const uint64_t aRows = ta ? k : m, bRows = tb ? n : k, bCols = tb ? k : n;
  const cudaDataType_t type = desc->scale;
  if (Adesc->rows != aRows || Bdesc->rows != bRows || Bdesc->cols != bCols ||
      Cdesc->rows != m || Cdesc->cols != n || Adesc->type != type ||
      Bdesc->type != type || Cdesc->type != type || Ddesc->type != type)
    return ltFail(CUBLAS_STATUS_INVALID_VALUE,
                  "the layouts of A, B, C and D do not fit one product (D " +
                      std::to_string(m) + "x" + std::to_string(n) + ", k " +
                      std::to_string(k) + ")");
  const bool bias = desc->epilogue == CUBLASLT_EPILOGUE_BIAS ||
                    desc->epilogue == CUBLASLT_EPILOGUE_RELU_BIAS;
  if (m == 0 || n == 0)
    return CUBLAS_STATUS_SUCCESS;
  std::string problem = checkMatrix("D", D, *Ddesc);
  if (problem.empty() && k > 0)
    problem = checkMatrix("A", A, *Adesc);
  if (problem.empty() && k > 0)
    problem = checkMatrix("B", B, *Bdesc);
  const bool readsC = type == CUDA_R_64F ? *static_cast<const double *>(beta) != 0
                                         : *static_cast<const float *>(beta) != 0;
  if (problem.empty() && readsC)
    problem = checkMatrix("C", C, *Cdesc);
  if (problem.empty() && bias &&
      !isDeviceRange(desc->bias, size_t(m) * elementSize(type)))
    problem = "the bias (" + std::to_string(m) + " values) at " +
              addressText(desc->bias) + " is not inside one device allocation";
  if (!problem.empty())
    return ltFail(CUBLAS_STATUS_EXECUTION_FAILED, problem);
  if (type == CUDA_R_64F)
    matmul(*desc, int(m), int(n), int(k), *static_cast<const double *>(alpha),
           static_cast<const double *>(A), int(Adesc->ld),
           static_cast<const double *>(B), int(Bdesc->ld),
           *static_cast<const double *>(beta), static_cast<const double *>(C),
           int(Cdesc->ld), static_cast<double *>(D), int(Ddesc->ld));
  else
    matmul(*desc, int(m), int(n), int(k), *static_cast<const float *>(alpha),
           static_cast<const float *>(A), int(Adesc->ld),
           static_cast<const float *>(B), int(Bdesc->ld),
           *static_cast<const float *>(beta), static_cast<const float *>(C),
           int(Cdesc->ld), static_cast<float *>(D), int(Ddesc->ld));
  return CUBLAS_STATUS_SUCCESS;
}
