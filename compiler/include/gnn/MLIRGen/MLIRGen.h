//===- MLIRGen.h - Typed AST to the gnn dialect -----------------*- C++ -*-===//
//
// MLIRGen turns a checked compilation into a gnn-dialect module: for each
// trained model (each `train` block; without one, each model whose
// parameters all have defaults) a `gnn.parameter` per trainable tensor and a
// `func.func @<Model>.forward(%g: !gnn.graph, %x: tensor<?xFxf32>)`.
// Sub-layers are inlined with their arguments substituted, so every shape
// that is known at compile time is static; dataset sizes stay dynamic.
// Locations point into the .gnn sources, through call sites for inlined
// layers.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_MLIRGEN_MLIRGEN_H
#define GNN_MLIRGEN_MLIRGEN_H

#include "gnn/lang/Frontend.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace gnn::mlirgen {

/// Returns the verified module, or null after printing why (an internal
/// inconsistency: Sema accepted something MLIRGen cannot lower).
mlir::OwningOpRef<mlir::ModuleOp> emitModule(mlir::MLIRContext &context,
                                             lang::Compilation &compilation);

} // namespace gnn::mlirgen

#endif // GNN_MLIRGEN_MLIRGEN_H
