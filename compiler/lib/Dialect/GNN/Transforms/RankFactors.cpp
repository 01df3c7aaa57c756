//===- RankFactors.cpp - a trilinear score's factors for ranking ----------===//
//
// The gnn-rank-factors pass (Passes.td). A knowledge-graph model's filtered
// ranking scores each query's anchor against every entity; when the score
// is sum(a[src] * r[rel] * b[dst], 1) the trainer computes a block of those
// as one matrix product from a, r and b, which `@<Model>.rank_factors`
// returns. Any link program gets them (a GAE's dot product: a = b, the
// node embeddings that --embeddings writes). The match is on the forward
// as MLIRGen's link head leaves it:
//
//   %s = gnn.reduce sum %m axis = 1   (%m a product of the three gathers)
//   %c = gnn.reshape %s               (optional)
//   %z = gnn.mul %c, %zero
//   %l = gnn.concat %z, %c axis = 1
//   return %l
//
// Anything else (a score that reads the pairs another way, a factor that
// depends on the pairs) adds nothing: the trainer then scores pairs with
// the forward.
//
//===----------------------------------------------------------------------===//

#include "gnn/Dialect/GNN/GNNOps.h"
#include "gnn/Dialect/GNN/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace gnn {
#define GEN_PASS_DEF_RANKFACTORS
#include "gnn/Dialect/GNN/Passes.h.inc"
} // namespace gnn

using namespace mlir;
using namespace gnn;

namespace {

/// a, r (null for a dot product) and b of a trilinear score.
struct Factors {
  Value src, relation, dst;
};

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

/// The factors of `forward`'s score, if it is trilinear (or a dot product)
/// over one pairs graph.
std::optional<Factors> matchFactors(func::FuncOp forward) {
  ReduceOp reduce = linkScore(forward);
  if (!reduce)
    return std::nullopt;
  SmallVector<Value> leaves;
  productLeaves(reduce.getInput(), leaves);
  Factors factors;
  Value pairs;
  auto samePairs = [&](Value graph) {
    if (!graph.getDefiningOp<PairsOp>() || (pairs && pairs != graph))
      return false;
    pairs = graph;
    return true;
  };
  for (Value leaf : leaves) {
    if (auto gather = leaf.getDefiningOp<GatherOp>()) {
      Value &slot =
          gather.getSide() == EdgeSide::src ? factors.src : factors.dst;
      if (slot || !samePairs(gather.getGraph()))
        return std::nullopt;
      slot = gather.getInput();
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
  }
  if (!factors.src || !factors.dst)
    return std::nullopt;
  // The products' shapes make the widths agree; a factor must be a table.
  for (Value v : {factors.src, factors.relation, factors.dst})
    if (v && readsPairs(v))
      return std::nullopt;
  return factors;
}

/// `@<model>.rank_factors`: a copy of `forward` that returns the factors
/// (a, r, b, or a, b) and computes nothing else.
void addRankFactors(func::FuncOp forward, const Factors &factors,
                    StringRef model) {
  IRMapping mapping;
  auto fn = cast<func::FuncOp>(forward->clone(mapping));
  fn.setSymName((model + ".rank_factors").str());
  SmallVector<Value> results;
  for (Value v : {factors.src, factors.relation, factors.dst})
    if (v)
      results.push_back(mapping.lookupOrDefault(v));
  Block &body = fn.getBody().front();
  Operation *ret = body.getTerminator();
  OpBuilder builder(ret);
  builder.create<func::ReturnOp>(ret->getLoc(), results);
  ret->erase();
  fn.setType(builder.getFunctionType(fn.getFunctionType().getInputs(),
                                     ValueRange(results).getTypes()));
  // What the factors do not need, until nothing is left unused.
  for (bool erased = true; erased;) {
    erased = false;
    for (Operation &op : llvm::make_early_inc_range(body.without_terminator()))
      if (op.use_empty()) {
        op.erase();
        erased = true;
      }
  }
  forward->getBlock()->getOperations().insertAfter(Block::iterator(forward),
                                                   fn.getOperation());
}

struct RankFactorsPass : gnn::impl::RankFactorsBase<RankFactorsPass> {
  void runOnOperation() override {
    SmallVector<func::FuncOp> forwards;
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (fn.getSymName().endswith(".forward"))
        forwards.push_back(fn);
    for (func::FuncOp forward : forwards) {
      if (std::optional<Factors> factors = matchFactors(forward))
        addRankFactors(
            forward, *factors,
            forward.getSymName().drop_back(StringRef(".forward").size()));
    }
  }
};

} // namespace
