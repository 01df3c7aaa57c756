//===- Axis.h - Operations along one axis of a dense tensor -----*- C++ -*-===//
//
// Softmax, reductions, concatenation and slicing along one axis, and the
// adjoint of broadcasting, on the CPU: the family's CPU kernels, declared from
// its one list gnnrt/kernels/families/Axis.def (which documents each kernel) in
// gnnrt::kernels, as templates instantiated for float and double in
// lib/kernels/cpu/Axis.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_AXIS_H
#define GNNRT_KERNELS_AXIS_H

#include "gnnrt/kernels/Types.h"

#include <cstdint>

namespace gnnrt::kernels {

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Axis.def"
#include "gnnrt/kernels/DeclareKernels.inc"

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_AXIS_H
