//===- InferShapes.cpp - refine dynamic dims of gnn results ---------------===//
//
// The gnn-infer-shapes pass. MLIRGen writes `?` for every dim that depends on
// the dataset, and often for dims it could have derived too; later passes
// (reordering by cost, kernel specialization for common widths) work better
// on static dims. This pass walks a function in program order, computes for
// each gnn op the result shape its (already refined) operand types imply, and
// fills in the result's dynamic dims from it. It never changes a static dim
// and never changes a rank.
//
// A value's type can only change where every user accepts the new type. gnn
// ops accept any compatible shape, except the same-type ops (unary ops,
// softmax, dropout, edge_softmax) whose result type must equal their operand
// type; other dialects' users (func.return, calls) require the exact type.
// Values tied by a same-type op therefore form a class that is refined
// together, and a class with any non-gnn user keeps its original types.
//
//===----------------------------------------------------------------------===//

#include "gnn/Dialect/GNN/GNNOps.h"
#include "gnn/Dialect/GNN/Passes.h"

#include "mlir/Dialect/Traits.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <optional>

namespace gnn {
#define GEN_PASS_DEF_INFERSHAPES
#include "gnn/Dialect/GNN/Passes.h.inc"
} // namespace gnn

using namespace mlir;
using namespace gnn;

namespace {
using Shape = SmallVector<int64_t, 4>;

/// Returns the type of a value as refined so far (its IR type if unrefined).
using TypeLookup = llvm::function_ref<RankedTensorType(Value)>;

/// The result shape of a RowMap op (gather, scatter, aggregate, dst, halo
/// exchange and aggregate), whose input is operand 1 (after the graph):
/// the input's feature dims; the row count depends on the graph.
Shape rowMapShape(RankedTensorType input) {
  Shape shape(input.getShape());
  if (!shape.empty())
    shape.front() = ShapedType::kDynamic;
  return shape;
}

/// The result shape of gnn.concat: the first static size among the inputs
/// for each non-axis dim; the sum of the inputs' along the axis.
Shape concatShape(ConcatOp op, TypeLookup typeOf) {
  int64_t rank = typeOf(op.getResult()).getRank();
  auto axis = static_cast<int64_t>(op.getAxis());
  Shape shape(rank, ShapedType::kDynamic);
  int64_t axisSum = 0;
  for (Value input : op.getInputs()) {
    ArrayRef<int64_t> dims = typeOf(input).getShape();
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && ShapedType::isDynamic(shape[d]))
        shape[d] = dims[d];
    if (ShapedType::isDynamic(dims[axis]) || ShapedType::isDynamic(axisSum))
      axisSum = ShapedType::kDynamic;
    else
      axisSum += dims[axis];
  }
  shape[axis] = axisSum;
  return shape;
}

/// The result shape of gnn.reshape: a single dynamic result dim is the
/// element count of a static input divided by the other result dims.
std::optional<Shape> reshapeShape(ReshapeOp op, TypeLookup typeOf) {
  RankedTensorType input = typeOf(op.getInput());
  Shape shape(typeOf(op.getResult()).getShape());
  if (!input.hasStaticShape() ||
      llvm::count_if(shape, ShapedType::isDynamic) != 1)
    return std::nullopt;
  int64_t known = 1;
  for (int64_t dim : shape)
    if (!ShapedType::isDynamic(dim))
      known *= dim;
  if (known == 0 || input.getNumElements() % known != 0)
    return std::nullopt;
  *llvm::find_if(shape, ShapedType::isDynamic) = input.getNumElements() / known;
  return shape;
}

/// The result shape that `op`'s operand types imply, with dynamic dims where
/// they imply nothing; std::nullopt for ops without a rule.
std::optional<Shape> inferResultShape(Operation *op, TypeLookup typeOf) {
  // Row maps keep their input's feature dims; the row count is the graph's.
  if (op->hasTrait<OpTrait::gnn::RowMap>())
    return rowMapShape(typeOf(op->getOperand(1)));
  return llvm::TypeSwitch<Operation *, std::optional<Shape>>(op)
      .Case([&](MatmulOp matmul) -> std::optional<Shape> {
        RankedTensorType lhs = typeOf(matmul.getLhs());
        RankedTensorType rhs = typeOf(matmul.getRhs());
        if (lhs.getRank() != 2 || rhs.getRank() != 2)
          return std::nullopt;
        // [M, K] x [K, N] after the optional transposes (the verifier's rule).
        return Shape{lhs.getDimSize(matmul.getTransposeLhs() ? 1 : 0),
                     rhs.getDimSize(matmul.getTransposeRhs() ? 0 : 1)};
      })
      .Case<AddOp, SubOp, MulOp, DivOp, MaximumOp>(
          [&](auto binary) -> std::optional<Shape> {
            SmallVector<int64_t> shape;
            if (!OpTrait::util::getBroadcastedShape(
                    typeOf(binary.getLhs()).getShape(),
                    typeOf(binary.getRhs()).getShape(), shape))
              return std::nullopt;
            return Shape(shape.begin(), shape.end());
          })
      .Case([&](ConcatOp concat) -> std::optional<Shape> {
        return concatShape(concat, typeOf);
      })
      .Case([&](ReshapeOp reshape) { return reshapeShape(reshape, typeOf); })
      .Case([&](BlockDiagonalOp op) -> std::optional<Shape> {
        // [R, B, I, O] -> [R, B*I, B*O].
        ArrayRef<int64_t> q = typeOf(op.getInput()).getShape();
        auto times = [](int64_t a, int64_t b) {
          return ShapedType::isDynamic(a) || ShapedType::isDynamic(b)
                     ? ShapedType::kDynamic
                     : a * b;
        };
        return Shape{q[0], times(q[1], q[2]), times(q[1], q[3])};
      })
      .Case([&](DiagonalBlocksOp op) -> std::optional<Shape> {
        return Shape(typeOf(op.getBlocks()).getShape());
      })
      .Case([&](ReduceOp reduce) -> std::optional<Shape> {
        Shape shape(typeOf(reduce.getInput()).getShape());
        if (reduce.getAxis() >= shape.size())
          return std::nullopt;
        shape.erase(shape.begin() + reduce.getAxis());
        return shape;
      })
      .Case([&](ParamOp param) -> std::optional<Shape> {
        auto decl = SymbolTable::lookupNearestSymbolFrom<ParameterOp>(
            param, param.getNameAttr());
        if (!decl)
          return std::nullopt;
        return Shape(decl.getTensorType().getShape());
      })
      .Default([](Operation *) { return std::nullopt; });
}

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
  auto typeOf = [&](Value value) {
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
    if (std::optional<Shape> shape = inferResultShape(op, typeOf))
      refined[result] = refine(resultType, *shape);
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
