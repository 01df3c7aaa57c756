//===- StepInvariance.h - values every call of an entry point shares -*- C++ -*-===//
//
// A full-graph program trains on one graph and one feature matrix: every
// train step (and every evaluation) sees the same arguments 0 and 1. A value
// computed from them alone, through deterministic ops that read no
// parameter, no dropout mask and no label, is the same on every call: the
// normalized adjacency applied to the input features (GCN's first layer,
// aggregated first) is one. gnn-reorder aggregates such inputs first and
// gnn-hoist-invariants has the target compute them once.
//
// Not invariant: sampled programs (each step has its own blocks) and
// learned input rows (`embed`: the features are trained).
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNN_TRANSFORMS_STEPINVARIANCE_H
#define GNN_DIALECT_GNN_TRANSFORMS_STEPINVARIANCE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

namespace gnn {

class StepInvariance {
public:
  /// Classifies every value of `f`'s body, in program order.
  explicit StepInvariance(mlir::func::FuncOp f);

  /// True if `v` is the same on every call of the entry point.
  bool isInvariant(mlir::Value v) const { return invariant.contains(v); }
  /// True if `op`'s results are the same on every call.
  bool isInvariant(mlir::Operation *op) const;

  /// True if `f`'s graph and features are the same on every call: a
  /// full-graph program without learned input rows.
  static bool hasInvariantInputs(mlir::func::FuncOp f);

private:
  llvm::DenseSet<mlir::Value> invariant;
};

} // namespace gnn

#endif // GNN_DIALECT_GNN_TRANSFORMS_STEPINVARIANCE_H
