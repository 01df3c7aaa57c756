//===- Barrier.h - __syncthreads and __syncwarp -----------------*- C++ -*-===//
//
// A barrier suspends the calling emulated thread; the block's scheduler
// releases it once every thread of the block waits at the same
// __syncthreads() (or, for __syncwarp, every lane of its mask waits). A
// barrier some threads never reach, because they returned early or wait at
// another barrier, fails the launch with a message naming the kernel, the
// block, the source line and how many threads arrived. That is stricter
// than some hardware, which counts exited threads as arrived: the CUDA
// programming guide leaves such code undefined.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_CUDAEMU_BARRIER_H
#define GNNRT_CUDAEMU_BARRIER_H

namespace gnnrt::cudaemu {

/// __syncthreads() at file:line.
void syncThreads(const char *file, int line);
/// __syncwarp(mask) at file:line.
void syncWarp(const char *file, int line, unsigned mask = 0xffffffffu);

} // namespace gnnrt::cudaemu

#define __syncthreads() ::gnnrt::cudaemu::syncThreads(__FILE__, __LINE__)
#define __syncwarp(...)                                                        \
  ::gnnrt::cudaemu::syncWarp(__FILE__, __LINE__, ##__VA_ARGS__)

#endif // GNNRT_CUDAEMU_BARRIER_H
