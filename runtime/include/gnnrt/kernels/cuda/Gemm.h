//===- Gemm.h - Dense matrix products on CUDA devices -----------*- C++ -*-===//
//
// The CUDA implementation of gnnrt/kernels/Gemm.h through cuBLAS, on the
// current stream (Stream.h). A device has no use for the CPU's host-side
// epilogue callback: a fused epilogue is a kernel queued after the product
// on the same stream.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_CUDA_GEMM_H
#define GNNRT_KERNELS_CUDA_GEMM_H

#include <cstdint>

namespace gnnrt::kernels::cuda {

/// kernels::gemm on device matrices, row-major: C[M, N] = op(A) * op(B)
/// (+ C if accumulate). Throws DeviceError if cuBLAS fails.
template <typename T>
void gemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, const T *A,
          const T *B, T *C, bool accumulate = false);

} // namespace gnnrt::kernels::cuda

#endif // GNNRT_KERNELS_CUDA_GEMM_H
