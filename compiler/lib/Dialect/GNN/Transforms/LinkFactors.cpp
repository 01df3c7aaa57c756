//===- LinkFactors.cpp - A link score as a product of node rows -----------===//
//
// See LinkFactors.h.
//
//===----------------------------------------------------------------------===//

#include "LinkFactors.h"

#include "gnn/Dialect/GNN/GNNOps.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace gnn;

namespace {

/// The leaves of a tree of same-shape products rooted at `v`.
void productLeaves(Value v, SmallVectorImpl<Value> &leaves) {
  auto mul = v.getDefiningOp<MulOp>();
  if (mul && mul.getLhs().getType() == mul.getType() &&
      mul.getRhs().getType() == mul.getType()) {
    productLeaves(mul.getLhs(), leaves);
    productLeaves(mul.getRhs(), leaves);
    return;
  }
  leaves.push_back(v);
}

/// The score the link head of `forward` returns, `sum(..., 1)`.
ReduceOp linkScore(func::FuncOp forward) {
  auto ret = cast<func::ReturnOp>(forward.getBody().front().getTerminator());
  if (ret.getNumOperands() != 1)
    return {};
  auto concat = ret.getOperand(0).getDefiningOp<ConcatOp>();
  if (!concat || concat.getAxis() != 1 || concat.getInputs().size() != 2)
    return {};
  Value scores = concat.getInputs()[1];
  auto zeros = concat.getInputs()[0].getDefiningOp<MulOp>();
  auto zero = zeros ? zeros.getRhs().getDefiningOp<ConstantOp>() : nullptr;
  if (!zero || zeros.getLhs() != scores ||
      zero.getValue().convertToDouble() != 0.0)
    return {};
  if (auto reshape = scores.getDefiningOp<ReshapeOp>())
    scores = reshape.getInput();
  auto reduce = scores.getDefiningOp<ReduceOp>();
  if (!reduce || reduce.getKind() != ReduceKind::sum || reduce.getAxis() != 1 ||
      cast<RankedTensorType>(reduce.getInput().getType()).getRank() != 2)
    return {};
  return reduce;
}

/// Whether `v` is computed from the pairs (then it is no node table).
bool readsPairs(Value v) {
  SmallVector<Value> work = {v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value next = work.pop_back_val();
    if (!seen.insert(next).second)
      continue;
    Operation *def = next.getDefiningOp();
    if (!def)
      continue;
    if (isa<PairsOp>(def))
      return true;
    llvm::append_range(work, def->getOperands());
  }
  return false;
}

} // namespace

std::optional<LinkFactors> gnn::matchLinkFactors(func::FuncOp forward) {
  ReduceOp reduce = linkScore(forward);
  if (!reduce)
    return std::nullopt;
  SmallVector<Value> leaves;
  productLeaves(reduce.getInput(), leaves);
  LinkFactors factors;
  Value pairs;
  auto samePairs = [&](Value graph) {
    if (!graph.getDefiningOp<PairsOp>() || (pairs && pairs != graph))
      return false;
    pairs = graph;
    return true;
  };
  for (Value leaf : leaves) {
    if (auto gather = leaf.getDefiningOp<GatherOp>()) {
      const bool src = gather.getSide() == EdgeSide::src;
      Value &slot = src ? factors.src : factors.dst;
      if (slot || !samePairs(gather.getGraph()))
        return std::nullopt;
      slot = gather.getInput();
      (src ? factors.srcRows : factors.dstRows) = leaf;
      // A rank's pairs read their remote sources through the pairs' own
      // halo (gnn-distribute): the factor is the rows exchanged.
      if (auto halo = slot.getDefiningOp<HaloExchangeOp>();
          halo && halo.getGraph() == gather.getGraph())
        slot = halo.getInput();
      continue;
    }
    auto relation = leaf.getDefiningOp<GatherRelationOp>();
    if (!relation || factors.relation || !samePairs(relation.getGraph()))
      return std::nullopt;
    factors.relation = relation.getTable();
    factors.relationRows = leaf;
  }
  if (!factors.src || !factors.dst)
    return std::nullopt;
  // The products' shapes make the widths agree; a factor must be a table.
  for (Value v : {factors.src, factors.relation, factors.dst})
    if (v && readsPairs(v))
      return std::nullopt;
  return factors;
}
