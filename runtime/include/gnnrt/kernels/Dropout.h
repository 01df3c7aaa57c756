//===- Dropout.h - Inverted dropout with counter-based masks ----*- C++ -*-===//
//
// Dropout with counter-based Philox masks on the CPU: the family's CPU kernels,
// declared from its one list gnnrt/kernels/families/Dropout.def (which
// documents each kernel) in gnnrt::kernels, as templates instantiated for float
// and double in lib/kernels/cpu/Dropout.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_DROPOUT_H
#define GNNRT_KERNELS_DROPOUT_H

#include <cstdint>

namespace gnnrt::kernels {

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Dropout.def"
#include "gnnrt/kernels/DeclareKernels.inc"

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_DROPOUT_H
