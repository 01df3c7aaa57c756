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
// The rule for each op lives in one function below; an op without a rule is
// an error naming the op, never a silently wrong gradient.
//
//===----------------------------------------------------------------------===//

#include "gnn/Dialect/GNN/GNNOps.h"
#include "gnn/Dialect/GNN/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

namespace gnn {
#define GEN_PASS_DEF_AUTODIFF
#include "gnn/Dialect/GNN/Passes.h.inc"
} // namespace gnn

using namespace mlir;
using namespace gnn;

namespace {

/// The reverse sweep over one function body.
class ReverseSweep {
public:
  ReverseSweep(OpBuilder &builder) : builder(builder) {}

  /// Marks the values that depend on a parameter read.
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

  bool isActive(Value v) const { return activeValues.contains(v); }

  /// Adds `contribution` to the adjoint of `value` (if `value` is active).
  void accumulate(Value value, Value contribution) {
    if (!isActive(value))
      return;
    nameAdjoint(value, contribution);
    auto [it, inserted] = adjoints.try_emplace(value, contribution);
    if (!inserted)
      it->second = builder.create<AddOp>(contribution.getLoc(),
                                         value.getType(), it->second,
                                         contribution);
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

  /// Emits the adjoint of `op`; fails (with a diagnostic) without a rule.
  LogicalResult differentiate(Operation *op);

private:
  /// The contribution of a broadcast result's adjoint to `operand`.
  Value unbroadcast(Value grad, Value operand) {
    if (grad.getType() == operand.getType())
      return grad;
    return builder.create<UnbroadcastOp>(grad.getLoc(), operand.getType(),
                                         grad);
  }

  LogicalResult binary(Operation *op, Value dy);
  LogicalResult matmul(MatmulOp op, Value dy);

  OpBuilder &builder;
  llvm::DenseSet<Value> activeValues;
  llvm::DenseMap<Value, Value> adjoints;
};

LogicalResult ReverseSweep::binary(Operation *op, Value dy) {
  Location loc = op->getLoc();
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Value y = op->getResult(0);
  Type yType = y.getType();
  auto both = [&](Value dl, Value dr) {
    if (dl && isActive(lhs))
      accumulate(lhs, unbroadcast(dl, lhs));
    if (dr && isActive(rhs))
      accumulate(rhs, unbroadcast(dr, rhs));
    return success();
  };
  // Operand adjoints are built lazily: only for active operands.
  auto ifActive = [&](Value operand, auto build) -> Value {
    return isActive(operand) ? build() : Value();
  };
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case<AddOp>([&](auto) { return both(dy, dy); })
      .Case<SubOp>([&](auto) {
        return both(dy, ifActive(rhs, [&] {
                      return builder.create<NegOp>(loc, dy).getResult();
                    }));
      })
      .Case<MulOp>([&](auto) {
        return both(ifActive(lhs,
                             [&] {
                               return builder.create<MulOp>(loc, yType, dy, rhs)
                                   .getResult();
                             }),
                    ifActive(rhs, [&] {
                      return builder.create<MulOp>(loc, yType, dy, lhs)
                          .getResult();
                    }));
      })
      .Case<DivOp>([&](auto) {
        // d(l/r)/dl = 1/r; d(l/r)/dr = -y/r.
        return both(ifActive(lhs,
                             [&] {
                               return builder.create<DivOp>(loc, yType, dy, rhs)
                                   .getResult();
                             }),
                    ifActive(rhs, [&] {
                      Value dyY = builder.create<MulOp>(loc, yType, dy, y);
                      Value q = builder.create<DivOp>(loc, yType, dyY, rhs);
                      return builder.create<NegOp>(loc, q).getResult();
                    }));
      })
      .Case<MaximumOp>([&](auto) {
        auto route = [&](bool rhsSide) {
          return builder
              .create<MaximumGradOp>(loc, yType, dy, lhs, rhs,
                                     builder.getBoolAttr(rhsSide))
              .getResult();
        };
        return both(ifActive(lhs, [&] { return route(false); }),
                    ifActive(rhs, [&] { return route(true); }));
      })
      .Default([](Operation *) { return failure(); });
}

LogicalResult ReverseSweep::matmul(MatmulOp op, Value dy) {
  // With op(X) = X or X^T: C = op(A) op(B), so dop(A) = dC op(B)^T and
  // dop(B) = op(A)^T dC; transposing back where the forward transposed.
  Location loc = op.getLoc();
  Value a = op.getLhs(), b = op.getRhs();
  bool tA = op.getTransposeLhs(), tB = op.getTransposeRhs();
  auto product = [&](Type type, Value l, Value r, bool tl, bool tr) {
    return builder
        .create<MatmulOp>(loc, type, l, r, builder.getBoolAttr(tl),
                          builder.getBoolAttr(tr))
        .getResult();
  };
  if (isActive(a))
    accumulate(a, tA ? product(a.getType(), b, dy, tB, true)
                     : product(a.getType(), dy, b, false, !tB));
  if (isActive(b))
    accumulate(b, tB ? product(b.getType(), dy, a, true, tA)
                     : product(b.getType(), a, dy, !tA, false));
  return success();
}

LogicalResult ReverseSweep::differentiate(Operation *op) {
  if (op->getNumResults() != 1)
    return success(); // Nothing in gnn returns several values.
  Value y = op->getResult(0);
  auto it = adjoints.find(y);
  if (it == adjoints.end())
    return success(); // Inactive, or its value never reaches the loss.
  Value dy = it->second;
  // Adjoints keep the source position but not the variable name: they are
  // named d_<name> by accumulate().
  Location loc = op->getLoc();
  if (auto named = dyn_cast<NameLoc>(loc))
    loc = named.getChildLoc();
  builder.setInsertionPointToEnd(op->getBlock());

  auto same = [&](auto created) { return created.getResult(); };
  auto unaryGrad = [&](StringRef kind, Value x, FloatAttr alpha) {
    // relu's derivative reads the sign, which its output has too (y > 0
    // exactly where x > 0): passing y as the input leaves the
    // pre-activation dead after the forward, so it is never stored.
    Value input = kind == "relu" ? y : x;
    accumulate(x, same(builder.create<UnaryGradOp>(
                      loc, x.getType(), builder.getStringAttr(kind), dy, input,
                      y, alpha)));
    return success();
  };

  LogicalResult handled =
      TypeSwitch<Operation *, LogicalResult>(op)
          .Case<ParamOp>([&](ParamOp p) {
            builder.create<ParamGradOp>(loc, p.getNameAttr(), dy);
            return success();
          })
          .Case<AddOp, SubOp, MulOp, DivOp, MaximumOp>(
              [&](Operation *binaryOp) { return binary(binaryOp, dy); })
          .Case<MatmulOp>([&](MatmulOp m) { return matmul(m, dy); })
          .Case<NegOp>([&](NegOp n) {
            accumulate(n.getInput(), same(builder.create<NegOp>(loc, dy)));
            return success();
          })
          .Case<ExpOp, LogOp, SqrtOp, RsqrtOp, ReluOp, SigmoidOp, TanhOp,
                AbsOp>([&](Operation *u) {
            return unaryGrad(u->getName().stripDialect(), u->getOperand(0),
                             nullptr);
          })
          .Case<LeakyReluOp, EluOp>([&](auto u) {
            return unaryGrad(u->getName().stripDialect(), u.getInput(),
                             u.getAlphaAttr());
          })
          .Case<DropoutOp>([&](DropoutOp d) {
            // The same mask (same stream, same step) applied to the adjoint.
            accumulate(d.getInput(),
                       same(builder.create<DropoutOp>(loc, dy.getType(), dy,
                                                      d.getPAttr(),
                                                      d.getStreamAttr())));
            return success();
          })
          .Case<AggregateOp>([&](AggregateOp a) {
            Value x = a.getInput(), w = a.getWeight();
            if (isActive(x))
              accumulate(x, same(builder.create<AggregateGradOp>(
                                loc, x.getType(), a.getGraph(), dy, x, y, w,
                                a.getReduceAttr(), a.getSelfLoopsAttr())));
            if (w && isActive(w))
              accumulate(w, same(builder.create<AggregateWeightGradOp>(
                                loc, w.getType(), a.getGraph(), dy, x, y, w,
                                a.getReduceAttr(), a.getSelfLoopsAttr())));
            return success();
          })
          .Case<GatherOp>([&](GatherOp g) {
            accumulate(g.getInput(),
                       same(builder.create<GatherGradOp>(
                           loc, g.getInput().getType(), g.getSideAttr(),
                           g.getGraph(), dy)));
            return success();
          })
          .Case<ScatterOp>([&](ScatterOp s) {
            accumulate(s.getInput(),
                       same(builder.create<ScatterGradOp>(
                           loc, s.getInput().getType(), s.getReduceAttr(),
                           s.getGraph(), dy, s.getInput(), y)));
            return success();
          })
          .Case<EdgeSoftmaxOp>([&](EdgeSoftmaxOp s) {
            accumulate(s.getScores(),
                       same(builder.create<EdgeSoftmaxGradOp>(
                           loc, y.getType(), s.getGraph(), dy, y)));
            return success();
          })
          .Case<DstOp>([&](DstOp d) {
            accumulate(d.getInput(),
                       same(builder.create<DstGradOp>(
                           loc, d.getInput().getType(), d.getGraph(), dy)));
            return success();
          })
          .Case<HaloAggregateOp>([&](HaloAggregateOp h) {
            accumulate(h.getInput(),
                       same(builder.create<HaloAggregateGradOp>(
                           loc, h.getInput().getType(), h.getGraph(), dy,
                           h.getReduceAttr(), h.getSelfLoopsAttr(),
                           h.getModeAttr())));
            return success();
          })
          .Case<HaloExchangeOp>([&](HaloExchangeOp h) {
            accumulate(h.getInput(),
                       same(builder.create<HaloExchangeGradOp>(
                           loc, h.getInput().getType(), h.getGraph(), dy)));
            return success();
          })
          .Case<SoftmaxOp>([&](SoftmaxOp s) {
            accumulate(s.getInput(), same(builder.create<SoftmaxGradOp>(
                                         loc, y.getType(), dy, y,
                                         s.getAxisAttr())));
            return success();
          })
          .Case<LogSoftmaxOp>([&](LogSoftmaxOp s) {
            accumulate(s.getInput(), same(builder.create<LogSoftmaxGradOp>(
                                         loc, y.getType(), dy, y,
                                         s.getAxisAttr())));
            return success();
          })
          .Case<ReshapeOp>([&](ReshapeOp r) {
            accumulate(r.getInput(),
                       same(builder.create<ReshapeOp>(
                           loc, r.getInput().getType(), dy)));
            return success();
          })
          .Case<ReduceOp>([&](ReduceOp r) {
            accumulate(r.getInput(),
                       same(builder.create<ReduceGradOp>(
                           loc, r.getInput().getType(), r.getKindAttr(), dy,
                           r.getInput(), y, r.getAxisAttr())));
            return success();
          })
          .Case<ConcatOp>([&](ConcatOp c) -> LogicalResult {
            uint64_t axis = c.getAxis();
            int64_t offset = 0;
            for (Value input : c.getInputs()) {
              auto type = cast<RankedTensorType>(input.getType());
              int64_t size = type.getDimSize(axis);
              if (ShapedType::isDynamic(size))
                return c.emitOpError("cannot be differentiated: the size of "
                                     "concatenated axis ")
                       << axis << " is not known at compile time";
              if (isActive(input))
                accumulate(input, same(builder.create<SliceOp>(
                                      loc, type, dy, c.getAxisAttr(),
                                      builder.getI64IntegerAttr(offset),
                                      builder.getI64IntegerAttr(size))));
              offset += size;
            }
            return success();
          })
          .Case<CrossEntropyOp>([&](CrossEntropyOp c) {
            accumulate(c.getLogits(),
                       same(builder.create<CrossEntropyGradOp>(
                           loc, c.getLogits().getType(), c.getLogits(),
                           c.getLabels(), c.getMask(), dy)));
            return success();
          })
          .Default([](Operation *) { return failure(); });
  if (failed(handled))
    return op->emitOpError("has no differentiation rule");
  return success();
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
  Value loss = builder.create<CrossEntropyOp>(
      NameLoc::get(builder.getStringAttr("loss"), loc), logits,
      step.getArgument(2), step.getArgument(3));

  // The reverse sweep, seeded with d(loss)/d(loss) = 1.
  ReverseSweep sweep(builder);
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
  builder.create<func::ReturnOp>(loc, loss);
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
