//===- GNNDialect.h - gnn dialect declaration -------------------*- C++ -*-===//
//
// Declares the `gnn` dialect class (::gnn::GNNDialect). Include this to
// register the dialect in a context or registry; include GNNOps.h for the ops,
// GNNTypes.h for !gnn.graph and GNNAttrs.h for the enum attributes.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNN_GNNDIALECT_H
#define GNN_DIALECT_GNN_GNNDIALECT_H

#include "mlir/IR/Dialect.h"

#include "gnn/Dialect/GNN/GNNOpsDialect.h.inc"

#endif // GNN_DIALECT_GNN_GNNDIALECT_H
