//===- HoistInvariants.cpp - what every call computes alike ---------------===//
//
// The gnn-hoist-invariants pass (Passes.td). The ops StepInvariance finds
// move to the front of the entry point, so that the target can emit them as
// one section it runs only when its inputs are new; constants, which the
// section reads and which cost nothing, move before them and stay unmarked.
// Only a section that walks the graph is worth its kept buffers: degree
// norms alone are left to be recomputed.
//
//===----------------------------------------------------------------------===//

#include "StepInvariance.h"

#include "gnn/Dialect/GNN/GNNOps.h"
#include "gnn/Dialect/GNN/Passes.h"

namespace gnn {
#define GEN_PASS_DEF_HOISTINVARIANTS
#include "gnn/Dialect/GNN/Passes.h.inc"
} // namespace gnn

using namespace mlir;
using namespace gnn;

namespace {

/// Ops that read a row per edge: what makes a kept value worth keeping.
bool walksGraph(Operation *op) {
  return isa<AggregateOp, HaloAggregateOp, EdgeMapOp, GatherOp, ScatterOp,
             EdgeSoftmaxOp>(op);
}

struct HoistInvariantsPass
    : gnn::impl::HoistInvariantsBase<HoistInvariantsPass> {
  void runOnOperation() override {
    func::FuncOp f = getOperation();
    if (f.isExternal())
      return;
    StepInvariance invariance(f);
    Block &body = f.getBody().front();
    SmallVector<Operation *> constants, invariant;
    bool worthKeeping = false;
    for (Operation &op : body) {
      if (!invariance.isInvariant(&op))
        continue;
      if (isa<ConstantOp>(op)) {
        constants.push_back(&op);
        continue;
      }
      invariant.push_back(&op);
      worthKeeping |= walksGraph(&op);
    }
    if (!worthKeeping)
      return;
    // Program order is kept: an invariant op reads only the arguments,
    // constants and invariant ops before it.
    Operation *last = nullptr;
    for (Operation *op : llvm::concat<Operation *>(constants, invariant)) {
      if (last)
        op->moveAfter(last);
      else
        op->moveBefore(&body.front());
      last = op;
    }
    UnitAttr marker = UnitAttr::get(f.getContext());
    for (Operation *op : invariant)
      op->setAttr(kStepInvariantAttrName, marker);
  }
};

} // namespace
