//===- GNNTypes.h - gnn dialect types ---------------------------*- C++ -*-===//
//
// Declares the gnn dialect's types: ::gnn::GraphType (`!gnn.graph`), an
// opaque handle to a graph or a bipartite message-flow block.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNN_GNNTYPES_H
#define GNN_DIALECT_GNN_GNNTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "gnn/Dialect/GNN/GNNOpsTypes.h.inc"

#endif // GNN_DIALECT_GNN_GNNTYPES_H
