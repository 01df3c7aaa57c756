//===- Aggregate.h - Message passing: reduce over in-edges ------*- C++ -*-===//
//
// gnn.aggregate and its two adjoints on the CPU: the family's CPU kernels,
// declared from its one list gnnrt/kernels/families/Aggregate.def (which
// documents each kernel) in gnnrt::kernels, as templates instantiated for float
// and double in lib/kernels/cpu/Aggregate.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_AGGREGATE_H
#define GNNRT_KERNELS_AGGREGATE_H

#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/Types.h"

#include <cstdint>

namespace gnnrt::kernels {

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Aggregate.def"
#include "gnnrt/kernels/DeclareKernels.inc"

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_AGGREGATE_H
