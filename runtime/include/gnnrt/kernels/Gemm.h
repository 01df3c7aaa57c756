//===- Gemm.h - Dense matrix products ---------------------------*- C++ -*-===//
//
// Dense matrix products through BLAS on the CPU: the family's CPU kernels,
// declared from its one list gnnrt/kernels/families/Gemm.def (which documents
// each kernel) in gnnrt::kernels, as templates instantiated for float and
// double in lib/kernels/cpu/Gemm.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_GEMM_H
#define GNNRT_KERNELS_GEMM_H

#include <cstdint>
#include <functional>

namespace gnnrt::kernels {

/// Called with a range of rows [r0, r1) of a GEMM's C as soon as they are
/// final, on the thread that computed them: a fused epilogue.
using GemmEpilogue = std::function<void(int64_t r0, int64_t r1)>;

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Gemm.def"
#include "gnnrt/kernels/DeclareKernels.inc"

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_GEMM_H
