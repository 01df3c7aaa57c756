//===- GNNAttrs.h - gnn dialect enums and attributes ------------*- C++ -*-===//
//
// Declares the gnn dialect's enums (::gnn::ReduceKind, ::gnn::EdgeSide,
// ::gnn::InitKind, with stringify/symbolize helpers) and the attributes that
// wrap them (ReduceKindAttr, EdgeSideAttr, InitKindAttr).
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNN_GNNATTRS_H
#define GNN_DIALECT_GNN_GNNATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "gnn/Dialect/GNN/GNNEnums.h.inc"
#include "gnn/Dialect/GNN/GNNTrainSettings.h"

#define GET_ATTRDEF_CLASSES
#include "gnn/Dialect/GNN/GNNAttrs.h.inc"

#endif // GNN_DIALECT_GNN_GNNATTRS_H
