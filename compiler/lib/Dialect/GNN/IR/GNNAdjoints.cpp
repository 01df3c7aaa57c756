//===- GNNAdjoints.cpp - the adjoint of every differentiable gnn op -------===//
//
// DifferentiableOpInterface::buildAdjoint for each op, in one place: given
// the adjoint `dy` of the op's result, the contribution to each active
// operand's adjoint. gnn-autodiff walks the forward in reverse and calls
// these; adding an op to the dialect means adding its rule here, and an op
// without one is reported where it blocks a gradient.
//
// The rules use the dedicated *_grad ops of GNNGradOps.td where the adjoint
// is not itself a forward op (the transposed aggregation, edge softmax's
// Jacobian-vector product), so that fusion and the emitters see them whole.
//
//===----------------------------------------------------------------------===//

#include "gnn/Dialect/GNN/GNNOps.h"

using namespace mlir;
using namespace gnn;

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

LogicalResult ParamOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  adjoints.builder().create<ParamGradOp>(adjoints.loc(), getNameAttr(), dy);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// The adjoints of a broadcasting binary op: `dl` and `dr` build the
/// contributions to lhs and rhs (each called only when that side is active),
/// which are then summed back over broadcast dims. Adjoint ops keep the
/// forward op's location, variable name included.
template <typename BuildLhs, typename BuildRhs>
static LogicalResult binaryAdjoint(Operation *op, AdjointBuilder &adjoints,
                                   BuildLhs dl, BuildRhs dr) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  auto both = [&](Value l, Value r) {
    if (l && adjoints.isActive(lhs))
      adjoints.accumulate(lhs, adjoints.unbroadcast(l, lhs));
    if (r && adjoints.isActive(rhs))
      adjoints.accumulate(rhs, adjoints.unbroadcast(r, rhs));
    return success();
  };
  // Operand adjoints are built lazily: only for active operands.
  auto ifActive = [&](Value operand, auto build) -> Value {
    return adjoints.isActive(operand) ? build() : Value();
  };
  return both(ifActive(lhs, dl), ifActive(rhs, dr));
}

LogicalResult AddOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  return binaryAdjoint(
      *this, adjoints, [&] { return dy; }, [&] { return dy; });
}

LogicalResult SubOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  OpBuilder &b = adjoints.builder();
  return binaryAdjoint(
      *this, adjoints, [&] { return dy; },
      [&] { return b.create<NegOp>(getLoc(), dy).getResult(); });
}

LogicalResult MulOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  OpBuilder &b = adjoints.builder();
  Type yType = getType();
  return binaryAdjoint(
      *this, adjoints,
      [&] { return b.create<MulOp>(getLoc(), yType, dy, getRhs()).getResult(); },
      [&] {
        return b.create<MulOp>(getLoc(), yType, dy, getLhs()).getResult();
      });
}

LogicalResult DivOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  // d(l/r)/dl = 1/r; d(l/r)/dr = -y/r.
  OpBuilder &b = adjoints.builder();
  Location loc = getLoc();
  Type yType = getType();
  return binaryAdjoint(
      *this, adjoints,
      [&] { return b.create<DivOp>(loc, yType, dy, getRhs()).getResult(); },
      [&] {
        Value dyY = b.create<MulOp>(loc, yType, dy, getResult());
        Value q = b.create<DivOp>(loc, yType, dyY, getRhs());
        return b.create<NegOp>(loc, q).getResult();
      });
}

LogicalResult MaximumOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  OpBuilder &b = adjoints.builder();
  auto route = [&](bool rhsSide) {
    return b
        .create<MaximumGradOp>(getLoc(), getType(), dy, getLhs(), getRhs(),
                               b.getBoolAttr(rhsSide))
        .getResult();
  };
  return binaryAdjoint(
      *this, adjoints, [&] { return route(false); },
      [&] { return route(true); });
}

LogicalResult NegOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  adjoints.accumulate(getInput(),
                      adjoints.builder().create<NegOp>(adjoints.loc(), dy));
  return success();
}

/// `dx = dy * f'(x)` through gnn.unary_grad. relu's derivative reads the
/// sign, which its output has too (y > 0 exactly where x > 0): passing y as
/// the input leaves the pre-activation dead after the forward, so it is
/// never stored.
static LogicalResult unaryAdjoint(Operation *op, UnaryKind kind,
                                  AdjointBuilder &adjoints, Value dy,
                                  FloatAttr alpha = nullptr) {
  OpBuilder &b = adjoints.builder();
  Value x = op->getOperand(0), y = op->getResult(0);
  Value input = kind == UnaryKind::relu ? y : x;
  adjoints.accumulate(
      x, b.create<UnaryGradOp>(adjoints.loc(), x.getType(),
                               UnaryKindAttr::get(b.getContext(), kind), dy,
                               input, y, alpha));
  return success();
}

#define GNN_UNARY_ADJOINT(Op, kind)                                            \
  LogicalResult Op::buildAdjoint(AdjointBuilder &adjoints, Value dy) {         \
    return unaryAdjoint(*this, UnaryKind::kind, adjoints, dy);                 \
  }
GNN_UNARY_ADJOINT(ExpOp, exp)
GNN_UNARY_ADJOINT(LogOp, log)
GNN_UNARY_ADJOINT(SqrtOp, sqrt)
GNN_UNARY_ADJOINT(RsqrtOp, rsqrt)
GNN_UNARY_ADJOINT(ReluOp, relu)
GNN_UNARY_ADJOINT(SigmoidOp, sigmoid)
GNN_UNARY_ADJOINT(TanhOp, tanh)
GNN_UNARY_ADJOINT(AbsOp, abs)
#undef GNN_UNARY_ADJOINT

LogicalResult LeakyReluOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  return unaryAdjoint(*this, UnaryKind::leaky_relu, adjoints, dy,
                      getAlphaAttr());
}

LogicalResult EluOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  return unaryAdjoint(*this, UnaryKind::elu, adjoints, dy, getAlphaAttr());
}

LogicalResult DropoutOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  // The same mask (same stream, same step) applied to the adjoint.
  adjoints.accumulate(getInput(), adjoints.builder().create<DropoutOp>(
                                      adjoints.loc(), dy.getType(), dy,
                                      getPAttr(), getStreamAttr()));
  return success();
}

//===----------------------------------------------------------------------===//
// Dense math
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  // With op(X) = X or X^T: C = op(A) op(B), so dop(A) = dC op(B)^T and
  // dop(B) = op(A)^T dC; transposing back where the forward transposed.
  OpBuilder &b = adjoints.builder();
  Location loc = getLoc();
  Value a = getLhs(), w = getRhs();
  bool tA = getTransposeLhs(), tB = getTransposeRhs();
  auto product = [&](Type type, Value l, Value r, bool tl, bool tr) {
    return b
        .create<MatmulOp>(loc, type, l, r, b.getBoolAttr(tl),
                          b.getBoolAttr(tr))
        .getResult();
  };
  if (adjoints.isActive(a))
    adjoints.accumulate(a, tA ? product(a.getType(), w, dy, tB, true)
                              : product(a.getType(), dy, w, false, !tB));
  if (adjoints.isActive(w))
    adjoints.accumulate(w, tB ? product(w.getType(), dy, a, true, tA)
                              : product(w.getType(), a, dy, !tA, false));
  return success();
}

LogicalResult SoftmaxOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  adjoints.accumulate(getInput(),
                      adjoints.builder().create<SoftmaxGradOp>(
                          adjoints.loc(), getType(), dy, getResult(),
                          getAxisAttr()));
  return success();
}

LogicalResult LogSoftmaxOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  adjoints.accumulate(getInput(),
                      adjoints.builder().create<LogSoftmaxGradOp>(
                          adjoints.loc(), getType(), dy, getResult(),
                          getAxisAttr()));
  return success();
}

LogicalResult BatchNormOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  OpBuilder &b = adjoints.builder();
  if (adjoints.isActive(getInput()))
    adjoints.accumulate(getInput(), b.create<BatchNormGradOp>(
                                        adjoints.loc(), getType(), dy,
                                        getInput(), getResult(), getEpsAttr()));
  // Running statistics get the step's change of them in their gradient
  // slot (gnn.batch_norm_running), which the trainer adds to them.
  if (hasRunningStatistics()) {
    Value mean = getRunning()[0], variance = getRunning()[1];
    adjoints.accumulate(mean, b.create<BatchNormRunningOp>(
                                  adjoints.loc(), mean.getType(), getInput(),
                                  mean, UnitAttr(), getMomentumAttr()));
    adjoints.accumulate(variance,
                        b.create<BatchNormRunningOp>(
                            adjoints.loc(), variance.getType(), getInput(),
                            variance, b.getUnitAttr(), getMomentumAttr()));
  }
  return success();
}

LogicalResult ReshapeOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  adjoints.accumulate(getInput(), adjoints.builder().create<ReshapeOp>(
                                      adjoints.loc(), getInput().getType(),
                                      dy));
  return success();
}

LogicalResult BlockDiagonalOp::buildAdjoint(AdjointBuilder &adjoints,
                                            Value dy) {
  // Only the diagonal blocks are parameters; the zeros around them are not.
  adjoints.accumulate(
      getInput(), adjoints.builder().create<DiagonalBlocksOp>(
                      adjoints.loc(), getInput().getType(), dy, getInput()));
  return success();
}

LogicalResult ReduceOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  adjoints.accumulate(getInput(), adjoints.builder().create<ReduceGradOp>(
                                      adjoints.loc(), getInput().getType(),
                                      getKindAttr(), dy, getInput(),
                                      getResult(), getAxisAttr()));
  return success();
}

LogicalResult ConcatOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  // Each input's adjoint is its slice of dy, which needs static offsets.
  OpBuilder &b = adjoints.builder();
  uint64_t axis = getAxis();
  int64_t offset = 0;
  for (Value input : getInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    int64_t size = type.getDimSize(axis);
    if (ShapedType::isDynamic(size))
      return emitOpError("cannot be differentiated: the size of "
                         "concatenated axis ")
             << axis << " is not known at compile time";
    if (adjoints.isActive(input))
      adjoints.accumulate(input, b.create<SliceOp>(
                                     adjoints.loc(), type, dy, getAxisAttr(),
                                     b.getI64IntegerAttr(offset),
                                     b.getI64IntegerAttr(size)));
    offset += size;
  }
  return success();
}

LogicalResult CrossEntropyOp::buildAdjoint(AdjointBuilder &adjoints,
                                           Value dy) {
  adjoints.accumulate(getLogits(), adjoints.builder().create<CrossEntropyGradOp>(
                                       adjoints.loc(), getLogits().getType(),
                                       getLogits(), getLabels(), getMask(),
                                       dy));
  return success();
}

LogicalResult NormPenaltyOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  // The loss passes its gradient through; the rows get the penalty's.
  if (adjoints.isActive(getLoss()))
    adjoints.accumulate(getLoss(), dy);
  if (adjoints.isActive(getRows()))
    adjoints.accumulate(getRows(),
                        adjoints.builder().create<NormPenaltyGradOp>(
                            adjoints.loc(), getRows().getType(), getRows(), dy,
                            getPowerAttr(), getWeightAttr()));
  return success();
}

//===----------------------------------------------------------------------===//
// Graph primitives
//===----------------------------------------------------------------------===//

LogicalResult AggregateOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  // The transposed aggregation for the input; per-edge dot products of dy
  // and the source rows for the weights.
  OpBuilder &b = adjoints.builder();
  Value x = getInput(), w = getWeight(), y = getResult();
  if (adjoints.isActive(x))
    adjoints.accumulate(x, b.create<AggregateGradOp>(
                               adjoints.loc(), x.getType(), getGraph(), dy, x,
                               y, w, getReduceAttr(), getSelfLoopsAttr()));
  if (w && adjoints.isActive(w))
    adjoints.accumulate(w, b.create<AggregateWeightGradOp>(
                               adjoints.loc(), w.getType(), getGraph(), dy, x,
                               y, w, getReduceAttr(), getSelfLoopsAttr()));
  return success();
}

LogicalResult AggregateRelationsOp::buildAdjoint(AdjointBuilder &adjoints,
                                                Value dy) {
  // Both adjoints re-reduce from the forward's input and weight: no
  // per-pair rows are kept from the forward.
  OpBuilder &b = adjoints.builder();
  Value x = getInput(), w = getWeight();
  if (adjoints.isActive(x))
    adjoints.accumulate(x, b.create<AggregateRelationsGradOp>(
                               adjoints.loc(), x.getType(), getGraph(), dy, w,
                               getReduceAttr()));
  if (adjoints.isActive(w))
    adjoints.accumulate(w, b.create<AggregateRelationsWeightGradOp>(
                               adjoints.loc(), w.getType(), getGraph(), dy, x,
                               getReduceAttr()));
  return success();
}

LogicalResult AggregateRelationRowsOp::buildAdjoint(AdjointBuilder &adjoints,
                                                   Value dy) {
  Value table = getTable();
  adjoints.accumulate(table, adjoints.builder().create<AggregateRelationRowsGradOp>(
                                 adjoints.loc(), table.getType(), getGraph(),
                                 dy, table, getReduceAttr()));
  return success();
}

LogicalResult GatherOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  adjoints.accumulate(getInput(), adjoints.builder().create<GatherGradOp>(
                                      adjoints.loc(), getInput().getType(),
                                      getSideAttr(), getGraph(), dy));
  return success();
}

LogicalResult GatherRelationOp::buildAdjoint(AdjointBuilder &adjoints,
                                             Value dy) {
  // Scatter-add of each edge's row into its relation's row.
  Value table = getTable();
  adjoints.accumulate(
      table, adjoints.builder().create<GatherRelationGradOp>(
                 adjoints.loc(), table.getType(), getGraph(), dy, table));
  return success();
}

LogicalResult ScatterOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  adjoints.accumulate(getInput(), adjoints.builder().create<ScatterGradOp>(
                                      adjoints.loc(), getInput().getType(),
                                      getReduceAttr(), getGraph(), dy,
                                      getInput(), getResult()));
  return success();
}

LogicalResult EdgeSoftmaxOp::buildAdjoint(AdjointBuilder &adjoints,
                                          Value dy) {
  adjoints.accumulate(getScores(), adjoints.builder().create<EdgeSoftmaxGradOp>(
                                       adjoints.loc(), getType(), getGraph(),
                                       dy, getResult()));
  return success();
}

LogicalResult DstOp::buildAdjoint(AdjointBuilder &adjoints, Value dy) {
  // The destinations' rows padded back to all sources with zeros.
  adjoints.accumulate(getInput(), adjoints.builder().create<DstGradOp>(
                                      adjoints.loc(), getInput().getType(),
                                      getGraph(), dy));
  return success();
}

LogicalResult HaloExchangeOp::buildAdjoint(AdjointBuilder &adjoints,
                                           Value dy) {
  // Halo rows' gradients go back to their owners and are added there.
  adjoints.accumulate(getInput(), adjoints.builder().create<HaloExchangeGradOp>(
                                      adjoints.loc(), getInput().getType(),
                                      getGraph(), dy));
  return success();
}

LogicalResult HaloAggregateOp::buildAdjoint(AdjointBuilder &adjoints,
                                            Value dy) {
  // A weighted one's weight gradient reads the sources' rows: it fetches
  // the remote ones again (the forward kept none).
  OpBuilder &b = adjoints.builder();
  Value x = getInput(), w = getWeight();
  if (adjoints.isActive(x))
    adjoints.accumulate(
        x, b.create<HaloAggregateGradOp>(adjoints.loc(), x.getType(),
                                         getGraph(), dy, w, getReduceAttr(),
                                         getSelfLoopsAttr(), getModeAttr()));
  if (w && adjoints.isActive(w))
    adjoints.accumulate(w, b.create<HaloAggregateWeightGradOp>(
                               adjoints.loc(), w.getType(), getGraph(), dy, x,
                               w, getReduceAttr(), getSelfLoopsAttr(),
                               getModeAttr()));
  return success();
}
