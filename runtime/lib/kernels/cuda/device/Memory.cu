//===- Memory.cu - Copies and fills of device buffers ---------------------===//
//
// See gnnrt/kernels/cuda/Memory.h. Copies and fills are the runtime's
// asynchronous calls on the current stream; the accumulation is one thread
// per element, a plain add as on the CPU. And the kernels' own temporaries
// (detail::scratch in Common.h): one grow-only device buffer per host
// thread, so a kernel's temporaries cost a cudaMalloc only when a call needs
// more than any before it.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Memory.h"

#include "cuda/Common.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gnnrt::kernels::cuda {

namespace {

template <typename T>
__global__ void accumulateKernel(const T *from, int64_t n, T *to) {
  for (int64_t i = detail::globalThread(); i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    to[i] = detail::add(to[i], from[i]);
}

} // namespace

template <typename T> void copy(const T *from, int64_t n, T *to) {
  if (n <= 0 || from == to)
    return;
  detail::check(cudaMemcpyAsync(to, from, size_t(n) * sizeof(T),
                                cudaMemcpyDeviceToDevice, detail::stream()),
                "copy");
}

template <typename T> void zero(T *p, int64_t n) {
  if (n <= 0)
    return;
  detail::check(cudaMemsetAsync(p, 0, size_t(n) * sizeof(T), detail::stream()),
                "zero");
}

template <typename T> void accumulate(const T *from, int64_t n, T *to) {
  if (n <= 0)
    return;
  GNNRT_LAUNCH(generatedGrid(n), kGeneratedBlock, 0, detail::stream(),
               accumulateKernel<T>)
  (from, n, to);
  checkLaunch("accumulate");
}

template <typename T> T readScalar(const T *p) {
  T value{};
  detail::check(cudaMemcpy(&value, p, sizeof(T), cudaMemcpyDeviceToHost),
                "readScalar");
  return value;
}

template <typename T>
void readArray(const T *p, int64_t n, std::vector<T> &out) {
  out.resize(size_t(n));
  if (n > 0)
    detail::check(cudaMemcpy(out.data(), p, size_t(n) * sizeof(T),
                             cudaMemcpyDeviceToHost),
                  "readArray");
}

void checkLaunch(const char *kernel) {
  detail::check(cudaGetLastError(), kernel);
}

#define GNNRT_INSTANTIATE(T)                                                   \
  template void copy<T>(const T *, int64_t, T *);                              \
  template void zero<T>(T *, int64_t);                                         \
  template void accumulate<T>(const T *, int64_t, T *);                        \
  template T readScalar<T>(const T *);                                         \
  template void readArray<T>(const T *, int64_t, std::vector<T> &);
GNNRT_INSTANTIATE(float)
GNNRT_INSTANTIATE(double)
#undef GNNRT_INSTANTIATE

} // namespace gnnrt::kernels::cuda

namespace gnnrt::kernels::cuda::detail {

namespace {

struct ScratchBuffer {
  void *data = nullptr;
  size_t bytes = 0;
  ~ScratchBuffer() { cudaFree(data); }
};

} // namespace

void *scratch(size_t bytes, int slot) {
  if (slot < 0 || slot >= kScratchSlots)
    throw std::invalid_argument("scratch: no slot " + std::to_string(slot));
  thread_local ScratchBuffer buffers[kScratchSlots];
  ScratchBuffer &buffer = buffers[slot];
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
