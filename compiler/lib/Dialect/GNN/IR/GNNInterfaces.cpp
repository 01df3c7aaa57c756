//===- GNNInterfaces.cpp - op interfaces of the gnn dialect ---------------===//
//
// The generated definitions of the interfaces in GNNInterfaces.td. Each op's
// implementation lives with the op: its adjoint in GNNAdjoints.cpp, the rows
// of a graph op's result in GNNOps.cpp, its shape rule in ShapeRules.h.
//
//===----------------------------------------------------------------------===//

#include "gnn/Dialect/GNN/GNNInterfaces.h"

#include "gnn/Dialect/GNN/GNNInterfaces.cpp.inc"
