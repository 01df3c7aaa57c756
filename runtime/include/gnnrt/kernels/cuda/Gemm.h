//===- Gemm.h - Dense matrix products on CUDA devices -----------*- C++ -*-===//
//
// The CUDA implementation of gnnrt/kernels/Gemm.h through cuBLAS, on the
// current stream (Stream.h). A device has no use for the CPU's host-side
// epilogue callback: a fused epilogue is a kernel queued after the product
// on the same stream -- or, for a bias, an added matrix and ReLU, fused by
// cuBLASLt (gemmEpilogue).
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

/// A GEMM with the epilogue cuBLASLt fuses into it (one kernel on a
/// device, no pass over C afterwards), on device matrices, row-major:
///   C[M, N] = relu?( (addend + op(A) * op(B)) + bias )
/// where `addend` ([M, N], optional) is added to the product first and
/// `bias` ([N], optional) to every row, then ReLU if `relu` -- the order of
/// a gnn.matmul_map epilogue `relu((x + acc) + b)` on the CPU. `addend`
/// may be C itself. Falls back to gemm and an epilogue kernel where
/// cuBLASLt does not support the combination. Throws DeviceError.
template <typename T>
void gemmEpilogue(bool transA, bool transB, int64_t M, int64_t N, int64_t K,
                  const T *A, const T *B, const T *addend, const T *bias,
                  bool relu, T *C);

} // namespace gnnrt::kernels::cuda

#endif // GNNRT_KERNELS_CUDA_GEMM_H
