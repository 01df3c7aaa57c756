//===- FuseAggregateScale.cpp - kept A(s * X) without the product ---------===//
//
// The gnn-fuse-aggregate-scale pass (Passes.td). It runs after
// gnn-hoist-invariants and only on what that pass marked: a kept aggregation
// is computed once per run, when the rest of the step's buffers are not yet
// live, so the [N, F] product it reads would set the program's peak memory
// by itself whenever F is much wider than the hidden layer.
//
//===----------------------------------------------------------------------===//

#include "gnn/Dialect/GNN/GNNOps.h"
#include "gnn/Dialect/GNN/Passes.h"

namespace gnn {
#define GEN_PASS_DEF_FUSEAGGREGATESCALE
#include "gnn/Dialect/GNN/Passes.h.inc"
} // namespace gnn

using namespace mlir;
using namespace gnn;

namespace {

/// Whether `v` is a column: one value per row, `[N, 1]`.
bool isColumn(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.getRank() == 2 && type.getDimSize(1) == 1;
}

/// Whether `scale` has a row per row of `input` as far as the types tell:
/// a single row broadcast over many is a different product.
bool sameRows(Value scale, Value input) {
  const int64_t s = cast<RankedTensorType>(scale.getType()).getDimSize(0),
                x = cast<RankedTensorType>(input.getType()).getDimSize(0);
  if (ShapedType::isDynamic(s) || ShapedType::isDynamic(x))
    return s != 1 && x != 1;
  return s == x;
}

/// Replaces `a` = halo_aggregate(g, mul(s, x)) by scaled_aggregate(g, x, s)
/// when both are kept, the product is read by `a` alone, s is a column and
/// x a matrix of as many rows. Returns whether it did.
bool fuse(HaloAggregateOp a) {
  auto mul = a.getInput().getDefiningOp<MulOp>();
  if (!mul || !a->hasAttr(kStepInvariantAttrName) ||
      !mul->hasAttr(kStepInvariantAttrName) || !mul->hasOneUse() ||
      a.getGraph().getDefiningOp<RelationOp>())
    return false;
  Value lhs = mul.getLhs(), rhs = mul.getRhs();
  Value scale = isColumn(lhs) ? lhs : isColumn(rhs) ? rhs : Value();
  Value input = scale == lhs ? rhs : lhs;
  if (!scale || input.getType() != mul.getType() || !sameRows(scale, input))
    return false;
  OpBuilder builder(a);
  auto fused = builder.create<ScaledAggregateOp>(
      a.getLoc(), a.getType(), a.getGraph(), input, scale, a.getReduce(),
      a.getSelfLoops(), a.getMode());
  fused->setAttr(kStepInvariantAttrName, a->getAttr(kStepInvariantAttrName));
  a.replaceAllUsesWith(fused.getResult());
  a.erase();
  mul.erase();
  return true;
}

struct FuseAggregateScalePass
    : gnn::impl::FuseAggregateScaleBase<FuseAggregateScalePass> {
  void runOnOperation() override {
    SmallVector<HaloAggregateOp> candidates;
    getOperation().walk([&](HaloAggregateOp a) { candidates.push_back(a); });
    for (HaloAggregateOp a : candidates)
      (void)fuse(a);
  }
};

} // namespace
