//===- DeviceArray.h - Growing device buffers for host-driven code -*- C++ -*-===//
//
// For CUDA sources (built by nvcc and over the emulation) that keep device
// buffers across calls: the halo exchange between GPUs and the GPU sampler.
// Header-only, included by .cu files only.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_CUDA_DEVICEARRAY_H
#define GNNRT_KERNELS_CUDA_DEVICEARRAY_H

#include "gnnrt/support/Error.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace gnnrt::kernels::cuda {

/// Throws DeviceError("CUDA <what>: <the driver's message>").
inline void checkCuda(cudaError_t status, const char *what) {
  if (status != cudaSuccess)
    throw DeviceError(std::string("CUDA ") + what + ": " +
                      cudaGetErrorString(status));
}

/// This thread's index in a one-dimensional grid.
__device__ inline int64_t globalThread() {
  return int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
}

/// Device memory that only grows; its contents are not kept when it does.
class DeviceArray {
public:
  DeviceArray() = default;
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;
  ~DeviceArray() { cudaFree(data); }

  /// Room for `count` (at least one) values of U.
  template <typename U> U *get(int64_t count) {
    const size_t bytes = size_t(count > 0 ? count : 1) * sizeof(U);
    if (bytes > capacity) {
      checkCuda(cudaFree(data), "free of a device buffer");
      data = nullptr;
      checkCuda(cudaMalloc(&data, bytes), "allocation of a device buffer");
      capacity = bytes;
    }
    return static_cast<U *>(data);
  }
  /// A device copy of host[0..count) (null for a null host array).
  template <typename U> U *upload(const U *host, int64_t count) {
    if (!host)
      return nullptr;
    U *device = get<U>(count);
    if (count > 0)
      checkCuda(cudaMemcpy(device, host, size_t(count) * sizeof(U),
                           cudaMemcpyHostToDevice),
                "copy to the device");
    return device;
  }

private:
  void *data = nullptr;
  size_t capacity = 0;
};

} // namespace gnnrt::kernels::cuda

#endif // GNNRT_KERNELS_CUDA_DEVICEARRAY_H
