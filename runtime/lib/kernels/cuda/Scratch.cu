//===- Scratch.cu - Temporaries of the CUDA kernels -----------------------===//
//
// See detail::scratch in Common.h: one grow-only device buffer per host
// thread, so a kernel's temporaries cost a cudaMalloc only when a call needs
// more than any before it.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include <algorithm>

namespace gnnrt::kernels::cuda::detail {

namespace {

struct ScratchBuffer {
  void *data = nullptr;
  size_t bytes = 0;
  ~ScratchBuffer() { cudaFree(data); }
};

} // namespace

void *scratch(size_t bytes) {
  thread_local ScratchBuffer buffer;
  if (bytes > buffer.bytes) {
    // Grow geometrically: a sequence of slightly larger batches allocates
    // a few times, not once per batch.
    const size_t grown = std::max(bytes, buffer.bytes * 3 / 2);
    // Everything queued before may still read the old buffer.
    check(cudaStreamSynchronize(stream()), "scratch reallocation");
    check(cudaFree(buffer.data), "scratch reallocation");
    buffer.data = nullptr;
    buffer.bytes = 0;
    check(cudaMalloc(&buffer.data, grown), "scratch allocation");
    buffer.bytes = grown;
  }
  return buffer.data;
}

} // namespace gnnrt::kernels::cuda::detail
