//===- CublasLt.h - The cuBLASLt calls gnnrt uses, served by OpenBLAS -*- C++ -*-===//
//
// cublasLt.h's handle, descriptors and cublasLtMatmul with their real names
// and semantics (column-major; D = alpha op(A) op(B) + beta C, then the
// epilogue: the bias, a vector of D's rows, added to every column, then
// ReLU), for the float and double GEMMs gnnrt fuses an epilogue into
// (gnnrt/kernels/families/Gemm.def's gemmEpilogue). The product is OpenBLAS's
// cblas_?gemm into a scratch matrix, then beta C, the bias and ReLU are
// applied in that order, elementwise: the operations, in the order, of the
// CPU's GEMM followed by its epilogue. Each matrix must lie inside one
// device allocation; the stream is checked, the work runs synchronously.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_CUDAEMU_CUBLASLT_H
#define GNNRT_CUDAEMU_CUBLASLT_H

#include "gnnrt/cudaemu/Cublas.h"

#include <cstddef>
#include <cstdint>

typedef enum {
  CUBLASLT_MATMUL_DESC_TRANSA = 3,
  CUBLASLT_MATMUL_DESC_TRANSB = 4,
  CUBLASLT_MATMUL_DESC_EPILOGUE = 7,
  CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8
} cublasLtMatmulDescAttributes_t;

typedef enum {
  CUBLASLT_EPILOGUE_DEFAULT = 1,
  CUBLASLT_EPILOGUE_RELU = 2,
  CUBLASLT_EPILOGUE_BIAS = 4,
  CUBLASLT_EPILOGUE_RELU_BIAS = 6
} cublasLtEpilogue_t;

typedef struct cublasLtContext *cublasLtHandle_t;
typedef struct cublasLtMatmulDescOpaque *cublasLtMatmulDesc_t;
typedef struct cublasLtMatrixLayoutOpaque *cublasLtMatrixLayout_t;
/// Only null (the library's heuristic) is accepted.
typedef struct cublasLtMatmulAlgoOpaque cublasLtMatmulAlgo_t;

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle);
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc,
                                        cublasComputeType_t computeType,
                                        cudaDataType_t scaleType);
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc);
cublasStatus_t
cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                               cublasLtMatmulDescAttributes_t attribute,
                               const void *buffer, size_t bytes);
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout,
                                          cudaDataType_t type, uint64_t rows,
                                          uint64_t cols, int64_t ld);
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout);
cublasStatus_t
cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
               const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
               const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
               const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
               cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
               void *workspace, size_t workspaceBytes, cudaStream_t stream);

#endif // GNNRT_CUDAEMU_CUBLASLT_H
