//===- Edge.h - Per-edge values: gather, scatter, edge softmax --*- C++ -*-===//
//
// The per-edge kernels (gather, scatter, edge softmax, degrees) on the CPU: the
// family's CPU kernels, declared from its one list
// gnnrt/kernels/families/Edge.def (which documents each kernel) in
// gnnrt::kernels, as templates instantiated for float and double in
// lib/kernels/cpu/Edge.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_EDGE_H
#define GNNRT_KERNELS_EDGE_H

#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/Types.h"

#include <cstdint>

namespace gnnrt::kernels {

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Edge.def"
#include "gnnrt/kernels/DeclareKernels.inc"

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_EDGE_H
