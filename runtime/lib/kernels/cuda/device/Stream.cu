//===- Stream.cu - The devices, streams and the current stream ------------===//
//
// See gnnrt/kernels/Device.h and gnnrt/kernels/cuda/Stream.h: where the
// CUDA kernels run.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Device.h"
#include "gnnrt/kernels/cuda/Stream.h"

#include "cuda/Common.h"

#include <cuda_runtime.h>

namespace gnnrt::kernels::cuda {

namespace {
thread_local StreamHandle current = nullptr;
} // namespace

int deviceCount() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

Stream::Stream() {
  detail::check(cudaStreamCreateWithFlags(&handle, cudaStreamNonBlocking),
                "stream creation");
}

Stream::~Stream() { cudaStreamDestroy(handle); }

void Stream::synchronize() const {
  detail::check(cudaStreamSynchronize(handle), "stream synchronization");
}

StreamScope::StreamScope(StreamHandle stream) : previous(current) {
  current = stream;
}

StreamScope::~StreamScope() { current = previous; }

StreamHandle currentStream() { return current; }

} // namespace gnnrt::kernels::cuda
