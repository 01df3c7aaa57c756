//===- GNNOps.cpp - gnn dialect operations --------------------------------===//
//
// Verifiers, folders and symbol checks of the gnn ops. Type constraints
// (f32, ranks fixed by the op) are enforced by the generated code; what is
// checked here are the relations between shapes: equal feature dims across a
// gather or aggregate, matching contraction dims, numpy broadcasting, axes in
// range. A dynamic dim (`?`) is compatible with any size, because dataset
// sizes are only known when the trainer runs. Messages state the values that
// disagree, since they end up in front of whoever wrote the MLIRGen or pass.
//
//===----------------------------------------------------------------------===//

#include "gnn/Dialect/GNN/GNNOps.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace gnn;

//===----------------------------------------------------------------------===//
// Shape helpers
//===----------------------------------------------------------------------===//

/// The ranked tensor type of `value` (guaranteed by the op's constraints).
static RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Two dims agree unless both are static and differ.
static bool dimsCompatible(int64_t lhs, int64_t rhs) {
  return ShapedType::isDynamic(lhs) || ShapedType::isDynamic(rhs) || lhs == rhs;
}

/// A dim as it appears in a type: its size or `?`.
static std::string formatDim(int64_t dim) {
  return ShapedType::isDynamic(dim) ? "?" : std::to_string(dim);
}

/// A shape as `[?, 16]`.
static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(shape, os, [&](int64_t dim) { os << formatDim(dim); });
  os << ']';
  return os.str();
}

/// The RowMap trait's verifier (gather, scatter, aggregate, dst, halo
/// exchange and aggregate): input (the first tensor operand) and result have
/// the same rank, at least 1, and the same feature dims (all but the first).
LogicalResult gnn::verifyRowMapTrait(Operation *op) {
  RankedTensorType input, result;
  for (Value operand : op->getOperands())
    if ((input = dyn_cast<RankedTensorType>(operand.getType())))
      break;
  if (op->getNumResults() == 1)
    result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!input || !result)
    return success(); // The op's own type constraints report it.
  if (input.getRank() < 1)
    return op->emitOpError("expects an input of rank >= 1, got rank 0");
  if (result.getRank() != input.getRank())
    return op->emitOpError("expects result rank ")
           << result.getRank() << " to match input rank " << input.getRank();
  for (int64_t i = 1, e = input.getRank(); i < e; ++i)
    if (!dimsCompatible(input.getDimSize(i), result.getDimSize(i)))
      return op->emitOpError("expects feature dim ")
             << i << " of the result (" << formatDim(result.getDimSize(i))
             << ") to match the input (" << formatDim(input.getDimSize(i))
             << ")";
  return success();
}

namespace gnn {
/// Shared verifier of the broadcasting elementwise ops (gnn.add, ...): the
/// operand shapes broadcast numpy-style and the result has the broadcast
/// shape. Called from the verify() that GNN_BinaryOp defines.
LogicalResult verifyBroadcastOp(Operation *op) {
  RankedTensorType lhs = tensorType(op->getOperand(0));
  RankedTensorType rhs = tensorType(op->getOperand(1));
  RankedTensorType result = tensorType(op->getResult(0));
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(lhs.getShape(), rhs.getShape(),
                                          shape))
    return op->emitOpError("expects broadcast-compatible operand shapes, got ")
           << formatShape(lhs.getShape()) << " and "
           << formatShape(rhs.getShape());
  if (failed(verifyCompatibleShape(result.getShape(), shape)))
    return op->emitOpError("expects result shape ")
           << formatShape(result.getShape()) << " to match the broadcast shape "
           << formatShape(shape);
  return success();
}

/// Shared check of an `axis` attribute against the rank it indexes.
LogicalResult verifyAxis(Operation *op, uint64_t axis, int64_t rank) {
  if (axis >= static_cast<uint64_t>(rank))
    return op->emitOpError("expects axis ")
           << axis << " to be in [0, " << rank << ")";
  return success();
}
} // namespace gnn

//===----------------------------------------------------------------------===//
// Dialect hooks
//===----------------------------------------------------------------------===//

Operation *GNNDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto floatValue = dyn_cast<FloatAttr>(value);
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!floatValue || !tensor || tensor.getRank() != 0 ||
      !tensor.getElementType().isF32())
    return nullptr;
  return builder.create<ConstantOp>(loc, tensor, floatValue);
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

/// How many numeric arguments an initializer accepts: `constant` needs its
/// value, `uniform` and `normal` take their two bounds/moments or use the
/// defaults, the others are argument-free.
static bool acceptsInitArgCount(InitKind init, size_t count) {
  switch (init) {
  case InitKind::constant:
    return count == 1;
  case InitKind::uniform:
  case InitKind::normal:
    return count == 0 || count == 2;
  default:
    return count == 0;
  }
}

LogicalResult ParameterOp::verify() {
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!type || !type.getElementType().isF32())
    return emitOpError("expects a ranked tensor of f32, got ") << getType();

  ArrayAttr dims = getDims();
  if (static_cast<int64_t>(dims.size()) != type.getRank())
    return emitOpError("expects ")
           << type.getRank() << " dims entries (one per tensor dim), got "
           << dims.size();
  for (auto [i, entry] : llvm::enumerate(dims.getAsValueRange<StringAttr>())) {
    int64_t literal;
    // getAsInteger fails on symbolic sizes such as "cora.features".
    if (entry.getAsInteger(10, literal) || type.isDynamicDim(i))
      continue;
    if (literal != type.getDimSize(i))
      return emitOpError("expects dim ")
             << i << " of size " << type.getDimSize(i)
             << " to match dims entry \"" << entry << "\"";
  }

  size_t argCount = getInitArgs() ? getInitArgs()->size() : 0;
  if (!acceptsInitArgCount(getInit(), argCount))
    return emitOpError("does not accept ")
           << argCount << " init_args for initializer '"
           << stringifyInitKind(getInit()) << "'";
  return success();
}

LogicalResult ParamOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *symbol = symbolTable.lookupNearestSymbolFrom(*this, getNameAttr());
  if (!symbol)
    return emitOpError("references undefined parameter @") << getName();
  auto parameter = dyn_cast<ParameterOp>(symbol);
  if (!parameter)
    return emitOpError("expects @")
           << getName() << " to be a gnn.parameter, got '" << symbol->getName()
           << "'";
  if (failed(verifyCompatibleShape(getType(), parameter.getType())) ||
      getType().getElementType() != parameter.getTensorType().getElementType())
    return emitOpError("result type ")
           << getType() << " is incompatible with parameter type "
           << parameter.getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Graph primitives
//===----------------------------------------------------------------------===//

// The rows each graph op's result has (GraphOpInterface).
GraphRows GatherOp::getResultRows() { return GraphRows::Edges; }
GraphRows ScatterOp::getResultRows() { return GraphRows::DstNodes; }
GraphRows AggregateOp::getResultRows() { return GraphRows::DstNodes; }
GraphRows AggregateRelationsOp::getResultRows() { return GraphRows::DstNodes; }
GraphRows AggregateRelationRowsOp::getResultRows() {
  return GraphRows::DstNodes;
}
GraphRows EdgeSoftmaxOp::getResultRows() { return GraphRows::Edges; }
GraphRows DstOp::getResultRows() { return GraphRows::DstNodes; }
GraphRows HaloExchangeOp::getResultRows() { return GraphRows::SrcNodes; }
GraphRows HaloAggregateOp::getResultRows() { return GraphRows::DstNodes; }
GraphRows NodeTypeOp::getResultRows() { return GraphRows::SrcNodes; }
GraphRows DegreeOp::getResultRows() {
  return getSide() == EdgeSide::src ? GraphRows::SrcNodes : GraphRows::DstNodes;
}

GraphRows ScaledAggregateOp::getResultRows() { return GraphRows::DstNodes; }
GraphRows GatherRelationOp::getResultRows() { return GraphRows::Edges; }

LogicalResult GatherRelationOp::verify() {
  RankedTensorType table = tensorType(getTable()),
                   result = tensorType(getResult());
  if (table.getRank() < 1 || table.getRank() != result.getRank())
    return emitOpError("expects a table [R, F...] and a result "
                       "[E, F...] of its rank, got ranks ")
           << table.getRank() << " -> " << result.getRank();
  for (int64_t i = 1, e = table.getRank(); i < e; ++i)
    if (!dimsCompatible(table.getDimSize(i), result.getDimSize(i)))
      return emitOpError("expects result dim ")
             << i << " (" << formatDim(result.getDimSize(i))
             << ") to match table dim " << i << " ("
             << formatDim(table.getDimSize(i)) << ")";
  return success();
}

LogicalResult ScaledAggregateOp::verify() {
  if (getReduce() != ReduceKind::sum && getReduce() != ReduceKind::mean)
    return emitOpError("supports sum and mean, got ")
           << stringifyReduceKind(getReduce());
  RankedTensorType input = tensorType(getInput()),
                   scale = tensorType(getScale());
  if (scale.getRank() != 2 || !dimsCompatible(scale.getDimSize(1), 1))
    return emitOpError("expects a scale of shape [N, 1], got ")
           << formatShape(scale.getShape());
  if (!dimsCompatible(scale.getDimSize(0), input.getDimSize(0)))
    return emitOpError("expects a scale row per input row, got ")
           << formatDim(scale.getDimSize(0)) << " for "
           << formatDim(input.getDimSize(0));
  return success();
}

LogicalResult HaloAggregateOp::verify() {
  if (getReduce() != ReduceKind::sum && getReduce() != ReduceKind::mean)
    return emitOpError("supports sum and mean, got ")
           << stringifyReduceKind(getReduce());
  return success();
}

LogicalResult AggregateOp::verify() {
  RankedTensorType input = tensorType(getInput());
  if (!getWeight())
    return success();
  // [E] or [E, d1..dk] with d1..dk a prefix of the input's feature dims.
  RankedTensorType weight = tensorType(getWeight());
  if (weight.getRank() < 1 || weight.getRank() > input.getRank())
    return emitOpError("expects weight rank ")
           << weight.getRank() << " to be in [1, " << input.getRank()
           << "] (edges, then a prefix of the input's feature dims)";
  for (int64_t i = 1, e = weight.getRank(); i < e; ++i)
    if (!dimsCompatible(weight.getDimSize(i), input.getDimSize(i)))
      return emitOpError("expects weight dim ")
             << i << " (" << formatDim(weight.getDimSize(i))
             << ") to match input dim " << i << " ("
             << formatDim(input.getDimSize(i)) << ")";
  return success();
}

LogicalResult AggregateRelationsOp::verify() {
  if (getReduce() != ReduceKind::sum && getReduce() != ReduceKind::mean)
    return emitOpError("supports sum and mean, got ")
           << stringifyReduceKind(getReduce());
  RankedTensorType input = tensorType(getInput());
  RankedTensorType weight = tensorType(getWeight());
  RankedTensorType result = tensorType(getResult());
  if (input.getRank() != 2 || weight.getRank() != 3 || result.getRank() != 2)
    return emitOpError("expects input [N, In], weight [R, In, Out] and result "
                       "[N, Out], got ranks ")
           << input.getRank() << ", " << weight.getRank() << " -> "
           << result.getRank();
  if (!dimsCompatible(weight.getDimSize(1), input.getDimSize(1)))
    return emitOpError("expects weight dim 1 (")
           << formatDim(weight.getDimSize(1)) << ") to match the input width ("
           << formatDim(input.getDimSize(1)) << ")";
  if (!dimsCompatible(weight.getDimSize(2), result.getDimSize(1)))
    return emitOpError("expects weight dim 2 (")
           << formatDim(weight.getDimSize(2)) << ") to match the result width ("
           << formatDim(result.getDimSize(1)) << ")";
  return success();
}

LogicalResult AggregateRelationRowsOp::verify() {
  if (getReduce() != ReduceKind::sum && getReduce() != ReduceKind::mean)
    return emitOpError("supports sum and mean, got ")
           << stringifyReduceKind(getReduce());
  RankedTensorType table = tensorType(getTable());
  RankedTensorType result = tensorType(getResult());
  if (table.getRank() != 3 || result.getRank() != 2)
    return emitOpError("expects a table [R, Nodes, Out] and a result [N, Out], "
                       "got ranks ")
           << table.getRank() << " -> " << result.getRank();
  if (!dimsCompatible(table.getDimSize(2), result.getDimSize(1)))
    return emitOpError("expects table dim 2 (")
           << formatDim(table.getDimSize(2)) << ") to match the result width ("
           << formatDim(result.getDimSize(1)) << ")";
  return success();
}

LogicalResult EdgeSoftmaxOp::verify() {
  if (tensorType(getScores()).getRank() < 1)
    return emitOpError("expects edge scores of rank >= 1, got rank 0");
  return success();
}

LogicalResult NodeTypeOp::verify() {
  if (getName().empty())
    return emitOpError("expects a node type name");
  RankedTensorType result = tensorType(getResult());
  if (!dimsCompatible(result.getDimSize(1), 1))
    return emitOpError("expects a column result [N, 1], got ")
           << formatShape(result.getShape());
  return success();
}

LogicalResult DegreeOp::verify() {
  RankedTensorType result = tensorType(getResult());
  if (!dimsCompatible(result.getDimSize(1), 1))
    return emitOpError("expects a column result [N, 1], got ")
           << formatShape(result.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// Dense tensor math
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  RankedTensorType lhs = tensorType(getLhs());
  RankedTensorType rhs = tensorType(getRhs());
  RankedTensorType result = tensorType(getResult());
  if (lhs.getRank() != 2 || rhs.getRank() != 2 || result.getRank() != 2)
    return emitOpError("expects 2-D operands and result, got ranks ")
           << lhs.getRank() << ", " << rhs.getRank() << " -> "
           << result.getRank();
  // [M, K] x [K, N] after the optional transposes.
  int64_t m = lhs.getDimSize(getTransposeLhs() ? 1 : 0);
  int64_t lhsK = lhs.getDimSize(getTransposeLhs() ? 0 : 1);
  int64_t rhsK = rhs.getDimSize(getTransposeRhs() ? 1 : 0);
  int64_t n = rhs.getDimSize(getTransposeRhs() ? 0 : 1);
  if (!dimsCompatible(lhsK, rhsK))
    return emitOpError("expects contraction dims to match, got ")
           << formatDim(lhsK) << " and " << formatDim(rhsK);
  SmallVector<int64_t, 2> expected = {m, n};
  if (failed(verifyCompatibleShape(result.getShape(), expected)))
    return emitOpError("expects result shape ")
           << formatShape(result.getShape()) << " to match "
           << formatShape(expected);
  return success();
}

LogicalResult DropoutOp::verify() {
  double p = getP().convertToDouble();
  if (!(p >= 0.0 && p < 1.0))
    return emitOpError("expects dropout probability p in [0, 1), got ") << p;
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor adaptor) { return getValueAttr(); }

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("expects at least one input");
  RankedTensorType result = tensorType(getResult());
  int64_t rank = result.getRank();
  if (failed(gnn::verifyAxis(*this, getAxis(), rank)))
    return failure();
  auto axis = static_cast<int64_t>(getAxis());

  // The axis dim of the result is the sum of the inputs' when all are known.
  int64_t axisSum = 0;
  for (auto [i, value] : llvm::enumerate(getInputs())) {
    RankedTensorType input = tensorType(value);
    if (input.getRank() != rank)
      return emitOpError("expects input ")
             << i << " of rank " << input.getRank() << " to match result rank "
             << rank;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis)
        continue;
      if (!dimsCompatible(input.getDimSize(d), result.getDimSize(d)))
        return emitOpError("expects dim ")
               << d << " of input " << i << " ("
               << formatDim(input.getDimSize(d)) << ") to match the result ("
               << formatDim(result.getDimSize(d)) << ")";
    }
    if (input.isDynamicDim(axis) || ShapedType::isDynamic(axisSum))
      axisSum = ShapedType::kDynamic;
    else
      axisSum += input.getDimSize(axis);
  }
  if (!dimsCompatible(axisSum, result.getDimSize(axis)))
    return emitOpError("expects result dim ")
           << axis << " (" << formatDim(result.getDimSize(axis))
           << ") to be the sum of the inputs' (" << axisSum << ")";
  return success();
}

/// The shape of the block-diagonal matrices made of `blocks` [R, B, I, O]:
/// [R, B*I, B*O], dynamic where a factor is.
static SmallVector<int64_t, 3> blockDiagonalShape(ArrayRef<int64_t> blocks) {
  auto times = [](int64_t a, int64_t b) {
    return ShapedType::isDynamic(a) || ShapedType::isDynamic(b)
               ? ShapedType::kDynamic
               : a * b;
  };
  return {blocks[0], times(blocks[1], blocks[2]), times(blocks[1], blocks[3])};
}

/// Checks that `matrices` can be the block-diagonal matrices of `blocks`.
static LogicalResult verifyBlockDiagonal(Operation *op,
                                         RankedTensorType matrices,
                                         RankedTensorType blocks) {
  SmallVector<int64_t, 3> expected = blockDiagonalShape(blocks.getShape());
  for (int64_t d = 0; d < 3; ++d)
    if (!dimsCompatible(matrices.getDimSize(d), expected[d]))
      return op->emitOpError("expects matrices ")
             << formatShape(matrices.getShape()) << " to have blocks "
             << formatShape(blocks.getShape()) << " on their diagonal, i.e. "
             << formatShape(expected);
  return success();
}

LogicalResult BlockDiagonalOp::verify() {
  return verifyBlockDiagonal(*this, tensorType(getResult()),
                             tensorType(getInput()));
}

LogicalResult DiagonalBlocksOp::verify() {
  RankedTensorType blocks = tensorType(getBlocks());
  RankedTensorType result = tensorType(getResult());
  for (int64_t d = 0; d < 4; ++d)
    if (!dimsCompatible(result.getDimSize(d), blocks.getDimSize(d)))
      return emitOpError("expects the result ")
             << formatShape(result.getShape()) << " to match the blocks "
             << formatShape(blocks.getShape());
  return verifyBlockDiagonal(*this, tensorType(getInput()), blocks);
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType input = tensorType(getInput());
  RankedTensorType result = tensorType(getResult());
  if (input.hasStaticShape() && result.hasStaticShape() &&
      input.getNumElements() != result.getNumElements())
    return emitOpError("expects input element count ")
           << input.getNumElements() << " to match result element count "
           << result.getNumElements();
  return success();
}

LogicalResult ReduceOp::verify() {
  RankedTensorType input = tensorType(getInput());
  RankedTensorType result = tensorType(getResult());
  if (failed(gnn::verifyAxis(*this, getAxis(), input.getRank())))
    return failure();
  SmallVector<int64_t> expected(input.getShape());
  expected.erase(expected.begin() + getAxis());
  if (result.getRank() != static_cast<int64_t>(expected.size()) ||
      failed(verifyCompatibleShape(result.getShape(), expected)))
    return emitOpError("expects result shape ")
           << formatShape(result.getShape()) << " to be the input shape "
           << formatShape(input.getShape()) << " without axis " << getAxis();
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  int64_t rows = tensorType(getLogits()).getDimSize(0);
  int64_t labels = tensorType(getLabels()).getDimSize(0);
  if (!dimsCompatible(rows, labels))
    return emitOpError("expects ")
           << formatDim(labels) << " labels to match the " << formatDim(rows)
           << " logits rows";
  if (Value mask = getMask()) {
    int64_t maskSize = tensorType(mask).getDimSize(0);
    if (!dimsCompatible(rows, maskSize))
      return emitOpError("expects mask length ")
             << formatDim(maskSize) << " to match the " << formatDim(rows)
             << " logits rows";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Adjoint ops
//===----------------------------------------------------------------------===//

LogicalResult
ParamGradOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto parameter = symbolTable.lookupNearestSymbolFrom<ParameterOp>(
      *this, getNameAttr());
  if (!parameter)
    return emitOpError("references undefined parameter @") << getName();
  if (failed(verifyCompatibleShape(getGrad().getType(), parameter.getType())))
    return emitOpError("gradient type ")
           << getGrad().getType() << " is incompatible with parameter type "
           << parameter.getType();
  return success();
}

LogicalResult UnbroadcastOp::verify() {
  RankedTensorType input = tensorType(getInput());
  RankedTensorType result = tensorType(getResult());
  if (result.getRank() > input.getRank())
    return emitOpError("expects the result rank to be at most the input "
                       "rank, got ")
           << result.getRank() << " > " << input.getRank();
  // Aligned at the trailing dim, each result dim is kept or was 1.
  int64_t offset = input.getRank() - result.getRank();
  for (int64_t i = 0; i < result.getRank(); ++i) {
    int64_t r = result.getDimSize(i), d = input.getDimSize(offset + i);
    if (r != 1 && !dimsCompatible(r, d))
      return emitOpError("result dim ")
             << i << " (" << formatDim(r) << ") is neither 1 nor the input's "
             << formatDim(d);
  }
  return success();
}

LogicalResult UnaryGradOp::verify() {
  bool needsAlpha =
      getKind() == UnaryKind::leaky_relu || getKind() == UnaryKind::elu;
  if (needsAlpha != getAlpha().has_value())
    return emitOpError(needsAlpha ? "expects" : "does not take")
           << " an alpha for '" << stringifyUnaryKind(getKind()) << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// Fused ops
//===----------------------------------------------------------------------===//

bool gnn::isFusibleElementwise(Operation *op) {
  return op->hasTrait<OpTrait::gnn::FusibleElementwise>();
}

/// A fused body: `numArgs` rank-0 block arguments, only fusible elementwise
/// ops on rank-0 values, and a yield of one value per result.
static LogicalResult verifyFusedBody(Operation *op, Region &body,
                                     unsigned numArgs) {
  Block &block = body.front();
  if (block.getNumArguments() != numArgs)
    return op->emitOpError("expects ")
           << numArgs << " body arguments, got " << block.getNumArguments();
  auto scalar = [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && tensor.getRank() == 0 && tensor.getElementType().isF32();
  };
  for (BlockArgument arg : block.getArguments())
    if (!scalar(arg.getType()))
      return op->emitOpError("expects tensor<f32> body arguments, got ")
             << arg.getType();
  for (Operation &inner : block.without_terminator()) {
    if (!isFusibleElementwise(&inner))
      return op->emitOpError("body may only hold elementwise ops, found '")
             << inner.getName() << "'";
    if (!llvm::all_of(inner.getResultTypes(), scalar))
      return op->emitOpError("body ops must produce tensor<f32>");
  }
  auto yield = cast<YieldOp>(block.getTerminator());
  if (yield.getValues().size() != op->getNumResults())
    return op->emitOpError("yields ")
           << yield.getValues().size() << " values for "
           << op->getNumResults() << " results";
  if (op->getNumResults() == 0)
    return op->emitOpError("expects at least one result");
  return success();
}

/// Every result has the type of the first; each operand broadcasts to it
/// numpy-style on the dims from `fromDim` on.
static LogicalResult verifyBroadcastsTo(Operation *op, ValueRange operands,
                                        RankedTensorType result,
                                        int64_t fromDim) {
  for (Type t : op->getResultTypes())
    if (t != result)
      return op->emitOpError("expects all results to have type ")
             << result << ", got " << t;
  ArrayRef<int64_t> out = result.getShape().drop_front(fromDim);
  for (Value v : operands) {
    ArrayRef<int64_t> in = tensorType(v).getShape().drop_front(
        std::min<int64_t>(fromDim, tensorType(v).getRank()));
    SmallVector<int64_t> shape;
    if (in.size() > out.size() ||
        !OpTrait::util::getBroadcastedShape(in, out, shape) ||
        failed(verifyCompatibleShape(shape, out)))
      return op->emitOpError("operand shape ")
             << formatShape(tensorType(v).getShape())
             << " does not broadcast to the result shape "
             << formatShape(result.getShape());
  }
  return success();
}

LogicalResult MapOp::verify() {
  if (failed(verifyFusedBody(*this, getBody(), getInputs().size())))
    return failure();
  return verifyBroadcastsTo(*this, getInputs(),
                            tensorType(getResult(0)), 0);
}

LogicalResult EdgeMapOp::verify() {
  if (failed(verifyFusedBody(*this, getBody(), getInputs().size())))
    return failure();
  if (getSides().size() != getInputs().size())
    return emitOpError("expects one side per input, got ")
           << getSides().size() << " for " << getInputs().size();
  for (Attribute side : getSides()) {
    StringRef s = cast<StringAttr>(side).getValue();
    if (s != "src" && s != "dst" && s != "edge")
      return emitOpError("side must be \"src\", \"dst\" or \"edge\", got \"")
             << s << "\"";
  }
  if (getReduce() && getNumResults() != 1)
    return emitOpError("with a reduction expects one result, got ")
           << getNumResults();
  RankedTensorType result = tensorType(getResult(0));
  if (result.getRank() < 1)
    return emitOpError("expects results of rank >= 1");
  for (Value in : getInputs())
    if (tensorType(in).getRank() < 1)
      return emitOpError("expects inputs of rank >= 1 (rows are nodes or "
                         "edges)");
  return verifyBroadcastsTo(*this, getInputs(), result, 1);
}

LogicalResult MatmulMapOp::verify() {
  if (failed(verifyFusedBody(*this, getBody(),
                             getEpilogueInputs().size() + 1)))
    return failure();
  RankedTensorType lhs = tensorType(getLhs()), rhs = tensorType(getRhs());
  RankedTensorType result = tensorType(getResult(0));
  if (lhs.getRank() != 2 || rhs.getRank() != 2 || result.getRank() != 2)
    return emitOpError("expects 2-D operands and results");
  int64_t lhsK = lhs.getDimSize(getTransposeLhs() ? 0 : 1);
  int64_t rhsK = rhs.getDimSize(getTransposeRhs() ? 1 : 0);
  if (!dimsCompatible(lhsK, rhsK))
    return emitOpError("expects contraction dims to match, got ")
           << formatDim(lhsK) << " and " << formatDim(rhsK);
  SmallVector<int64_t, 2> expected = {
      lhs.getDimSize(getTransposeLhs() ? 1 : 0),
      rhs.getDimSize(getTransposeRhs() ? 0 : 1)};
  if (failed(verifyCompatibleShape(result.getShape(), expected)))
    return emitOpError("expects result shape ")
           << formatShape(result.getShape()) << " to match "
           << formatShape(expected);
  return verifyBroadcastsTo(*this, getEpilogueInputs(), result, 0);
}

#define GET_OP_CLASSES
#include "gnn/Dialect/GNN/GNNOps.cpp.inc"
