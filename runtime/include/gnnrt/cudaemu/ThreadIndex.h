//===- ThreadIndex.h - threadIdx, blockIdx, blockDim, gridDim ---*- C++ -*-===//
//
// CUDA's vector index types and built-in variables. Each emulated thread has
// its own ThreadIndex; the scheduler points `currentIndex` at it before it
// switches into the thread, so the built-ins read as they do on a device.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_CUDAEMU_THREADINDEX_H
#define GNNRT_CUDAEMU_THREADINDEX_H

struct uint3 {
  unsigned int x, y, z;
};

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int x = 1, unsigned int y = 1, unsigned int z = 1)
      : x(x), y(y), z(z) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return {x, y, z}; }
};

namespace gnnrt::cudaemu {

/// The built-in variables of one emulated thread.
struct ThreadIndex {
  uint3 threadIdx, blockIdx;
  dim3 blockDim, gridDim;
};

/// The running emulated thread's built-ins; null outside a kernel.
extern thread_local const ThreadIndex *currentIndex;

/// Aborts with a message: a built-in was read by host code.
[[noreturn]] void builtinOutsideKernel();

/// *currentIndex; reading a built-in outside a kernel aborts with a message.
inline const ThreadIndex &threadIndex() {
  if (__builtin_expect(currentIndex == nullptr, 0))
    builtinOutsideKernel();
  return *currentIndex;
}

} // namespace gnnrt::cudaemu

#define threadIdx (::gnnrt::cudaemu::threadIndex().threadIdx)
#define blockIdx (::gnnrt::cudaemu::threadIndex().blockIdx)
#define blockDim (::gnnrt::cudaemu::threadIndex().blockDim)
#define gridDim (::gnnrt::cudaemu::threadIndex().gridDim)
constexpr int warpSize = 32;

#endif // GNNRT_CUDAEMU_THREADINDEX_H
