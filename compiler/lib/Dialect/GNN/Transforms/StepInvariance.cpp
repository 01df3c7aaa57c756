//===- StepInvariance.cpp - values every call of an entry point shares ----===//
//
// See StepInvariance.h. The ops that may carry invariance are listed, not
// inferred from purity: gnn.param is pure but reads the learned weights,
// and gnn.dropout draws a new mask each step.
//
//===----------------------------------------------------------------------===//

#include "StepInvariance.h"

#include "gnn/Dialect/GNN/GNNOps.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace gnn;

namespace {

/// The train block of `f`'s program: on the forward itself, and for a train
/// step (built by gnn-autodiff) on its model's forward.
TrainAttr programTrainAttr(func::FuncOp f) {
  if (f->hasAttr(TrainAttr::getAttrName()))
    return TrainAttr::of(f);
  StringRef name = f.getSymName();
  if (name.consume_back(".train_step"))
    if (auto module = f->getParentOfType<ModuleOp>())
      if (auto forward =
              module.lookupSymbol<func::FuncOp>((name + ".forward").str()))
        return TrainAttr::of(forward);
  return TrainAttr::of(f);
}

/// Ops whose results are a deterministic function of their operands alone
/// and that a target can run ahead of the steps (the Hoistable trait, on the
/// op), and the elementwise ones.
bool isFunctionOfOperands(Operation *op) {
  return op->hasTrait<OpTrait::gnn::Hoistable>() || isFusibleElementwise(op);
}

} // namespace

bool StepInvariance::hasInvariantInputs(func::FuncOp f) {
  TrainAttr train = programTrainAttr(f);
  // Sampled blocks and batches of graphs are new inputs every step.
  return !train.getSampler() && !train.getGraphBatches() &&
         train.getEmbed() == 0 &&
         f.getNumArguments() >= 2;
}

StepInvariance::StepInvariance(func::FuncOp f) {
  if (f.isExternal() || !hasInvariantInputs(f))
    return;
  Block &body = f.getBody().front();
  invariant.insert(body.getArgument(0)); // the graph
  invariant.insert(body.getArgument(1)); // the input features
  for (Operation &op : body) {
    if (!isFunctionOfOperands(&op) || op.getNumResults() == 0)
      continue;
    if (!llvm::all_of(op.getOperands(),
                      [&](Value v) { return invariant.contains(v); }))
      continue;
    for (Value r : op.getResults())
      invariant.insert(r);
  }
}

bool StepInvariance::isInvariant(Operation *op) const {
  return op->getNumResults() > 0 &&
         llvm::all_of(op->getResults(),
                      [&](Value r) { return invariant.contains(r); });
}
