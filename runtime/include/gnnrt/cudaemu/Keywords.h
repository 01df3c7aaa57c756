//===- Keywords.h - CUDA's declaration specifiers on the host ---*- C++ -*-===//
//
// Function and variable space specifiers mean nothing to a host compiler:
// every function is callable from emulated device code and host code alike.
// __shared__ makes a variable one per host thread (static thread_local):
// the threads of a block are fibers of one host thread, so they share it,
// and blocks run one after another, so each block has it to itself. Like
// CUDA's, it is not initialized per block: a block sees what the previous
// one left. Dynamic shared memory (extern __shared__) is not emulated.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_CUDAEMU_KEYWORDS_H
#define GNNRT_CUDAEMU_KEYWORDS_H

#define __global__
#define __device__
#define __host__
#define __constant__ static
#define __shared__ static thread_local
#define __forceinline__ inline __attribute__((always_inline))
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __managed__

#endif // GNNRT_CUDAEMU_KEYWORDS_H
