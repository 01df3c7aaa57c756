//===- Cuda.h - The CUDA surface, emulated on the host ----------*- C++ -*-===//
//
// The header the emulated build force-includes (-include gnnrt/cudaemu/Cuda.h)
// into every .cu file it compiles with the host compiler, and what the shim
// <cuda_runtime.h> and <cublas_v2.h> (gnnrt/cudaemu/shim/) resolve to there:
// everything a CUDA C++ translation unit expects nvcc to provide. Each piece
// is its own header; docs/cuda-emulation.md says what the emulation models
// and, as importantly, what it does not.
//
// One host thread runs a launch: the blocks of the grid one after another,
// the threads of a block as fibers (Boost.Context) that switch only at
// barriers and warp collectives. A barrier or collective that not every
// thread it names reaches fails the launch with a message that names the
// kernel, the block and the threads; it never hangs.
//
// Not modeled (docs/cuda-emulation.md has the details): memory ordering and
// concurrency between threads (they switch only at barriers and
// collectives; races show only as values that change with the thread
// order), concurrent blocks (a kernel that waits for another block hangs),
// warp-synchronous code without *_sync (there is no implicit lockstep),
// timing and asynchrony (every call completes before it returns), the
// device's libm, dynamic shared memory and dynamic parallelism.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_CUDAEMU_CUDA_H
#define GNNRT_CUDAEMU_CUDA_H

#include "gnnrt/cudaemu/Atomics.h"
#include "gnnrt/cudaemu/Barrier.h"
#include "gnnrt/cudaemu/Intrinsics.h"
#include "gnnrt/cudaemu/Keywords.h"
#include "gnnrt/cudaemu/Launch.h"
#include "gnnrt/cudaemu/RuntimeApi.h"
#include "gnnrt/cudaemu/ThreadIndex.h"
#include "gnnrt/cudaemu/Warp.h"

#endif // GNNRT_CUDAEMU_CUDA_H
