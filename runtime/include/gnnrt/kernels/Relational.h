//===- Relational.h - Relation-batched aggregation (R-GCN) ------*- C++ -*-===//
//
// gnn.aggregate_relations, gnn.aggregate_relation_rows and their adjoints on
// the CPU: the family's CPU kernels, declared from its one list
// gnnrt/kernels/families/Relational.def (which documents each kernel) in
// gnnrt::kernels, as templates instantiated for float and double in
// lib/kernels/cpu/Relational.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_RELATIONAL_H
#define GNNRT_KERNELS_RELATIONAL_H

#include "gnnrt/graph/GraphView.h"
#include "gnnrt/kernels/Types.h"

#include <cstdint>

namespace gnnrt::kernels {

#define GNNRT_KERNEL_FAMILY "gnnrt/kernels/families/Relational.def"
#include "gnnrt/kernels/DeclareKernels.inc"

} // namespace gnnrt::kernels

#endif // GNNRT_KERNELS_RELATIONAL_H
