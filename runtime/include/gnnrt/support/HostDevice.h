//===- HostDevice.h - Functions CUDA kernels call too -----------*- C++ -*-===//
//
// GNNRT_HOST_DEVICE marks a header function that device code calls as well
// as host code (the Philox generator behind dropout masks, so that a CPU
// and a GPU run draw the same masks). It is __host__ __device__ under nvcc
// and nothing for a host compiler, the emulated CUDA build included.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SUPPORT_HOSTDEVICE_H
#define GNNRT_SUPPORT_HOSTDEVICE_H

#if defined(__CUDACC__)
#define GNNRT_HOST_DEVICE __host__ __device__
#else
#define GNNRT_HOST_DEVICE
#endif

#endif // GNNRT_SUPPORT_HOSTDEVICE_H
