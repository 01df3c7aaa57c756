//===- Autodiff.cpp - reverse-mode differentiation of gnn functions ------===//
//
// The gnn-autodiff pass. For each `@<Model>.forward` it builds
// `@<Model>.train_step`, one function holding the forward computation, the
// loss and the backward computation, so that fusion and memory planning see
// forward and backward together (a forward value used by the backward simply
// stays live).
//
// Differentiation is the textbook reverse sweep over a single block: every
// value that depends on a parameter ("active") gets an adjoint of exactly its
// own type; the ops are visited in reverse and each adds its contribution to
// its active operands' adjoints (gnn.add when a value has several uses).
// The rule for each op is its DifferentiableOpInterface implementation
// (GNNAdjoints.cpp); an op without one is an error naming the op, never a
// silently wrong gradient.
//
//===----------------------------------------------------------------------===//

#include "LinkFactors.h"

#include "gnn/Dialect/GNN/GNNOps.h"
#include "gnn/Dialect/GNN/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace gnn {
#define GEN_PASS_DEF_AUTODIFF
#include "gnn/Dialect/GNN/Passes.h.inc"
} // namespace gnn

using namespace mlir;
using namespace gnn;

namespace {

/// The reverse sweep over one function body: the adjoints found so far, and
/// the AdjointBuilder each op's rule (GNNAdjoints.cpp) adds to.
class ReverseSweep : public AdjointBuilder {
public:
  ReverseSweep(OpBuilder &builder) : opBuilder(builder) {}

  /// Marks `v` as depending on something trained (a learned input).
  void markActive(Value v) { activeValues.insert(v); }
  /// The adjoint built for `v`, or null if nothing reached it.
  Value adjointOf(Value v) const { return adjoints.lookup(v); }

  /// Marks the values that depend on a parameter read (or an input marked
  /// active).
  void findActiveValues(Block &body) {
    for (Operation &op : body) {
      bool active = isa<ParamOp>(op);
      for (Value operand : op.getOperands())
        active |= activeValues.contains(operand);
      if (active)
        for (Value result : op.getResults())
          activeValues.insert(result);
    }
  }

  OpBuilder &builder() override { return opBuilder; }
  Location loc() const override { return ruleLoc; }
  bool isActive(Value v) const override { return activeValues.contains(v); }

  /// Adds `contribution` to the adjoint of `value` (if `value` is active).
  void accumulate(Value value, Value contribution) override {
    if (!isActive(value))
      return;
    nameAdjoint(value, contribution);
    auto [it, inserted] = adjoints.try_emplace(value, contribution);
    if (!inserted)
      it->second = opBuilder.create<AddOp>(contribution.getLoc(),
                                           value.getType(), it->second,
                                           contribution);
  }

  Value unbroadcast(Value grad, Value operand) override {
    if (grad.getType() == operand.getType())
      return grad;
    return opBuilder.create<UnbroadcastOp>(grad.getLoc(), operand.getType(),
                                           grad);
  }

  /// Names an adjoint `d_<name>` after its primal's source variable.
  static void nameAdjoint(Value primal, Value adjoint) {
    Operation *def = adjoint.getDefiningOp();
    auto named = primal.getDefiningOp()
                     ? dyn_cast<NameLoc>(primal.getDefiningOp()->getLoc())
                     : NameLoc();
    if (!def || !named || isa<NameLoc>(def->getLoc()))
      return;
    def->setLoc(NameLoc::get(
        StringAttr::get(def->getContext(), "d_" + named.getName().str()),
        def->getLoc()));
  }

  void seed(Value value, Value adjoint) { adjoints[value] = adjoint; }

  /// Emits the adjoint of `op` through its DifferentiableOpInterface; fails
  /// (with a diagnostic) for an op without one on the path to the loss.
  LogicalResult differentiate(Operation *op) {
    if (op->getNumResults() != 1)
      return success(); // Nothing in gnn returns several values.
    auto it = adjoints.find(op->getResult(0));
    if (it == adjoints.end())
      return success(); // Inactive, or its value never reaches the loss.
    Value dy = it->second;
    // Adjoints keep the source position but not the variable name: they are
    // named d_<name> by accumulate().
    ruleLoc = op->getLoc();
    if (auto named = dyn_cast<NameLoc>(ruleLoc))
      ruleLoc = named.getChildLoc();
    opBuilder.setInsertionPointToEnd(op->getBlock());
    auto rule = dyn_cast<DifferentiableOpInterface>(op);
    if (!rule)
      return op->emitOpError("has no differentiation rule");
    return rule.buildAdjoint(*this, dy);
  }

private:
  OpBuilder &opBuilder;
  Location ruleLoc = UnknownLoc::get(opBuilder.getContext());
  llvm::DenseSet<Value> activeValues;
  llvm::DenseMap<Value, Value> adjoints;
};

/// `negatives = all` (1vsAll): the logits of each pair's source against
/// every node, (a[src] * r[rel]) b^T, [pairs, nodes], from the factors of
/// the forward's score (LinkFactors.h) as `mapping` cloned them; the
/// trainer's labels are the pairs' destinations. A head query is the tail
/// query of the swapped triple, so the score must read the same rows at
/// both ends (DistMult, a dot product).
FailureOr<Value> oneVsAllLogits(func::FuncOp forward, IRMapping &mapping,
                                OpBuilder &builder) {
  std::optional<LinkFactors> factors = matchLinkFactors(forward);
  if (!factors)
    return forward.emitError(
        "negatives = all needs a score that multiplies node rows, such as "
        "DistMult's sum(gather(p, z, src) * gather(p, r, rel) * gather(p, "
        "z, dst), 1) or a dot product");
  if (factors->src != factors->dst)
    return forward.emitError(
        "negatives = all ranks heads as the tails of swapped triples, so the "
        "score must gather the same rows at src and at dst");
  Location loc = factors->srcRows.getLoc();
  Value query = mapping.lookup(factors->srcRows);
  if (factors->relationRows)
    query = builder.create<MulOp>(loc, query.getType(), query,
                                  mapping.lookup(factors->relationRows));
  Value candidates = mapping.lookup(factors->dst);
  auto rowsOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getDimSize(0);
  };
  auto type = RankedTensorType::get({rowsOf(query), rowsOf(candidates)},
                                    builder.getF32Type());
  return builder
      .create<MatmulOp>(NameLoc::get(builder.getStringAttr("all_logits"), loc),
                        type, query, candidates, builder.getBoolAttr(false),
                        builder.getBoolAttr(true))
      .getResult();
}

/// `penalty = n3(weight)` / `l2(weight)`: `loss` plus the norm penalty of
/// each row the score's factors multiply (LinkFactors.h), a gnn.norm_penalty
/// per factor, as `mapping` cloned them.
FailureOr<Value> addNormPenalties(func::FuncOp forward, IRMapping &mapping,
                                  OpBuilder &builder, LinksAttr links,
                                  Value loss) {
  std::optional<LinkFactors> factors = matchLinkFactors(forward);
  if (!factors)
    return forward.emitError("penalty = ")
           << (links.getPenaltyPower() == 3 ? "n3" : "l2")
           << "(...) penalizes the rows a score multiplies, such as "
              "DistMult's sum(gather(p, z, src) * gather(p, r, rel) * "
              "gather(p, z, dst), 1) or a dot product, but this model's "
              "score is not such a product";
  auto power = builder.getI64IntegerAttr(links.getPenaltyPower());
  auto weight =
      builder.getF64FloatAttr(links.getPenaltyWeight().convertToDouble());
  for (Value rows :
       {factors->srcRows, factors->relationRows, factors->dstRows}) {
    if (!rows)
      continue;
    loss = builder.create<NormPenaltyOp>(
        NameLoc::get(builder.getStringAttr("loss"), loss.getLoc()),
        loss.getType(), loss, mapping.lookup(rows), power, weight);
  }
  return loss;
}

/// Erases the ops of `body` whose results nothing reads (the forward's
/// score and head when 1vsAll logits replace them).
void eraseDeadOps(Block &body) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isOpTriviallyDead(&op))
      op.erase();
}

/// Builds `<model>.train_step` from `<model>.forward`.
LogicalResult buildTrainStep(func::FuncOp forward) {
  StringRef name = forward.getSymName();
  StringRef model = name.drop_back(StringRef(".forward").size());
  FunctionType forwardType = forward.getFunctionType();
  if (forwardType.getNumInputs() != 2 || forwardType.getNumResults() != 1)
    return forward.emitOpError(
        "a model's forward must take (graph, features) and return one value");
  auto logitsType = dyn_cast<RankedTensorType>(forwardType.getResult(0));
  if (!logitsType || logitsType.getRank() != 2)
    return forward.emitOpError("the cross-entropy loss needs [nodes, classes] "
                               "outputs, got ")
           << forwardType.getResult(0);

  MLIRContext *ctx = forward.getContext();
  OpBuilder builder(forward);
  builder.setInsertionPointAfter(forward);
  auto labelsType = RankedTensorType::get({ShapedType::kDynamic},
                                          IntegerType::get(ctx, 64));
  auto maskType = RankedTensorType::get({ShapedType::kDynamic},
                                        IntegerType::get(ctx, 1));
  auto lossType = RankedTensorType::get({}, builder.getF32Type());
  auto step = builder.create<func::FuncOp>(
      forward.getLoc(), (model + ".train_step").str(),
      builder.getFunctionType({forwardType.getInput(0),
                               forwardType.getInput(1), labelsType, maskType},
                              lossType));
  Block *body = step.addEntryBlock();
  // A sampled model's step runs on the same blocks as its forward.
  if (Attribute blocks = forward->getAttr("gnn.blocks"))
    step->setAttr("gnn.blocks", blocks);

  // The forward computation, then the loss.
  IRMapping mapping;
  for (unsigned i = 0; i < 2; ++i)
    mapping.map(forward.getArgument(i), step.getArgument(i));
  builder.setInsertionPointToStart(body);
  Value logits;
  for (Operation &op : forward.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      logits = mapping.lookup(ret.getOperand(0));
      break;
    }
    builder.clone(op, mapping);
  }
  Location loc = forward.getLoc();
  TrainAttr train = TrainAttr::of(forward);
  LinksAttr links = train ? train.getLinks() : LinksAttr();
  const bool oneVsAll = links && links.getOneVsAll();
  if (oneVsAll) {
    FailureOr<Value> all = oneVsAllLogits(forward, mapping, builder);
    if (failed(all))
      return failure();
    logits = *all;
  }
  Value loss = builder.create<CrossEntropyOp>(
      NameLoc::get(builder.getStringAttr("loss"), loc), logits,
      step.getArgument(2), step.getArgument(3));
  if (links && links.getPenaltyPower() != 0 &&
      !links.getPenaltyWeight().isZero()) {
    FailureOr<Value> penalized =
        addNormPenalties(forward, mapping, builder, links, loss);
    if (failed(penalized))
      return failure();
    loss = *penalized;
  }

  // The reverse sweep, seeded with d(loss)/d(loss) = 1. Learned input rows
  // (`embed`) make the features an active value too.
  ReverseSweep sweep(builder);
  const bool learnedInputs = train && train.getEmbed() > 0;
  if (learnedInputs)
    sweep.markActive(step.getArgument(1));
  sweep.findActiveValues(*body);
  if (!sweep.isActive(loss))
    return forward.emitOpError("the loss does not depend on any parameter");
  SmallVector<Operation *> forwardOps;
  for (Operation &op : *body)
    forwardOps.push_back(&op);
  sweep.seed(loss, builder.create<ConstantOp>(loc, 1.0));
  for (Operation *op : llvm::reverse(forwardOps))
    if (failed(sweep.differentiate(op)))
      return failure();
  builder.setInsertionPointToEnd(body);
  if (learnedInputs)
    if (Value dx = sweep.adjointOf(step.getArgument(1)))
      builder.create<InputGradOp>(NameLoc::get(builder.getStringAttr("d_x"), loc),
                                  dx);
  builder.create<func::ReturnOp>(loc, loss);
  if (oneVsAll)
    eraseDeadOps(*body);
  return success();
}

struct AutodiffPass : public gnn::impl::AutodiffBase<AutodiffPass> {
  void runOnOperation() override {
    SmallVector<func::FuncOp> forwards;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func.getSymName().endswith(".forward"))
        forwards.push_back(func);
    for (func::FuncOp forward : forwards)
      if (failed(buildTrainStep(forward)))
        return signalPassFailure();
  }
};

} // namespace
