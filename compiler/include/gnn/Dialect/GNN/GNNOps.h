//===- GNNOps.h - gnn dialect operations ------------------------*- C++ -*-===//
//
// Declares the gnn dialect's operations (::gnn::AggregateOp, ::gnn::MatmulOp,
// ...). This is the header MLIRGen and the passes include: it pulls in the
// dialect, its types, its enum attributes and its op interfaces.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNN_GNNOPS_H
#define GNN_DIALECT_GNN_GNNOPS_H

#include "gnn/Dialect/GNN/GNNAttrs.h"
#include "gnn/Dialect/GNN/GNNDialect.h"
#include "gnn/Dialect/GNN/GNNInterfaces.h"
#include "gnn/Dialect/GNN/GNNTypes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "gnn/Dialect/GNN/GNNOps.h.inc"

namespace gnn {
/// True for the ops a fused body (gnn.map, gnn.edge_map, gnn.matmul_map) may
/// hold: those with the FusibleElementwise trait (the broadcasting binary
/// ops, the unary activations and their adjoints).
bool isFusibleElementwise(mlir::Operation *op);

/// The unit attribute gnn-hoist-invariants puts on the ops whose results are
/// the same on every call of their entry point: the target computes them on
/// the first call and keeps what later ops read.
inline constexpr llvm::StringLiteral kStepInvariantAttrName =
    "gnn.step_invariant";
} // namespace gnn

#endif // GNN_DIALECT_GNN_GNNOPS_H
