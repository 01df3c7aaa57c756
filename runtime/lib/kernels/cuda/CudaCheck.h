//===- CudaCheck.h - CUDA errors as gnnrt::DeviceError ----------*- C++ -*-===//
//
// Internal to lib/kernels/cuda: every CUDA call's status goes through one
// check, so a failing device is reported the same way by every kernel.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_KERNELS_CUDA_CUDACHECK_H
#define GNNRT_LIB_KERNELS_CUDA_CUDACHECK_H

#include "gnnrt/support/Error.h"

#include <cuda_runtime.h>

#include <string>

namespace gnnrt::kernels::cuda::detail {

/// Throws DeviceError("CUDA <what>: <the driver's message>") unless
/// `status` is cudaSuccess.
inline void check(cudaError_t status, const char *what) {
  if (status != cudaSuccess)
    throw DeviceError(std::string("CUDA ") + what + ": " +
                      cudaGetErrorString(status));
}

} // namespace gnnrt::kernels::cuda::detail

#endif // GNNRT_LIB_KERNELS_CUDA_CUDACHECK_H
