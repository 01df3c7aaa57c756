//===- Device.cu - The CUDA devices this process sees ---------------------===//
//
// See gnnrt/kernels/Device.h.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Device.h"

#include <cuda_runtime.h>

namespace gnnrt::kernels::cuda {

int deviceCount() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

} // namespace gnnrt::kernels::cuda
