//===- InferShapes.cpp - refine dynamic dims of gnn results ---------------===//
//
// The gnn-infer-shapes pass. MLIRGen writes `?` for every dim that depends on
// the dataset, and often for dims it could have derived too; later passes
// (reordering by cost, kernel specialization for common widths) work better
// on static dims. This pass walks a function in program order, computes for
// each gnn op the result shape its (already refined) operand types imply (the
// op's rule in ShapeRules.h, over static dims), and fills in the result's
// dynamic dims from it. It never changes a static dim and never changes a
// rank.
//
// A value's type can only change where every user accepts the new type. gnn
// ops accept any compatible shape, except the same-type ops (unary ops,
// softmax, dropout, edge_softmax) whose result type must equal their operand
// type; other dialects' users (func.return, calls) require the exact type.
// Values tied by a same-type op therefore form a class that is refined
// together, and a class with any non-gnn user keeps its original types.
//
//===----------------------------------------------------------------------===//

#include "gnn/Dialect/GNN/Passes.h"
#include "gnn/Dialect/GNN/ShapeRules.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace gnn {
#define GEN_PASS_DEF_INFERSHAPES
#include "gnn/Dialect/GNN/Passes.h.inc"
} // namespace gnn

using namespace mlir;
using namespace gnn;

namespace {
using Shape = SmallVector<int64_t, 4>;

/// For a same-type op, the operand whose type the result must equal.
Value tiedOperand(Operation *op) {
  if (auto edgeSoftmax = dyn_cast<EdgeSoftmaxOp>(op))
    return edgeSoftmax.getScores();
  if (op->hasTrait<OpTrait::SameOperandsAndResultType>() &&
      op->getNumOperands() == 1)
    return op->getOperand(0);
  return nullptr;
}

/// `type` with each dynamic dim replaced by the static dim of `inferred` at
/// the same position. Unchanged if the ranks differ.
RankedTensorType refine(RankedTensorType type, ArrayRef<int64_t> inferred) {
  if (type.getRank() != static_cast<int64_t>(inferred.size()))
    return type;
  Shape shape(type.getShape());
  for (auto [dim, known] : llvm::zip(shape, inferred))
    if (ShapedType::isDynamic(dim))
      dim = known;
  return RankedTensorType::get(shape, type.getElementType(),
                               type.getEncoding());
}

struct InferShapesPass : public gnn::impl::InferShapesBase<InferShapesPass> {
  void runOnOperation() override;
};
} // namespace

void InferShapesPass::runOnOperation() {
  Dialect *gnnDialect = getContext().getLoadedDialect<GNNDialect>();
  auto isGNNOp = [&](Operation *op) { return op->getDialect() == gnnDialect; };

  // Refined types in program order, and for every value in a same-type class
  // the class's first value (its leader).
  llvm::MapVector<Value, RankedTensorType> refined;
  DenseMap<Value, Value> leader;
  auto typeOf = [&](Value value) -> RankedTensorType {
    auto it = refined.find(value);
    return it != refined.end() ? it->second
                               : cast<RankedTensorType>(value.getType());
  };
  auto leaderOf = [&](Value value) {
    Value lead = leader.lookup(value);
    return lead ? lead : value;
  };

  getOperation().walk([&](Operation *op) {
    if (!isGNNOp(op) || op->getNumResults() != 1)
      return;
    Value result = op->getResult(0);
    auto resultType = dyn_cast<RankedTensorType>(result.getType());
    if (!resultType)
      return;
    if (Value tied = tiedOperand(op)) {
      leader[result] = leaderOf(tied);
      refined[result] = typeOf(tied);
      return;
    }
    shape::StaticDims domain(op, typeOf);
    FailureOr<std::optional<shape::StaticDims::Dims>> shape =
        shape::resultShape(op, domain);
    if (succeeded(shape) && *shape)
      refined[result] = refine(resultType, **shape);
  });

  // A class keeps its types if any member has a user outside the dialect.
  DenseSet<Value> pinned;
  for (auto &entry : refined)
    if (llvm::any_of(entry.first.getUsers(),
                     [&](Operation *user) { return !isGNNOp(user); }))
      pinned.insert(leaderOf(entry.first));

  for (auto [value, type] : refined)
    if (type != value.getType() && !pinned.contains(leaderOf(value)))
      value.setType(type);
}
