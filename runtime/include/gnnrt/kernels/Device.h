//===- Device.h - Which device a kernel runs on -----------------*- C++ -*-===//
//
// A kernel family is declared once, in families/<Family>.def
// (DeclareKernels.inc), and every device that implements it does so with
// the same function names and signatures in its own namespace (as DGL's
// src/array/{cpu,cuda} implement one kernel_decl.h each):
//
//   gnnrt::kernels::NAME        the CPU, over host memory. Always built
//                               (gnnrt_kernels); what generated C++ calls.
//   gnnrt::kernels::cuda::NAME  a CUDA device, over device memory: every
//                               pointer argument, the GraphView's arrays
//                               included, points to device memory.
//                               Declared in gnnrt/kernels/cuda/Kernels.h,
//                               built by nvcc into gnnrt_kernels_cuda when
//                               CUDA is found, and over the emulation layer
//                               into gnnrt_kernels_cuda_emulated for tests
//                               (docs/cuda-emulation.md).
//
// So a caller picks the device where it picks where its tensors live, by
// namespace, with no run-time switch inside the kernels. CUDA kernels run
// on the calling thread's current device, queued on its current stream
// (gnnrt/kernels/cuda/Stream.h; the default stream unless a StreamScope
// says otherwise): a launch error is thrown at once, an error while the
// kernel runs is reported by the next synchronizing CUDA call. Failures of
// the device (no driver, out of memory, a failed launch) throw
// gnnrt::DeviceError; misuse throws what the CPU kernel throws
// (std::invalid_argument).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_DEVICE_H
#define GNNRT_KERNELS_DEVICE_H

namespace gnnrt::kernels::cuda {

/// CUDA devices visible to this process (0 when there is none, or no
/// driver; 1 over the emulation). Only in the CUDA kernel libraries.
int deviceCount();

} // namespace gnnrt::kernels::cuda

#endif // GNNRT_KERNELS_DEVICE_H
