//===- Gemm.cu - GEMM through cuBLAS, fused epilogues through cuBLASLt ----===//
//
// The CUDA half of gnnrt/kernels/families/Gemm.def. cuBLAS is column-major
// and our matrices row-major; a row-major C = op(A) op(B) is the
// column-major C^T = op(B)^T op(A)^T, so the call passes B before A with the
// row-major leading dimensions. One cuBLAS handle per host thread, on the
// current stream.
//
// gemmEpilogue makes the same swap for cuBLASLt: its A is our B and its B
// our A; C^T's rows are our columns, so cuBLASLt's bias (a value per row of
// its D) is our per-column bias. The added matrix is cuBLASLt's C with
// beta = 1, and the epilogue BIAS / RELU / RELU_BIAS applies the rest in
// the order the CPU's epilogue does. One cuBLASLt handle per host thread;
// the descriptors are made per call (microseconds against a GEMM). Where
// cuBLASLt reports the combination unsupported, the product goes through
// gemm and the epilogue through a kernel.
//
// A bf16 run (precision = bf16) rounds op(A) and op(B) to bf16 copies
// (BFloat16Rows.h) and multiplies them by cublasGemmEx with fp32 accumulation
// and an fp32 C, as the CPU's gemmBFloat16 rounds its operands; its fused
// epilogues take the fallback (the product, then the epilogue kernel).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "BFloat16Rows.h"
#include "Common.h"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <climits>
#include <stdexcept>
#include <string>
#include <type_traits>

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

/// C = op(A) op(B) (+ C) over A and B rounded to bf16, fp32 accumulation:
/// cublasGemmEx with the same column-major swap as gemmCall.
cublasStatus_t gemmBFloat16Call(cublasHandle_t handle, bool transA,
                                bool transB, int m, int n, int k,
                                const float *alpha, const float *A,
                                const float *B, const float *beta, float *C) {
  // Slot 0 holds A's rounding, slot 1 B's: both live until the call ends.
  const BFloat16 *a = deviceBFloat16Rows(A, int64_t(m) * k, 0);
  const BFloat16 *b = deviceBFloat16Rows(B, int64_t(k) * n, 1);
  return cublasGemmEx(handle, transB ? CUBLAS_OP_T : CUBLAS_OP_N,
                      transA ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, alpha, b,
                      CUDA_R_16BF, transB ? k : n, a, CUDA_R_16BF,
                      transA ? m : k, beta, C, CUDA_R_32F, n,
                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
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
  if constexpr (std::is_same_v<T, float>) {
    if (gathersBFloat16<T>()) {
      checkCublas(gemmBFloat16Call(handle(), transA, transB, int(M), int(N),
                                   int(K), &one, A, B, &beta, C),
                  "bf16 gemm");
      return;
    }
  }
  checkCublas(gemmCall(handle(), transB ? CUBLAS_OP_T : CUBLAS_OP_N,
                       transA ? CUBLAS_OP_T : CUBLAS_OP_N, int(N), int(M),
                       int(K), &one, B, int(transB ? K : N), A,
                       int(transA ? M : K), &beta, C, int(N)),
              "gemm");
}

namespace {

void checkLt(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw DeviceError(std::string("cuBLASLt ") + what + ": " +
                      cublasGetStatusString(status));
}

cublasLtHandle_t ltHandle() {
  struct Handle {
    cublasLtHandle_t handle = nullptr;
    ~Handle() {
      if (handle)
        cublasLtDestroy(handle);
    }
  };
  thread_local Handle h;
  if (!h.handle)
    checkLt(cublasLtCreate(&h.handle), "handle creation");
  return h.handle;
}

template <typename T> struct LtTypes;
template <> struct LtTypes<float> {
  static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  static constexpr cudaDataType_t data = CUDA_R_32F;
};
template <> struct LtTypes<double> {
  static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_64F;
  static constexpr cudaDataType_t data = CUDA_R_64F;
};

/// Descriptors freed however the call ends.
struct LtCall {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  ~LtCall() {
    cublasLtMatrixLayoutDestroy(a);
    cublasLtMatrixLayoutDestroy(b);
    cublasLtMatrixLayoutDestroy(c);
    cublasLtMatmulDescDestroy(desc);
  }
};

/// cuBLASLt's matmul with the epilogue; its status (NOT_SUPPORTED: use the
/// fallback).
template <typename T>
cublasStatus_t ltMatmul(bool transA, bool transB, int64_t M, int64_t N,
                        int64_t K, const T *A, const T *B, const T *addend,
                        const T *bias, bool relu, T *C) {
  const cudaDataType_t type = LtTypes<T>::data;
  LtCall call;
  cublasStatus_t s =
      cublasLtMatmulDescCreate(&call.desc, LtTypes<T>::compute, type);
  if (s != CUBLAS_STATUS_SUCCESS)
    return s;
  // cuBLASLt's A = our B, its B = our A (see the file comment).
  const cublasOperation_t opA = transB ? CUBLAS_OP_T : CUBLAS_OP_N,
                          opB = transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasLtEpilogue_t epilogue =
      bias ? (relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS)
           : (relu ? CUBLASLT_EPILOGUE_RELU : CUBLASLT_EPILOGUE_DEFAULT);
  checkLt(cublasLtMatmulDescSetAttribute(call.desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                         &opA, sizeof opA),
          "transa");
  checkLt(cublasLtMatmulDescSetAttribute(call.desc, CUBLASLT_MATMUL_DESC_TRANSB,
                                         &opB, sizeof opB),
          "transb");
  checkLt(cublasLtMatmulDescSetAttribute(call.desc,
                                         CUBLASLT_MATMUL_DESC_EPILOGUE,
                                         &epilogue, sizeof epilogue),
          "epilogue");
  if (bias)
    checkLt(cublasLtMatmulDescSetAttribute(call.desc,
                                           CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                           &bias, sizeof bias),
            "bias");
  // Column-major shapes as stored: our B is [K, N] (transB: [N, K])
  // row-major, i.e. N x K (K x N) column-major; likewise A.
  checkLt(cublasLtMatrixLayoutCreate(&call.a, type, transB ? K : N,
                                     transB ? N : K, transB ? K : N),
          "layout of B");
  checkLt(cublasLtMatrixLayoutCreate(&call.b, type, transA ? M : K,
                                     transA ? K : M, transA ? M : K),
          "layout of A");
  checkLt(cublasLtMatrixLayoutCreate(&call.c, type, N, M, N), "layout of C");
  const T one = 1, beta = addend ? T(1) : T(0);
  return cublasLtMatmul(ltHandle(), call.desc, &one, B, call.a, A, call.b,
                        &beta, addend ? addend : C, call.c, C, call.c, nullptr,
                        nullptr, 0, stream());
}

template <typename T>
__global__ void epilogueKernel(int64_t n, int64_t cols, const T *addend,
                               const T *bias, bool relu, T *c) {
  for (int64_t i = globalThread(); i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    T v = c[i];
    if (addend)
      v = add(addend[i], v);
    if (bias)
      v = add(v, bias[i % cols]);
    if (relu)
      v = v > T(0) ? v : T(0);
    c[i] = v;
  }
}

} // namespace

template <typename T>
void gemmEpilogue(bool transA, bool transB, int64_t M, int64_t N, int64_t K,
                  const T *A, const T *B, const T *addend, const T *bias,
                  bool relu, T *C) {
  if (M == 0 || N == 0)
    return;
  if (M > INT_MAX || N > INT_MAX || K > INT_MAX)
    throw std::invalid_argument(
        "gemmEpilogue: dimensions " + std::to_string(M) + ", " +
        std::to_string(N) + ", " + std::to_string(K) + " exceed 32-bit sizes");
  if (K > 0 && !gathersBFloat16<T>()) {
    const cublasStatus_t s =
        ltMatmul(transA, transB, M, N, K, A, B, addend, bias, relu, C);
    if (s == CUBLAS_STATUS_SUCCESS)
      return;
    if (s != CUBLAS_STATUS_NOT_SUPPORTED)
      checkLt(s, "matmul");
  }
  // The product, then the epilogue in place (an added matrix that is C
  // itself is read before the product overwrites it: add it as gemm's
  // accumulation instead).
  const bool inPlace = addend == C;
  gemm(transA, transB, M, N, K, A, B, C, /*accumulate=*/inPlace);
  const int64_t n = M * N;
  GNNRT_LAUNCH_WITHOUT_BARRIERS(generatedGrid(n), kGeneratedBlock, 0, stream(),
                                epilogueKernel<T>)
  (n, N, inPlace ? nullptr : addend, bias, relu, C);
  checkLaunch("gemmEpilogue's epilogue");
}

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Gemm.def"
#define GNNRT_KERNEL_CUDA
#include "gnnrt/kernels/InstantiateKernels.inc"

} // namespace gnnrt::kernels::cuda
