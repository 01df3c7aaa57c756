//===- Reorder.cpp - aggregate/transform order by size --------------------===//
//
// The gnn-reorder pass. A linear aggregation A (sum or mean, scalar edge
// weights, self loops) commutes with a right product by W and with a row
// scaling s:  A(x) @ W == A(x @ W)  and  A(s * (x @ W)) == A(s * x) @ W.
// Both orders do the same GEMM on a full graph; the aggregation gathers one
// row per edge, so its cost is proportional to the width it runs at. The
// pass moves every such aggregation to the narrower side of W. On sampled
// blocks a tie (W square) goes to aggregating first: the GEMM then runs on
// the block's destinations only, not on all of its sources (several per
// destination), and the gather moves the same bytes either way.
//
// Widths are read from the parameter's declared dims ("cora.features", "16",
// "2*cora.classes"): literals are exact, dataset dims are exact for a
// `generate(...)` dataset and otherwise the pass options' estimates.
//
// An input that needs no gradient (computed from the features and the
// graph, through dropout or degree norms, reading no parameter: the first
// layer's input, unless `embed` learns the features) changes the count:
// transform first then gathers twice (forward at the output width, and the
// adjoint that brings the gradient back to x @ W for W's gradient), while
// aggregate first gathers once (A(x), whose W gradient is A(x)^T dY). So
// such an aggregation goes first when in <= 2 * out (a square W: one
// 128-wide gather per epoch instead of two; DGL's GraphConv aggregates
// first there too).
//
// With `hoist-invariants`, widths do not decide where the input is the same
// on every step (StepInvariance.h: the features of a full-graph program,
// scaled by degree norms): the aggregation goes first, whatever the widths,
// since gnn-hoist-invariants then computes it once per run and every step
// keeps only the GEMM, whose weight gradient needs no aggregation either.
//
//===----------------------------------------------------------------------===//

#include "StepInvariance.h"

#include "gnn/Dialect/GNN/GNNOps.h"
#include "gnn/Dialect/GNN/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"

namespace gnn {
#define GEN_PASS_DEF_REORDER
#include "gnn/Dialect/GNN/Passes.h.inc"
} // namespace gnn

using namespace mlir;
using namespace gnn;

namespace {

/// Estimated sizes of the symbolic dims a parameter can be declared with.
struct DimEstimates {
  int64_t features, classes;

  /// `text` is a product of terms, each a literal or `<dataset>.features`
  /// / `<dataset>.classes`; anything else is unknown.
  std::optional<int64_t> evaluate(StringRef text) const {
    int64_t value = 1;
    SmallVector<StringRef> terms;
    text.split(terms, '*');
    for (StringRef term : terms) {
      term = term.trim();
      int64_t literal;
      if (!term.getAsInteger(10, literal))
        value *= literal;
      else if (term.ends_with(".features") || term == "features")
        value *= features;
      else if (term.ends_with(".classes") || term == "classes")
        value *= classes;
      else
        return std::nullopt;
    }
    return value;
  }
};

/// In and out widths of `w` when it reads a parameter of known dims.
std::optional<std::pair<int64_t, int64_t>>
weightWidths(Value w, const DimEstimates &estimates) {
  auto read = w.getDefiningOp<ParamOp>();
  if (!read)
    return std::nullopt;
  auto decl = SymbolTable::lookupNearestSymbolFrom<ParameterOp>(
      read, read.getNameAttr());
  if (!decl || decl.getDims().size() != 2)
    return std::nullopt;
  auto in = estimates.evaluate(cast<StringAttr>(decl.getDims()[0]).getValue());
  auto out =
      estimates.evaluate(cast<StringAttr>(decl.getDims()[1]).getValue());
  if (!in || !out)
    return std::nullopt;
  return std::make_pair(*in, *out);
}

/// An aggregation that commutes with a right matrix product: linear in its
/// input, over rank-2 rows, with at most one weight per edge.
bool isLinearAggregation(AggregateOp a) {
  if (a.getReduce() != ReduceKind::sum && a.getReduce() != ReduceKind::mean)
    return false;
  if (cast<RankedTensorType>(a.getInput().getType()).getRank() != 2)
    return false;
  if (Value w = a.getWeight()) {
    auto type = cast<RankedTensorType>(w.getType());
    return type.getRank() == 1 ||
           (type.getRank() == 2 && type.getDimSize(1) == 1);
  }
  return true;
}

/// The values of a forward that no gradient flows into: the graph, the
/// features (unless learned: `embed`), and results of region-free ops that
/// read no parameter and only such values. Anything else (a parameter, a
/// value inside a region) counts as needing one.
class GradientFree {
public:
  explicit GradientFree(func::FuncOp f) {
    if (f.isExternal() || f.getNumArguments() < 2)
      return;
    Block &body = f.getBody().front();
    free.insert(body.getArgument(0));
    if (TrainAttr::of(f).getEmbed() == 0)
      free.insert(body.getArgument(1));
    for (Operation &op : body) {
      if (isa<ParamOp>(op) || op.getNumRegions() > 0)
        continue;
      if (llvm::all_of(op.getOperands(),
                       [&](Value v) { return free.contains(v); }))
        for (Value r : op.getResults())
          free.insert(r);
    }
  }
  bool contains(Value v) const { return free.contains(v); }

private:
  llvm::DenseSet<Value> free;
};

/// Whether aggregating x (rows of width `in`, needing a gradient or not)
/// first, then multiplying by W [in, out], gathers fewer values per epoch
/// than multiplying first: out < in on a full graph goes transform first,
/// unless x needs no gradient (see the file comment).
bool aggregateFirstGathersLess(int64_t in, int64_t out, bool xGradientFree) {
  return xGradientFree ? in <= 2 * out : in < out;
}

/// A matmul that is a plain right product by a weight.
bool isPlainMatmul(MatmulOp m) {
  return !m.getTransposeLhs() && !m.getTransposeRhs();
}

RankedTensorType withCols(Value rowsOf, int64_t cols) {
  auto type = cast<RankedTensorType>(rowsOf.getType());
  return RankedTensorType::get({type.getDimSize(0), cols},
                               type.getElementType());
}

AggregateOp cloneAggregate(OpBuilder &b, AggregateOp a, Value input,
                           Type type) {
  return b.create<AggregateOp>(a.getLoc(), type, a.getGraph(), input,
                               a.getWeight(), a.getReduceAttr(),
                               a.getSelfLoopsAttr());
}

/// A(x) @ W  ->  A(x @ W)  when W narrows the rows, unless A(x) is
/// step-invariant (`invariance`, when hoisting) and so computed once.
bool transformFirst(MatmulOp m, const DimEstimates &estimates,
                    const StepInvariance *invariance,
                    const GradientFree &gradientFree) {
  auto a = m.getLhs().getDefiningOp<AggregateOp>();
  if (!a || !isPlainMatmul(m) || !isLinearAggregation(a) ||
      !a->hasOneUse())
    return false;
  if (invariance && invariance->isInvariant(a.getResult()))
    return false;
  auto widths = weightWidths(m.getRhs(), estimates);
  if (!widths || widths->second >= widths->first ||
      aggregateFirstGathersLess(widths->first, widths->second,
                                gradientFree.contains(a.getInput())))
    return false;
  OpBuilder b(m);
  auto rhsType = cast<RankedTensorType>(m.getRhs().getType());
  Value product = b.create<MatmulOp>(
      m.getLoc(), withCols(a.getInput(), rhsType.getDimSize(1)),
      a.getInput(), m.getRhs(), b.getBoolAttr(false), b.getBoolAttr(false));
  AggregateOp moved = cloneAggregate(b, a, product, m.getType());
  // The result keeps the product's source location: it is the same value.
  moved->setLoc(m.getLoc());
  m.replaceAllUsesWith(moved.getResult());
  m.erase();
  a.erase();
  return true;
}

/// A([s *] (x @ W))  ->  A([s *] x) @ W  when W widens the rows, or, on
/// sampled blocks, keeps their width, or whatever its widths when x (and s)
/// are step-invariant (`invariance`, when hoisting).
bool aggregateFirst(AggregateOp a, const DimEstimates &estimates,
                    bool onBlocks, const StepInvariance *invariance,
                    const GradientFree &gradientFree) {
  if (!isLinearAggregation(a))
    return false;
  Value input = a.getInput();
  MulOp scale = input.getDefiningOp<MulOp>();
  Value rowScale;
  if (scale) {
    if (!scale->hasOneUse())
      return false;
    // One side a [N, 1] row scale, the other the product.
    for (int side = 0; side < 2; ++side) {
      auto s = cast<RankedTensorType>(scale->getOperand(side).getType());
      if (s.getRank() == 2 && s.getDimSize(1) == 1 &&
          scale->getOperand(1 - side).getDefiningOp<MatmulOp>()) {
        rowScale = scale->getOperand(side);
        input = scale->getOperand(1 - side);
        break;
      }
    }
    if (!rowScale)
      return false;
  }
  auto m = input.getDefiningOp<MatmulOp>();
  if (!m || !isPlainMatmul(m) || !m->hasOneUse())
    return false;
  const bool hoisted = invariance && invariance->isInvariant(m.getLhs()) &&
                       (!rowScale || invariance->isInvariant(rowScale));
  auto widths = weightWidths(m.getRhs(), estimates);
  const bool xGradientFree =
      gradientFree.contains(m.getLhs()) &&
      (!rowScale || gradientFree.contains(rowScale));
  const bool fewer =
      widths && (aggregateFirstGathersLess(widths->first, widths->second,
                                           xGradientFree) ||
                 (widths->second == widths->first && onBlocks));
  if (!hoisted && !fewer)
    return false;
  OpBuilder b(a);
  Value x = m.getLhs();
  if (rowScale)
    x = b.create<MulOp>(scale.getLoc(), x.getType(), rowScale, x);
  AggregateOp moved = cloneAggregate(b, a, x, x.getType());
  auto product = b.create<MatmulOp>(m.getLoc(), a.getType(), moved.getResult(),
                                    m.getRhs(), b.getBoolAttr(false),
                                    b.getBoolAttr(false));
  product->setLoc(a.getLoc());
  a.replaceAllUsesWith(product.getResult());
  a.erase();
  if (scale)
    scale.erase();
  m.erase();
  return true;
}

/// Dataset dims a `generate(...)` source fixes, from the forward's train
/// attribute.
void readGeneratedDims(func::FuncOp f, DimEstimates &estimates) {
  if (GeneratorAttr generator = TrainAttr::of(f).getGenerator()) {
    estimates.features = generator.getFeatures();
    estimates.classes = generator.getClasses();
  }
}

struct ReorderPass : gnn::impl::ReorderBase<ReorderPass> {
  using ReorderBase::ReorderBase;

  void runOnOperation() override {
    func::FuncOp f = getOperation();
    DimEstimates estimates{featuresEstimate, classesEstimate};
    readGeneratedDims(f, estimates);
    const bool onBlocks = bool(TrainAttr::of(f).getSampler());
    std::optional<StepInvariance> invariance;
    if (hoistInvariants)
      invariance.emplace(f);
    const StepInvariance *invariant = invariance ? &*invariance : nullptr;
    const GradientFree gradientFree(f);
    // Collect first. A rewrite erases only the op it visits and producers
    // of it, which come earlier in the block and were already visited.
    SmallVector<Operation *> candidates;
    f.walk([&](Operation *op) {
      if (isa<MatmulOp, AggregateOp>(op))
        candidates.push_back(op);
    });
    for (Operation *op : candidates) {
      if (auto m = dyn_cast<MatmulOp>(op))
        transformFirst(m, estimates, invariant, gradientFree);
      else
        aggregateFirst(cast<AggregateOp>(op), estimates, onBlocks, invariant,
                       gradientFree);
    }
  }
};

} // namespace
