//===- Stream.cu - Streams and the current stream -------------------------===//
//
// See gnnrt/kernels/cuda/Stream.h.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Stream.h"

#include "CudaCheck.h"

#include <cuda_runtime.h>

namespace gnnrt::kernels::cuda {

namespace {
thread_local StreamHandle current = nullptr;
} // namespace

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
