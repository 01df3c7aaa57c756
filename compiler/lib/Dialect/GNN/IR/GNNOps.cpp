//===- GNNOps.cpp - gnn dialect operations --------------------------------===//
//
// Verifiers, folders and symbol checks of the gnn ops. Type constraints
// (f32, ranks fixed by the op) are enforced by the generated code, and each
// op's result shape by its rule in ShapeRules.h (the ResultShapeRule trait);
// what is checked here is the rest: attributes (reductions, axes, dropout
// probabilities), operands the result shape does not depend on (edge
// weights, masks, scales) and fused bodies. A dynamic dim (`?`) is
// compatible with any size, because dataset sizes are only known when the
// trainer runs. Messages state the values that disagree, since they end up in
// front of whoever wrote the MLIRGen or pass.
//
//===----------------------------------------------------------------------===//

#include "gnn/Dialect/GNN/GNNOps.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

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

namespace gnn {
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

/// An aggregation's edge weight: [E] or [E, d1..dk] with d1..dk a prefix
/// of the input's feature dims.
static LogicalResult verifyEdgeWeight(Operation *op, Value inputValue,
                                      Value weightValue) {
  RankedTensorType input = tensorType(inputValue),
                   weight = tensorType(weightValue);
  if (weight.getRank() < 1 || weight.getRank() > input.getRank())
    return op->emitOpError("expects weight rank ")
           << weight.getRank() << " to be in [1, " << input.getRank()
           << "] (edges, then a prefix of the input's feature dims)";
  for (int64_t i = 1, e = weight.getRank(); i < e; ++i)
    if (!dimsCompatible(weight.getDimSize(i), input.getDimSize(i)))
      return op->emitOpError("expects weight dim ")
             << i << " (" << formatDim(weight.getDimSize(i))
             << ") to match input dim " << i << " ("
             << formatDim(input.getDimSize(i)) << ")";
  return success();
}

LogicalResult HaloAggregateOp::verify() {
  if (getReduce() != ReduceKind::sum && getReduce() != ReduceKind::mean)
    return emitOpError("supports sum and mean, got ")
           << stringifyReduceKind(getReduce());
  if (!getWeight())
    return success();
  // Only the ring has the weighted adjoints that fetch rows again.
  if (getMode() != HaloMode::sequential)
    return emitOpError("with a weight expects mode sequential, got ")
           << stringifyHaloMode(getMode());
  return verifyEdgeWeight(*this, getInput(), getWeight());
}

LogicalResult AggregateOp::verify() {
  if (!getWeight())
    return success();
  return verifyEdgeWeight(*this, getInput(), getWeight());
}

LogicalResult AggregateRelationsOp::verify() {
  if (getReduce() != ReduceKind::sum && getReduce() != ReduceKind::mean)
    return emitOpError("supports sum and mean, got ")
           << stringifyReduceKind(getReduce());
  return success();
}

LogicalResult AggregateRelationRowsOp::verify() {
  if (getReduce() != ReduceKind::sum && getReduce() != ReduceKind::mean)
    return emitOpError("supports sum and mean, got ")
           << stringifyReduceKind(getReduce());
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
  return success();
}

//===----------------------------------------------------------------------===//
// Dense tensor math
//===----------------------------------------------------------------------===//

LogicalResult DropoutOp::verify() {
  double p = getP().convertToDouble();
  if (!(p >= 0.0 && p < 1.0))
    return emitOpError("expects dropout probability p in [0, 1), got ") << p;
  return success();
}

LogicalResult BatchNormOp::verify() {
  double eps = getEps().convertToDouble();
  if (!(eps >= 0.0))
    return emitOpError("expects eps >= 0, got ") << eps;
  auto input = tensorType(getInput());
  if (input.getRank() == 0)
    return emitOpError("expects a tensor with rows, got a scalar");
  if (getRunning().size() != 0 && getRunning().size() != 2)
    return emitOpError("expects no running statistics or two (mean, "
                       "variance), got ")
           << getRunning().size();
  if (hasRunningStatistics() != getMomentum().has_value())
    return emitOpError("expects a momentum exactly with running statistics");
  if (getMomentum()) {
    double m = getMomentum()->convertToDouble();
    if (!(m > 0.0 && m <= 1.0))
      return emitOpError("expects momentum in (0, 1], got ") << m;
  }
  for (Value running : getRunning()) {
    auto type = tensorType(running);
    if (type.getRank() != input.getRank() - 1)
      return emitOpError("expects running statistics of rank ")
             << input.getRank() - 1 << " (a row), got " << type;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!dimsCompatible(type.getDimSize(d), input.getDimSize(d + 1)))
        return emitOpError("running statistic ")
               << type << " does not match the columns of " << input;
  }
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor adaptor) { return getValueAttr(); }

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

LogicalResult NormPenaltyOp::verify() {
  const double weight = getWeight().convertToDouble();
  if (!std::isfinite(weight) || weight < 0)
    return emitOpError("expects a finite, non-negative weight, got ") << weight;
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
  // The product's shape is the matmul rule's (ShapeRules.h).
  return verifyBroadcastsTo(*this, getEpilogueInputs(),
                            tensorType(getResult(0)), 0);
}

#define GET_OP_CLASSES
#include "gnn/Dialect/GNN/GNNOps.cpp.inc"
