//===- SemaBuiltins.cpp - Result types of the forward builtins ------------===//
//
// The result-type rule of each builtin of BuiltinOps.def, one method per
// rule over the symbolic shapes of its bound arguments (Sema has checked
// each argument's kind). `resultType` dispatches on the BuiltinOp, family by
// family; the elementwise builtins keep their operand's type.
// test/Tools/op-recipe.test checks that every other builtin has its case.
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

using namespace gnn::lang;

namespace {

/// One call of a forward builtin being typed: its bound arguments, their
/// types, and the rules.
class BuiltinTyping {
public:
  BuiltinTyping(Sema &sema, CallExpr *expr, const Builtin &builtin,
                BuiltinCall &call, const std::vector<Type> &types, Scope &scope)
      : sema(sema), expr(expr), builtin(builtin), call(call), types(types),
        scope(scope), name(builtin.name) {}

  Type resultType() {
    switch (builtinFamily(builtin.op)) {
    case BuiltinFamily::Graph:
      return graphRule();
    case BuiltinFamily::Elementwise:
      return elementwiseRule();
    case BuiltinFamily::Axis:
      return axisRule();
    case BuiltinFamily::Structural:
      return structuralRule();
    case BuiltinFamily::None:
      break;
    }
    return elementwise();
  }

private:
  Type graphRule() {
    switch (builtin.op) {
    case BuiltinOp::Aggregate:
      return aggregate();
    case BuiltinOp::AggregateRelations:
      return aggregateRelations();
    case BuiltinOp::AggregateRelationRows:
      return aggregateRelationRows();
    case BuiltinOp::Gather:
      return gather();
    case BuiltinOp::Scatter:
    case BuiltinOp::EdgeSoftmax:
      return edgeRows();
    case BuiltinOp::Degree:
      return degree();
    case BuiltinOp::Dst:
      return dst();
    case BuiltinOp::NodeType:
      return nodeType();
    case BuiltinOp::Relation:
      return relation();
    case BuiltinOp::Readout:
      return readout();
    case BuiltinOp::Pairs:
      return pairs();
    default:
      return elementwise();
    }
  }

  Type elementwiseRule() {
    if (builtin.op == BuiltinOp::Dropout && call.args[1] &&
        !dropoutProbability())
      return Type::error();
    return elementwise();
  }

  Type axisRule() {
    switch (builtin.op) {
    case BuiltinOp::Softmax:
    case BuiltinOp::LogSoftmax:
      return normalize();
    case BuiltinOp::Sum:
    case BuiltinOp::Mean:
    case BuiltinOp::Max:
      return reduce();
    case BuiltinOp::BatchNorm:
      return batchNorm();
    default:
      return elementwise();
    }
  }

  Type structuralRule() {
    switch (builtin.op) {
    case BuiltinOp::Concat:
      return concat();
    case BuiltinOp::Reshape:
      return reshape();
    case BuiltinOp::BlockDiagonal:
      return blockDiagonal();
    default:
      return elementwise();
    }
  }

  // Helpers shared by the rules.
  const GraphShape &graphOf(size_t i) const { return *types[i].graph; }
  SourceLoc argLoc(size_t i) const { return call.args[i]->loc; }
  std::string sideOf(size_t i, const char *dflt) const {
    auto *n = call.args[i] ? dyn_cast<NameExpr>(call.args[i]) : nullptr;
    return n ? n->name : std::string(dflt);
  }
  bool needRows(size_t i) {
    if (types[i].isTensor() && types[i].rank() >= 1)
      return true;
    const bool edges = builtin.op == BuiltinOp::Scatter ||
                       builtin.op == BuiltinOp::EdgeSoftmax;
    sema.diags.error(argLoc(i), std::string("'") + builtin.params[i].name +
                                    "' of '" + name +
                                    "' must be a tensor with one row per " +
                                    (edges ? "edge" : "node") + ", got " +
                                    sema.show(types[i], scope));
    return false;
  }
  static Type withRows(const Type &t, const Dim &rows) {
    Type r = Type::tensor(t.shape);
    r.shape[0] = rows;
    return r;
  }
  std::optional<int64_t> axisOf(size_t i, int64_t rank, int64_t dflt) {
    int64_t axis = dflt;
    if (call.args[i]) {
      const Type &t = types[i];
      if (!t.intValue || !t.intValue->isConstant()) {
        sema.diags.error(argLoc(i), "axis must be an integer constant");
        return std::nullopt;
      }
      axis = t.intValue->constantValue();
    }
    if (axis < -rank || axis >= rank) {
      sema.diags.error(call.args[i] ? argLoc(i) : expr->loc,
                       "axis " + std::to_string(axis) +
                           " is out of range for a rank-" +
                           std::to_string(rank) + " tensor");
      return std::nullopt;
    }
    return axis < 0 ? axis + rank : axis;
  }
  /// The relation-batched primitives reduce linearly: a max or min written
  /// out is an error here, a layer's `reduce` parameter where it is bound
  /// (MLIRGen).
  bool linearReduce(size_t i) {
    std::string reduce = sideOf(i, "sum");
    if (reduce != "max" && reduce != "min")
      return true;
    sema.diags.error(argLoc(i),
                     "'" + name + "' supports sum and mean, not " + reduce);
    return false;
  }
  /// Elementwise functions keep their operand's type.
  Type elementwise() const {
    Type t = types[0];
    if (!t.isTensor())
      t = Type::tensor({});
    t.intValue.reset();
    t.floatValue.reset();
    return t;
  }

  // The rules.
  Type aggregate() {
    if (!needRows(1))
      return Type::error();
    const GraphShape &g = graphOf(0);
    sema.unifyOrError(types[1].shape[0], g.src, argLoc(1),
                      "row count of the aggregated tensor", scope);
    if (call.args[3]) {
      const Type &w = types[3];
      if (!w.isTensor() || w.rank() < 1 || w.rank() > types[1].rank()) {
        sema.diags.error(argLoc(3),
                         "'weight' of 'aggregate' must be [edges] or "
                         "[edges, ...] matching the features, got " +
                             sema.show(w, scope));
        return Type::error();
      }
      sema.unifyOrError(w.shape[0], g.edges, argLoc(3),
                        "row count of the edge weight", scope);
      for (size_t d = 1; d < w.rank(); ++d)
        if (!(w.shape[d].isConstant() && w.shape[d].constantValue() == 1))
          sema.unifyOrError(
              w.shape[d], types[1].shape[d], argLoc(3),
              "dimension " + std::to_string(d) + " of the edge weight", scope);
    }
    return withRows(types[1], g.dst);
  }

  Type aggregateRelationRows() {
    const Type &w = types[1];
    if (!w.isTensor() || w.rank() != 3) {
      sema.diags.error(argLoc(1),
                       "'w' of 'aggregate_relation_rows' must be one "
                       "table per relation, [relations, nodes, out], "
                       "got " +
                           sema.show(w, scope));
      return Type::error();
    }
    if (!linearReduce(2))
      return Type::error();
    return Type::tensor({graphOf(0).dst, w.shape[2]});
  }

  Type aggregateRelations() {
    if (!needRows(1))
      return Type::error();
    const Type &x = types[1], &w = types[2];
    if (x.rank() != 2) {
      sema.diags.error(argLoc(1),
                       "'x' of 'aggregate_relations' must be [g.src, "
                       "in], got " +
                           sema.show(x, scope));
      return Type::error();
    }
    if (!w.isTensor() || w.rank() != 3) {
      sema.diags.error(argLoc(2),
                       "'w' of 'aggregate_relations' must be one matrix "
                       "per relation, [relations, in, out], got " +
                           sema.show(w, scope));
      return Type::error();
    }
    if (!linearReduce(3))
      return Type::error();
    const GraphShape &g = graphOf(0);
    sema.unifyOrError(x.shape[0], g.src, argLoc(1),
                      "row count of the aggregated tensor", scope);
    sema.unifyOrError(w.shape[1], x.shape[1], argLoc(2),
                      "input width of the relation matrices", scope);
    return Type::tensor({g.dst, w.shape[2]});
  }

  Type gather() {
    if (!needRows(1))
      return Type::error();
    const GraphShape &g = graphOf(0);
    if (sideOf(2, "src") == kRelationSide)
      return gatherRelation(g);
    bool fromSrc = sideOf(2, "src") == "src";
    sema.unifyOrError(types[1].shape[0], fromSrc ? g.src : g.dst, argLoc(1),
                      std::string("row count of the gathered tensor (") +
                          (fromSrc ? "source" : "destination") + " nodes)",
                      scope);
    return withRows(types[1], g.edges);
  }

  /// gather(p, r, rel): the row of r for each pair's relation. Only the
  /// pairs of a link-prediction step carry relations (a kg(...) dataset's,
  /// which the train block checks), and r has a row per relation: a tensor
  /// with a row per node, edge or pair is a mistake for src or dst.
  Type gatherRelation(const GraphShape &g) {
    if (g.name.rfind("pairs(", 0) != 0) {
      sema.diags.error(argLoc(2),
                       "gather(..., rel) reads each pair's relation, so its "
                       "graph must be pairs(g) (a knowledge graph's pairs), "
                       "not '" +
                           g.name + "'");
      return Type::error();
    }
    const Type &table = types[1];
    const Dim rows = scope.unifier.resolve(table.shape[0]);
    auto same = [&](const Dim &d) { return rows == scope.unifier.resolve(d); };
    const char *what = same(g.src) || same(g.dst) ? "a row per node"
                       : same(g.edges)            ? "a row per pair"
                                                  : nullptr;
    if (what) {
      sema.diags.error(argLoc(1),
                       "'x' of gather(..., rel) must be a table with a row "
                       "per relation, [relations, F], got " +
                           sema.show(table, scope) + " (" + what +
                           ": gather node rows with src or dst)");
      return Type::error();
    }
    return withRows(table, g.edges);
  }

  /// scatter: edge rows onto destinations; edge_softmax: edge rows kept.
  Type edgeRows() {
    if (!needRows(1))
      return Type::error();
    const GraphShape &g = graphOf(0);
    sema.unifyOrError(types[1].shape[0], g.edges, argLoc(1),
                      "row count of the edge tensor", scope);
    return builtin.op == BuiltinOp::Scatter ? withRows(types[1], g.dst)
                                            : types[1];
  }

  Type degree() {
    const GraphShape &g = graphOf(0);
    return Type::tensor(
        {sideOf(1, "dst") == "src" ? g.src : g.dst, Dim::constant(1)});
  }

  Type dst() {
    if (!needRows(1))
      return Type::error();
    const GraphShape &g = graphOf(0);
    sema.unifyOrError(types[1].shape[0], g.src, argLoc(1),
                      "row count of the argument of dst", scope);
    return withRows(types[1], g.dst);
  }

  Type nodeType() {
    // A column over g's sources: 1 where the node has that type.
    auto *s = dyn_cast<StringExpr>(call.args[1]);
    if (s && s->value.empty()) {
      sema.diags.error(argLoc(1), "node type name must not be empty");
      return Type::error();
    }
    return Type::tensor({graphOf(0).src, Dim::constant(1)});
  }

  Type relation() {
    // The relation's edges over the graph's own nodes (the homogeneous
    // view): tensors on g's nodes flow through it, and the messages of
    // several relations add up, each [g.dst, ...].
    auto *s = dyn_cast<StringExpr>(call.args[1]);
    if (s && s->value.empty()) {
      sema.diags.error(argLoc(1), "relation name must not be empty");
      return Type::error();
    }
    const GraphShape &g = graphOf(0);
    std::string rel = g.name + "." + (s ? s->value : std::string("?"));
    auto shape = std::make_shared<GraphShape>();
    shape->name = rel;
    shape->src = g.src;
    shape->dst = g.dst;
    shape->edges = Dim::symbol(rel + ".edges");
    shape->graphs = g.graphs;
    shape->pairs = g.pairs;
    Type t = Type::scalar(TypeKind::Graph);
    t.graph = shape;
    return t;
  }

  /// A graph over g's destinations that the trainer gives each step: its
  /// sources are g.dst, its destinations and edges are `dst` and `edges`.
  Type stepGraph(const char *builtinName, const Dim &dst, const Dim &edges) {
    const GraphShape &g = graphOf(0);
    auto shape = std::make_shared<GraphShape>(g);
    shape->name = std::string(builtinName) + "(" + g.name + ")";
    shape->isLayered = false;
    shape->src = g.dst;
    shape->dst = dst;
    shape->edges = edges;
    Type t = Type::scalar(TypeKind::Graph);
    t.graph = shape;
    return t;
  }

  Type readout() {
    // One edge from each node of g to its graph: sources and edges are
    // g's destinations (a batch of whole graphs has g.src == g.dst; in a
    // layer, what its convolutions return), destinations the batch's
    // graphs. Whether the program trains on graphs is the train block's
    // check.
    return stepGraph("readout", graphOf(0).graphs, graphOf(0).dst);
  }

  Type pairs() {
    // The pairs a link-prediction step scores, as edges between g's
    // destinations (the nodes whose rows a model computes): gathering a
    // pair's endpoints gives [g.pairs, ...].
    return stepGraph("pairs", graphOf(0).dst, graphOf(0).pairs);
  }

  /// A constant dropout probability in [0, 1), or a parameter checked where
  /// the module is instantiated.
  bool dropoutProbability() {
    std::optional<double> p = types[1].floatValue;
    if (!p && types[1].intValue && types[1].intValue->isConstant())
      p = static_cast<double>(types[1].intValue->constantValue());
    if (p && (*p < 0 || *p >= 1)) {
      sema.diags.error(argLoc(1),
                       "dropout probability must be in [0, 1), got " +
                           std::to_string(*p));
      return false;
    }
    // A parameter: its value is checked where the module is instantiated.
    if (!p)
      sema.checkDropoutArgument(call.args[1], types[1], argLoc(1), scope);
    return true;
  }

  /// softmax, log_softmax: the operand's type.
  Type normalize() {
    if (!types[0].isTensor() || types[0].rank() == 0) {
      sema.diags.error(argLoc(0), name + " needs a tensor of rank 1 or more");
      return Type::error();
    }
    if (!axisOf(1, types[0].rank(), -1))
      return Type::error();
    return types[0];
  }

  /// batch_norm: the operand's type; a constant eps must be >= 0.
  Type batchNorm() {
    if (!types[0].isTensor() || types[0].rank() == 0) {
      sema.diags.error(argLoc(0), name + " needs a tensor of rank 1 or more "
                                         "(rows to normalize over)");
      return Type::error();
    }
    if (call.args[1]) {
      std::optional<double> eps = types[1].floatValue;
      if (!eps && types[1].intValue && types[1].intValue->isConstant())
        eps = static_cast<double>(types[1].intValue->constantValue());
      if (eps && !(*eps >= 0)) {
        sema.diags.error(argLoc(1), "batch_norm eps must be >= 0, got " +
                                        std::to_string(*eps));
        return Type::error();
      }
    }
    if (call.args[2]) {
      std::optional<double> m = types[2].floatValue;
      if (!m && types[2].intValue && types[2].intValue->isConstant())
        m = static_cast<double>(types[2].intValue->constantValue());
      if (m && !(*m >= 0 && *m <= 1)) {
        sema.diags.error(argLoc(2), "batch_norm momentum must be in [0, 1] "
                                    "(0: no running statistics), got " +
                                        std::to_string(*m));
        return Type::error();
      }
    }
    return types[0];
  }

  /// sum, mean, max over an axis: the axis dropped.
  Type reduce() {
    if (!types[0].isTensor() || types[0].rank() == 0) {
      sema.diags.error(argLoc(0), name + " needs a tensor of rank 1 or more");
      return Type::error();
    }
    std::optional<int64_t> axis = axisOf(1, types[0].rank(), 0);
    if (!axis)
      return Type::error();
    Type t = types[0];
    t.shape.erase(t.shape.begin() + *axis);
    return t;
  }

  Type concat() {
    auto *list = dyn_cast<ListExpr>(call.args[0]);
    if (!list || list->elements.empty()) {
      sema.diags.error(argLoc(0), "concat needs a non-empty list of tensors");
      return Type::error();
    }
    Type first = list->elements[0]->type;
    std::optional<int64_t> axis = axisOf(1, first.rank(), -1);
    if (!axis)
      return Type::error();
    Type t = first;
    for (size_t i = 1; i < list->elements.size(); ++i) {
      const Type &e = list->elements[i]->type;
      if (e.rank() != first.rank()) {
        sema.diags.error(
            list->elements[i]->loc,
            "concat operands differ in rank: " + sema.show(first, scope) +
                " and " + sema.show(e, scope));
        return Type::error();
      }
      for (size_t d = 0; d < e.rank(); ++d) {
        if (static_cast<int64_t>(d) == *axis)
          t.shape[d] = t.shape[d] + e.shape[d];
        else
          sema.unifyOrError(
              e.shape[d], first.shape[d], list->elements[i]->loc,
              "dimension " + std::to_string(d) + " of a concat operand", scope);
      }
    }
    return t;
  }

  Type blockDiagonal() {
    // [R, B, i, o] -> [R, B*i, B*o]: relation r's matrix has the blocks
    // q[r, b] on its diagonal (R-GCN's block-diagonal decomposition).
    const Type &q = types[0];
    if (!q.isTensor() || q.rank() != 4) {
      sema.diags.error(argLoc(0),
                       "'q' of 'block_diagonal' must be the blocks of "
                       "each matrix, [matrices, blocks, rows, columns], "
                       "got " +
                           sema.show(q, scope));
      return Type::error();
    }
    const Dim &blocks = q.shape[1];
    return Type::tensor({q.shape[0], blocks * q.shape[2], blocks * q.shape[3]});
  }

  Type reshape() {
    const Type &x = types[0];
    auto *list = dyn_cast<ListExpr>(call.args[1]);
    if (!x.isTensor() || !list) {
      sema.diags.error(expr->loc,
                       "reshape needs a tensor and a list of dimensions");
      return Type::error();
    }
    std::vector<Dim> shape;
    for (const ExprPtr &e : list->elements)
      shape.push_back(*e->type.intValue);
    auto product = [](const std::vector<Dim> &s, size_t from) {
      Dim p = Dim::constant(1);
      for (size_t i = from; i < s.size(); ++i)
        p = p * s[i];
      return p;
    };
    bool inferRows = !shape.empty() && shape[0].isConstant() &&
                     shape[0].constantValue() == -1;
    if (inferRows && x.rank() >= 1) {
      if (scope.unifier.resolve(product(shape, 1)) !=
          scope.unifier.resolve(product(x.shape, 1))) {
        sema.diags.error(argLoc(1),
                         "reshape keeps " +
                             sema.show(product(x.shape, 1), scope) +
                             " elements per row, but the new shape has " +
                             sema.show(product(shape, 1), scope));
        return Type::error();
      }
      shape[0] = x.shape[0];
    } else if (scope.unifier.resolve(product(shape, 0)) !=
               scope.unifier.resolve(product(x.shape, 0))) {
      sema.diags.error(argLoc(1), "reshape from " + sema.show(x, scope) +
                                      " to " +
                                      sema.show(Type::tensor(shape), scope) +
                                      " changes the number of elements");
      return Type::error();
    }
    return Type::tensor(shape);
  }

  Sema &sema;
  CallExpr *expr;
  const Builtin &builtin;
  BuiltinCall &call;
  const std::vector<Type> &types;
  Scope &scope;
  const std::string name;
};

} // namespace

Type Sema::builtinResultType(CallExpr *expr, const Builtin &builtin,
                             BuiltinCall &call, const std::vector<Type> &types,
                             Scope &scope) {
  return BuiltinTyping(*this, expr, builtin, call, types, scope).resultType();
}

std::optional<Type> Sema::checkScalarMath(CallExpr *expr, const Builtin &builtin,
                                          Scope &scope) {
  if (scope.inForward || !isScalarFoldable(builtin.op) ||
      expr->args.size() != 1 || !expr->args[0].name.empty())
    return std::nullopt;
  Expr *argExpr = expr->args[0].value.get();
  Type arg = checkExpr(argExpr, scope);
  if (arg.isError())
    return arg;
  if (arg.kind != TypeKind::Int && arg.kind != TypeKind::Float) {
    diags.error(argExpr->loc, "'" + std::string(builtin.name) +
                                  "' outside forward computes a number, got " +
                                  show(arg, scope));
    return Type::error();
  }
  Type result = Type::scalar(TypeKind::Float);
  std::optional<double> x = arg.floatValue;
  if (!x && arg.intValue && arg.intValue->isConstant())
    x = static_cast<double>(arg.intValue->constantValue());
  if (x)
    result.floatValue = foldScalarBuiltin(builtin.op, *x);
  return result;
}
