//===- Passes.h - gnn dialect passes ----------------------------*- C++ -*-===//
//
// Declares the passes that transform the gnn dialect in place
// (createInferShapes(), ...) and registerGNNPasses(), which makes their
// `gnn-*` flags known to gnn-opt and to pass pipelines parsed from text.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNN_PASSES_H
#define GNN_DIALECT_GNN_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace gnn {

#define GEN_PASS_DECL
#include "gnn/Dialect/GNN/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "gnn/Dialect/GNN/Passes.h.inc"

} // namespace gnn

#endif // GNN_DIALECT_GNN_PASSES_H
