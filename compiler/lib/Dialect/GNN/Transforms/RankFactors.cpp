//===- RankFactors.cpp - a trilinear score's factors for ranking ----------===//
//
// The gnn-rank-factors pass (Passes.td). A knowledge-graph model's filtered
// ranking scores each query's anchor against every entity; when the score
// is sum(a[src] * r[rel] * b[dst], 1) (LinkFactors.h) the trainer computes
// a block of those as one matrix product from a, r and b, which
// `@<Model>.rank_factors` returns. Any link program gets them (a GAE's dot
// product: a = b, the node embeddings that --embeddings writes). Anything
// else (a score that reads the pairs another way, a factor that depends on
// the pairs) adds nothing: the trainer then scores pairs with the forward.
//
//===----------------------------------------------------------------------===//

#include "LinkFactors.h"

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

/// `@<model>.rank_factors`: a copy of `forward` that returns the factors
/// (a, r, b, or a, b) and computes nothing else.
void addRankFactors(func::FuncOp forward, const LinkFactors &factors,
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
      if (std::optional<LinkFactors> factors = matchLinkFactors(forward))
        addRankFactors(
            forward, *factors,
            forward.getSymName().drop_back(StringRef(".forward").size()));
    }
  }
};

} // namespace
