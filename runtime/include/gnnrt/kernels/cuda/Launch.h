//===- Launch.h - One launch syntax for nvcc and the emulation --*- C++ -*-===//
//
// CUDA sources in gnnrt (and, later, generated ones) launch kernels with
//
//   GNNRT_LAUNCH(grid, block, sharedBytes, stream, kernel<T>)(args...);
//
// which is kernel<T><<<grid, block, sharedBytes, stream>>>(args...) under
// nvcc and a call of gnnrt::cudaemu::launch in the emulated build
// (docs/cuda-emulation.md), where a host compiler has no <<<>>>. The kernel
// comes last so that template arguments with commas need no parentheses.
//
// GNNRT_LAUNCH_WITHOUT_BARRIERS is the same launch for a kernel that calls no
// __syncthreads, __syncwarp or warp collective (every elementwise kernel
// gnnc generates): identical under nvcc, and run without fibers by the
// emulation, which reports a barrier such a kernel does reach.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_CUDA_LAUNCH_H
#define GNNRT_KERNELS_CUDA_LAUNCH_H

#ifdef GNNRT_CUDA_EMULATION
#define GNNRT_LAUNCH(grid, block, sharedBytes, stream, ...)                    \
  ::gnnrt::cudaemu::launch(#__VA_ARGS__, __VA_ARGS__, grid, block,             \
                           sharedBytes, stream)
#define GNNRT_LAUNCH_WITHOUT_BARRIERS(grid, block, sharedBytes, stream, ...)   \
  ::gnnrt::cudaemu::launchWithoutBarriers(#__VA_ARGS__, __VA_ARGS__, grid,     \
                                          block, sharedBytes, stream)
#else
#define GNNRT_LAUNCH(grid, block, sharedBytes, stream, ...)                    \
  __VA_ARGS__<<<grid, block, sharedBytes, stream>>>
#define GNNRT_LAUNCH_WITHOUT_BARRIERS(grid, block, sharedBytes, stream, ...)   \
  __VA_ARGS__<<<grid, block, sharedBytes, stream>>>
#endif

#endif // GNNRT_KERNELS_CUDA_LAUNCH_H
