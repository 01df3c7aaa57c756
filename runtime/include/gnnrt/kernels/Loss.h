//===- Loss.h - The training loss and its gradient --------------*- C++ -*-===//
//
// Cross-entropy and its gradient on the CPU: the family's CPU kernels, declared
// from its one list gnnrt/kernels/families/Loss.def (which documents each
// kernel) in gnnrt::kernels, as templates instantiated for float and double in
// lib/kernels/cpu/Loss.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_LOSS_H
#define GNNRT_KERNELS_LOSS_H

#include <cstdint>

namespace gnnrt::kernels {

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Loss.def"
#include "gnnrt/kernels/DeclareKernels.inc"

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_LOSS_H
