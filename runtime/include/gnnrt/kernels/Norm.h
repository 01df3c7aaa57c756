//===- Norm.h - Batch normalization over the rows ---------------*- C++ -*-===//
//
// Batch normalization on the CPU: the family's CPU kernels, declared from
// its one list gnnrt/kernels/families/Norm.def (which documents each kernel)
// in gnnrt::kernels, as templates instantiated for float and double in
// lib/kernels/cpu/Norm.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_NORM_H
#define GNNRT_KERNELS_NORM_H

#include <cstdint>

namespace gnnrt::kernels {

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Norm.def"
#include "gnnrt/kernels/DeclareKernels.inc"

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_NORM_H
