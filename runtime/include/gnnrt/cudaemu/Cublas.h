//===- Cublas.h - The cuBLAS calls gnnrt uses, served by OpenBLAS -*- C++
//-*-===//
//
// cublas_v2.h's handle, status and GEMM entry points with their real names
// and semantics (column-major, host-pointer alpha and beta), computed by
// OpenBLAS's cblas_?gemm in column-major order (cublasGemmEx's bfloat16
// operands widened to float first). Each call checks its
// arguments as cuBLAS does (CUBLAS_STATUS_INVALID_VALUE) and that every
// matrix lies inside one device allocation; a handle's stream is kept and
// checked, but work runs synchronously, like every emulated launch.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_CUDAEMU_CUBLAS_H
#define GNNRT_CUDAEMU_CUBLAS_H

#include "gnnrt/cudaemu/RuntimeApi.h"

typedef enum {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15
} cublasStatus_t;

typedef enum {
  CUBLAS_OP_N = 0,
  CUBLAS_OP_T = 1,
  CUBLAS_OP_C = 2
} cublasOperation_t;

typedef struct cublasContext *cublasHandle_t;

/// Element types (library_types.h's values): float, double and bfloat16
/// (a 16-bit value whose bits are a float's top half).
typedef enum {
  CUDA_R_32F = 0,
  CUDA_R_64F = 1,
  CUDA_R_16BF = 14
} cudaDataType_t;
typedef cudaDataType_t cudaDataType;

typedef enum {
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_64F = 70
} cublasComputeType_t;

typedef enum { CUBLAS_GEMM_DEFAULT = -1 } cublasGemmAlgo_t;

cublasStatus_t cublasCreate(cublasHandle_t *handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);
cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t *stream);
const char *cublasGetStatusString(cublasStatus_t status);

cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k,
                           const float *alpha, const float *A, int lda,
                           const float *B, int ldb, const float *beta, float *C,
                           int ldc);
cublasStatus_t cublasDgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k,
                           const double *alpha, const double *A, int lda,
                           const double *B, int ldb, const double *beta,
                           double *C, int ldc);
/// Mixed types: A and B float or bfloat16, C float, computed in float
/// (CUBLAS_COMPUTE_32F): A and B widened (exactly) and multiplied by
/// OpenBLAS's SGEMM. Any other combination is CUBLAS_STATUS_NOT_SUPPORTED.
cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k,
                            const void *alpha, const void *A,
                            cudaDataType_t Atype, int lda, const void *B,
                            cudaDataType_t Btype, int ldb, const void *beta,
                            void *C, cudaDataType_t Ctype, int ldc,
                            cublasComputeType_t computeType,
                            cublasGemmAlgo_t algo);

#endif // GNNRT_CUDAEMU_CUBLAS_H
