//===- ShapeRules.cpp - the static dim domain and the shape verifier ------===//
//
// The domain in which the verifiers and gnn-infer-shapes run the rules of
// ShapeRules.h: a dim is a size or `?`, which agrees with any size, because
// dataset sizes are only known when the trainer runs. Products and sums are
// `?` where a term is.
//
//===----------------------------------------------------------------------===//

#include "gnn/Dialect/GNN/ShapeRules.h"

#include "mlir/Dialect/Traits.h"

using namespace mlir;
using namespace gnn;
using namespace gnn::shape;

StaticDims::StaticDims(Operation *op) : op(op), reporting(true) {}

StaticDims::StaticDims(Operation *op, TypeLookup typeOf)
    : op(op), typeOf(typeOf), reporting(false) {}

StaticDims::Dims StaticDims::dims(Value v) const {
  auto type = typeOf ? typeOf(v) : cast<RankedTensorType>(v.getType());
  return Dims(type.getShape());
}

StaticDims::Dim StaticDims::product(ArrayRef<Dim> dims) const {
  int64_t p = 1;
  for (Dim d : dims) {
    if (ShapedType::isDynamic(d))
      return ShapedType::kDynamic;
    p *= d;
  }
  return p;
}

StaticDims::Dim StaticDims::sum(ArrayRef<Dim> dims) const {
  int64_t s = 0;
  for (Dim d : dims) {
    if (ShapedType::isDynamic(d))
      return ShapedType::kDynamic;
    s += d;
  }
  return s;
}

StaticDims::Dim StaticDims::quotient(Dim dividend, Dim divisor) const {
  if (ShapedType::isDynamic(dividend) || ShapedType::isDynamic(divisor) ||
      divisor == 0 || dividend % divisor != 0)
    return ShapedType::kDynamic;
  return dividend / divisor;
}

std::optional<StaticDims::Dims> StaticDims::broadcast(const Dims &a,
                                                      const Dims &b) const {
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(a, b, shape))
    return std::nullopt;
  return Dims(shape.begin(), shape.end());
}

std::optional<StaticDims::Dims> StaticDims::parameter(ParamOp param) const {
  // The verifier checks the declaration against the read in
  // verifySymbolUses, where symbols may be looked up.
  if (reporting)
    return dims(param.getResult());
  auto decl = SymbolTable::lookupNearestSymbolFrom<ParameterOp>(
      param, param.getNameAttr());
  if (!decl)
    return std::nullopt;
  return Dims(decl.getTensorType().getShape());
}

std::string StaticDims::show(Dim dim) const {
  return ShapedType::isDynamic(dim) ? "?" : std::to_string(dim);
}

std::string StaticDims::show(ArrayRef<Dim> dims) const {
  std::string text = "[";
  llvm::interleave(
      dims, [&](Dim d) { text += show(d); }, [&] { text += ", "; });
  return text + "]";
}

int64_t StaticDims::mismatch(ArrayRef<Dim> actual, ArrayRef<Dim> expected) {
  if (actual.size() != expected.size())
    return -1;
  for (auto [i, pair] : llvm::enumerate(llvm::zip(actual, expected)))
    if (!compatible(std::get<0>(pair), std::get<1>(pair)))
      return i;
  return kNoMismatch;
}

LogicalResult gnn::shape::verifyResultShape(Operation *op) {
  StaticDims domain(op);
  return success(succeeded(resultShape(op, domain)));
}
