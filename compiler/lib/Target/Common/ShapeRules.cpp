//===- ShapeRules.cpp - the dims of every value as C++ expressions --------===//
//
// The ops' shape rules (gnn/Dialect/GNN/ShapeRules.h, the ones the verifiers
// and gnn-infer-shapes run over static dims) in the domain of C++ dim
// expressions: dataset and graph sizes are named instead of `?`. Graph ops
// count rows from their graph (`g.numDst` rows for an aggregation,
// `g.numEdges` for a gather); products and sums fold their literals
// (SymbolicDims.h). The generated code checks what the rules' equalities
// cannot check here. Where the result type fixes a dim statically, the
// literal wins: it gives better code and checks the rule's rank.
//
//===----------------------------------------------------------------------===//

#include "gnn/Target/Common/Prepare.h"

#include "gnn/Dialect/GNN/ShapeRules.h"
#include "gnn/Target/Common/RuntimeNames.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace gnn;
using namespace gnn::target;

std::string PreparedFunction::numNodes(Value g, EdgeSide side) const {
  // A relation's subgraph has its graph's nodes: name them the same way, so
  // that tensors on both have equal dims.
  while (auto rel = g.getDefiningOp<RelationOp>())
    g = rel.getGraph();
  return (graph(g) + "." +
          (side == EdgeSide::src ? rt::graph::numSrc : rt::graph::numDst))
      .str();
}

namespace {
/// Dims as C++ expressions, read from what `fn` has computed so far.
class ExprDims {
public:
  using Dim = std::string;
  using Dims = target::Dims;

  ExprDims(const PreparedFunction &fn, const ParameterTable &params,
           llvm::function_ref<std::string(Value, EdgeSide)> numNodes)
      : fn(fn), params(params), numNodes(numNodes) {}

  Dims dims(Value v) const { return fn.dims(v); }
  Dim constant(int64_t value) const { return std::to_string(value); }
  Dim rows(Value graph, GraphRows rows) const {
    if (rows == GraphRows::Edges)
      return (fn.graph(graph) + "." + rt::graph::numEdges).str();
    return numNodes(graph, rows == GraphRows::SrcNodes ? EdgeSide::src
                                                       : EdgeSide::dst);
  }
  Dim relations() const { return rt::local::relations.str(); }
  Dim product(ArrayRef<Dim> dims) const { return target::product(dims); }
  Dim sum(ArrayRef<Dim> dims) const { return target::sum(dims); }
  Dim quotient(const Dim &dividend, const Dim &divisor) const {
    return "(" + dividend + " / " + divisor + ")";
  }
  /// A dim no rule gives has no expression: the op is not supported.
  std::optional<Dim> unknown() const { return std::nullopt; }
  std::optional<Dims> broadcast(const Dims &a, const Dims &b) const {
    return broadcastDims(a, b);
  }
  std::optional<Dims> parameter(ParamOp p) const {
    return params.dims.lookup(p.getName());
  }

  // Equalities between expressions are the generated code's to check.
  template <class Explain> bool check(bool holds, Explain &&) const {
    return holds;
  }
  template <class Explain> bool same(const Dim &, const Dim &, Explain &&) {
    return true;
  }
  template <class Explain>
  std::optional<Dim> unify(const Dim &a, const Dim &, Explain &&) const {
    return a;
  }
  template <class ExplainResult>
  FailureOr<Dims> result(Dims shape, ExplainResult &&) const {
    return shape;
  }
  std::string show(const Dim &dim) const { return dim; }
  std::string show(ArrayRef<Dim> dims) const {
    return "[" + llvm::join(dims, ", ") + "]";
  }

private:
  const PreparedFunction &fn;
  const ParameterTable &params;
  llvm::function_ref<std::string(Value, EdgeSide)> numNodes;
};
} // namespace

LogicalResult PreparedFunction::computeDims(Operation *op,
                                            const ParameterTable &params) {
  auto nodes = [&](Value g, EdgeSide side) { return numNodes(g, side); };
  ExprDims domain(*this, params, nodes);
  FailureOr<std::optional<Dims>> computed = shape::resultShape(op, domain);
  if (failed(computed) || !*computed)
    return op->emitOpError("is not supported by the C++ code generator");
  // A dim the type knows statically is a literal: better code, and a check.
  // A fused op's results share the shape.
  for (Value res : op->getResults()) {
    auto type = cast<RankedTensorType>(res.getType());
    if (int64_t((*computed)->size()) != type.getRank())
      return op->emitOpError("internal error: shape rule gives rank ")
             << (*computed)->size() << " for " << type;
    Dims typed = **computed;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (!type.isDynamicDim(i))
        typed[i] = std::to_string(type.getDimSize(i));
    dimsOf[res] = typed;
  }
  return success();
}
