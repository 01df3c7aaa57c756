//===- SemaExpr.cpp - Expressions, calls and shapes -----------------------===//
//
// Type rules of the expression language: name lookup (locals, members,
// globals, builtin names), numpy-style broadcasting, `@`, the graph
// primitives (which tie tensor rows to a graph's src, dst and edge sets),
// and calls of sub-layers by substitution into their signatures.
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include <algorithm>

using namespace gnn::lang;

static bool isInt(const Type &t) { return t.kind == TypeKind::Int; }
static bool isScalarNumber(const Type &t) {
  return t.kind == TypeKind::Int || t.kind == TypeKind::Float;
}

std::vector<std::string> Sema::visibleNames(Scope &scope) {
  std::vector<std::string> names;
  for (const auto &[n, t] : scope.locals)
    names.push_back(n);
  if (scope.module) {
    for (const FormalParam &p : scope.module->decl->params)
      names.push_back(p.name);
    for (const auto &[n, t] : scope.module->weightTypes)
      names.push_back(n);
    for (const auto &[n, s] : scope.module->subLayers)
      names.push_back(n);
  }
  for (const auto &[n, d] : result.datasets)
    names.push_back(n);
  for (const Builtin &b : builtins())
    if (b.context == BuiltinContext::Forward)
      names.push_back(b.name);
  return names;
}

const ModuleDecl *Sema::lookupModuleName(const Expr *callee) {
  std::string name;
  if (auto *n = dyn_cast<NameExpr>(callee)) {
    name = n->name;
  } else if (auto *m = dyn_cast<MemberExpr>(callee)) {
    // `nn.GCNConv`: a module name qualified by an import alias.
    auto *base = dyn_cast<NameExpr>(m->base.get());
    if (!base || std::find(importAliases.begin(), importAliases.end(),
                           base->name) == importAliases.end())
      return nullptr;
    name = m->member;
  }
  auto it = result.modules.find(name);
  return it == result.modules.end() ? nullptr : it->second;
}

void Sema::unifyOrError(const Dim &actual, const Dim &expected, SourceLoc loc,
                        const std::string &what, Scope &scope) {
  if (scope.unifier.unify(actual, expected))
    return;
  diags.error(loc, what + " is " + show(actual, scope) + ", expected " +
                       show(expected, scope));
}

//===----------------------------------------------------------------------===//
// Dimensions
//===----------------------------------------------------------------------===//

std::optional<Dim> Sema::resolveDim(Expr *expr, Scope &scope) {
  if (!expr)
    return std::nullopt;
  if (auto *n = dyn_cast<NameExpr>(expr)) {
    bool known = scope.locals.count(n->name) ||
                 (scope.module && (scope.module->weightTypes.count(n->name) ||
                                   scope.module->subLayers.count(n->name))) ||
                 result.datasets.count(n->name);
    if (scope.module)
      for (const FormalParam &p : scope.module->decl->params)
        known |= p.name == n->name;
    if (!known && (scope.inSignature || scope.unifier.isFlexible(n->name))) {
      // A free name in a forward signature: inferred at each use (and usable
      // in the body's type annotations once the signature introduced it).
      scope.unifier.addFlexible(n->name);
      scope.module->freeSymbols.insert(n->name);
      n->type = Type::scalar(TypeKind::Int);
      n->type.intValue = Dim::symbol(n->name);
      return n->type.intValue;
    }
  }
  if (auto *b = dyn_cast<BinaryExpr>(expr)) {
    if (b->op == BinaryOp::Add || b->op == BinaryOp::Sub ||
        b->op == BinaryOp::Mul) {
      std::optional<Dim> l = resolveDim(b->lhs.get(), scope);
      std::optional<Dim> r = resolveDim(b->rhs.get(), scope);
      if (!l || !r)
        return std::nullopt;
      Dim d = b->op == BinaryOp::Add   ? *l + *r
              : b->op == BinaryOp::Sub ? *l - *r
                                       : *l * *r;
      b->type = Type::scalar(TypeKind::Int);
      b->type.intValue = d;
      return d;
    }
  }
  Type t = checkExpr(expr, scope);
  if (t.isError())
    return std::nullopt;
  if (isInt(t) && t.intValue)
    return t.intValue;
  diags.error(expr->loc, "tensor dimension must be an integer expression, "
                         "found " +
                             t.str());
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Type Sema::checkExpr(Expr *expr, Scope &scope) {
  if (!expr)
    return Type::error();
  Type type;
  switch (expr->kind) {
  case ExprKind::Int:
    type = Type::scalar(TypeKind::Int);
    type.intValue = Dim::constant(static_cast<IntExpr *>(expr)->value);
    break;
  case ExprKind::Float:
    type = Type::scalar(TypeKind::Float);
    type.floatValue = static_cast<FloatExpr *>(expr)->value;
    break;
  case ExprKind::String:
    type = Type::scalar(TypeKind::String);
    break;
  case ExprKind::Bool:
    type = Type::scalar(TypeKind::Bool);
    break;
  case ExprKind::Name:
    type = checkName(static_cast<NameExpr *>(expr), scope);
    break;
  case ExprKind::Member:
    type = checkMember(static_cast<MemberExpr *>(expr), scope);
    break;
  case ExprKind::Call:
    type = checkCall(static_cast<CallExpr *>(expr), scope);
    break;
  case ExprKind::Index: {
    auto *index = static_cast<IndexExpr *>(expr);
    Type base = checkExpr(index->base.get(), scope);
    std::optional<int64_t> block;
    for (ExprPtr &i : index->indices) {
      Type t = checkExpr(i.get(), scope);
      if (index->indices.size() == 1 && t.kind == TypeKind::Int &&
          t.intValue && t.intValue->isConstant())
        block = t.intValue->constantValue();
    }
    if (base.isError())
      break;
    if (base.kind != TypeKind::Graph || !base.graph || !base.graph->isLayered) {
      diags.error(index->loc,
                  "only a model's graph can be indexed (g[i] is the "
                  "block of layer i); " +
                      base.str() + " cannot be indexed");
      break;
    }
    if (!block || *block < 0) {
      diags.error(index->indices.empty() ? index->loc : index->indices[0]->loc,
                  "a block index must be a non-negative integer known here: "
                  "a literal, or the variable of a loop whose bounds are "
                  "literals");
      break;
    }
    // Block i maps level i to level i+1; block i's dst is block i+1's src.
    const std::string &g = base.graph->name;
    auto level = [&](int64_t i) {
      return Dim::symbol(i == 0 ? g + "[0].src"
                                : g + "[" + std::to_string(i - 1) + "].dst");
    };
    auto shape = std::make_shared<GraphShape>();
    shape->name = g + "[" + std::to_string(*block) + "]";
    shape->src = level(*block);
    shape->dst = level(*block + 1);
    shape->edges = Dim::symbol(shape->name + ".edges");
    shape->graphs = base.graph->graphs;
    shape->pairs = base.graph->pairs;
    type = Type::scalar(TypeKind::Graph);
    type.graph = shape;
    break;
  }
  case ExprKind::List: {
    auto *list = static_cast<ListExpr *>(expr);
    type = Type::scalar(TypeKind::List);
    Type element;
    bool first = true;
    for (ExprPtr &e : list->elements) {
      Type t = checkExpr(e.get(), scope);
      if (first)
        element = t;
      else if (t.kind != element.kind)
        element = Type::error();
      first = false;
    }
    type.listElement = std::make_shared<Type>(element);
    break;
  }
  case ExprKind::Comprehension:
    // Only a member builds a list this way (checkSubLayer).
    diags.error(expr->loc, "a list comprehension builds a list of layers, as "
                           "a member: convs = [Layer(...) for i in range(n)]");
    type = Type::error();
    break;
  case ExprKind::Neg: {
    auto *neg = static_cast<NegExpr *>(expr);
    type = checkExpr(neg->operand.get(), scope);
    if (type.isError())
      break;
    if (!type.isNumeric()) {
      diags.error(neg->loc, "cannot negate " + type.str());
      type = Type::error();
    }
    if (type.intValue)
      type.intValue = Dim::constant(0) - *type.intValue;
    if (type.floatValue)
      type.floatValue = -*type.floatValue;
    break;
  }
  case ExprKind::Binary:
    type = checkBinary(static_cast<BinaryExpr *>(expr), scope);
    break;
  }
  expr->type = type;
  scope.typedExprs.push_back(expr);
  return type;
}

Type Sema::checkName(NameExpr *expr, Scope &scope) {
  const std::string &name = expr->name;
  if (auto it = scope.locals.find(name); it != scope.locals.end())
    return it->second;
  if (ModuleInfo *m = scope.module) {
    for (size_t i = 0; i < m->decl->params.size() && i < m->paramTypes.size();
         ++i)
      if (m->decl->params[i].name == name)
        return m->paramTypes[i];
    if (auto it = m->weightTypes.find(name); it != m->weightTypes.end()) {
      if (!scope.inForward && !it->second.isError()) {
        diags.error(expr->loc,
                    "parameter '" + name + "' can only be used inside forward");
        return Type::error();
      }
      return it->second;
    }
    if (m->subLayers.count(name))
      return Type::named(TypeKind::Module, name);
  }
  if (auto it = result.datasets.find(name); it != result.datasets.end())
    return it->second->poisoned ? Type::error()
                                : Type::named(TypeKind::Dataset, name);
  if (result.modules.count(name))
    return Type::named(TypeKind::Function, name);
  for (SymbolCategory c :
       {SymbolCategory::Reduce, SymbolCategory::Side,
        SymbolCategory::Initializer, SymbolCategory::Split,
        SymbolCategory::Balance, SymbolCategory::Batches, SymbolCategory::Loss,
        SymbolCategory::Aggregation, SymbolCategory::Generator})
    if (isBuiltinSymbol(name, c))
      return Type::named(TypeKind::Symbol, name);
  if (lookupBuiltin(name, BuiltinContext::Forward))
    return Type::named(TypeKind::Function, name);
  diags.error(expr->loc, withSuggestion("use of undeclared name '" + name + "'",
                                        name, visibleNames(scope)));
  return Type::error();
}

Type Sema::checkMember(MemberExpr *expr, Scope &scope) {
  // `nn.GCNConv` names a module through an import alias.
  if (auto *base = dyn_cast<NameExpr>(expr->base.get())) {
    if (std::find(importAliases.begin(), importAliases.end(), base->name) !=
            importAliases.end() &&
        !scope.locals.count(base->name)) {
      if (result.modules.count(expr->member))
        return Type::named(TypeKind::Function, expr->member);
      diags.error(expr->memberLoc, "module '" + base->name +
                                       "' has no layer '" + expr->member + "'");
      return Type::error();
    }
  }
  Type base = checkExpr(expr->base.get(), scope);
  if (base.isError())
    return base;
  if (base.kind == TypeKind::Dataset) {
    static const std::vector<std::string> attrs = {"features", "classes",
                                                   "nodes", "relations"};
    if (std::find(attrs.begin(), attrs.end(), expr->member) == attrs.end()) {
      diags.error(expr->memberLoc,
                  "dataset '" + base.name + "' has no attribute '" +
                      expr->member +
                      "'; expected features, classes, nodes or relations");
      return Type::error();
    }
    Type t = Type::scalar(TypeKind::Int);
    t.intValue = Dim::symbol(base.name + "." + expr->member);
    return t;
  }
  if (base.kind == TypeKind::Graph && base.graph) {
    Type t = Type::scalar(TypeKind::Int);
    if (expr->member == "src")
      t.intValue = base.graph->src;
    else if (expr->member == "dst")
      t.intValue = base.graph->dst;
    else if (expr->member == "edges")
      t.intValue = base.graph->edges;
    else if (expr->member == "graphs")
      t.intValue = base.graph->graphs;
    else if (expr->member == "pairs")
      t.intValue = base.graph->pairs;
    else {
      diags.error(expr->memberLoc, "graph has no attribute '" + expr->member +
                                       "'; expected src, dst, edges, graphs "
                                       "or pairs (use relation(g, \"name\") "
                                       "for a relation)");
      return Type::error();
    }
    return t;
  }
  diags.error(expr->memberLoc,
              "cannot access '" + expr->member + "' of " + base.str());
  return Type::error();
}

Type Sema::broadcast(const Type &a, const Type &b, SourceLoc loc,
                     const char *what, Scope &scope) {
  if (a.isError() || b.isError())
    return Type::error();
  if (!a.isNumeric() || !b.isNumeric()) {
    diags.error(loc, std::string("cannot ") + what + " " + show(a, scope) +
                         " and " + show(b, scope));
    return Type::error();
  }
  if (!a.isTensor() && !b.isTensor()) {
    Type t = Type::scalar(a.kind == TypeKind::Float || b.kind == TypeKind::Float
                              ? TypeKind::Float
                              : TypeKind::Int);
    return t;
  }
  const std::vector<Dim> &sa = a.shape, &sb = b.shape;
  size_t rank = std::max(sa.size(), sb.size());
  std::vector<Dim> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    bool hasA = i < sa.size(), hasB = i < sb.size();
    const Dim *da = hasA ? &sa[sa.size() - 1 - i] : nullptr;
    const Dim *db = hasB ? &sb[sb.size() - 1 - i] : nullptr;
    Dim &out = shape[rank - 1 - i];
    if (!da || (da->isConstant() && da->constantValue() == 1 && db)) {
      out = *db;
    } else if (!db || (db->isConstant() && db->constantValue() == 1)) {
      out = *da;
    } else if (scope.unifier.unify(*da, *db)) {
      out = scope.unifier.resolve(*da);
    } else {
      diags.error(loc, std::string("cannot ") + what + " " + show(a, scope) +
                           " and " + show(b, scope) + ": dimension " +
                           show(*da, scope) + " does not match " +
                           show(*db, scope));
      return Type::error();
    }
  }
  return Type::tensor(std::move(shape));
}

Type Sema::checkBinary(BinaryExpr *expr, Scope &scope) {
  Type l = checkExpr(expr->lhs.get(), scope);
  Type r = checkExpr(expr->rhs.get(), scope);
  if (l.isError() || r.isError())
    return Type::error();
  if (expr->op == BinaryOp::MatMul) {
    if (!l.isTensor() || !r.isTensor() || l.rank() < 1 || r.rank() != 2) {
      diags.error(expr->opLoc, "'@' multiplies a [.., K] tensor by a [K, N] "
                               "matrix, got " +
                                   show(l, scope) + " @ " + show(r, scope));
      return Type::error();
    }
    if (!scope.unifier.unify(l.shape.back(), r.shape[0])) {
      diags.error(expr->opLoc, "inner dimensions of '@' do not match: " +
                                   show(l, scope) + " @ " + show(r, scope));
      return Type::error();
    }
    std::vector<Dim> shape(l.shape.begin(), l.shape.end() - 1);
    shape.push_back(r.shape[1]);
    return Type::tensor(std::move(shape));
  }
  static const char *verbs[] = {"add", "subtract", "multiply", "divide"};
  const char *verb = verbs[static_cast<int>(expr->op)];
  Type t = broadcast(l, r, expr->opLoc, verb, scope);
  // Integer arithmetic stays symbolic so it can size tensors: `heads * out`.
  if (isInt(t) && l.intValue && r.intValue) {
    switch (expr->op) {
    case BinaryOp::Add:
      t.intValue = *l.intValue + *r.intValue;
      break;
    case BinaryOp::Sub:
      t.intValue = *l.intValue - *r.intValue;
      break;
    case BinaryOp::Mul:
      t.intValue = *l.intValue * *r.intValue;
      break;
    case BinaryOp::Div:
      // Exact when the values are known (`16 / 4`); a symbolic quotient
      // (`in / blocks`) may size a tensor, and divisibility is checked
      // where the layer is instantiated.
      if (std::optional<Dim> q = l.intValue->divide(*r.intValue))
        t.intValue = *q;
      else
        t = Type::scalar(TypeKind::Float);
      break;
    default:
      break;
    }
  }
  if (t.kind == TypeKind::Float && l.floatValue && r.floatValue) {
    double a = *l.floatValue, b = *r.floatValue;
    t.floatValue = expr->op == BinaryOp::Add   ? a + b
                   : expr->op == BinaryOp::Sub ? a - b
                   : expr->op == BinaryOp::Mul ? a * b
                   : b != 0                    ? std::optional<double>(a / b)
                                               : std::nullopt;
  }
  return t;
}

Type Sema::checkCall(CallExpr *expr, Scope &scope) {
  Expr *callee = expr->callee.get();
  // `convs[i](...)`: one layer of a list.
  if (auto *index = dyn_cast<IndexExpr>(callee))
    if (auto *n = dyn_cast<NameExpr>(index->base.get()))
      if (scope.module && scope.module->subLayers.count(n->name) &&
          !scope.locals.count(n->name) && scope.inForward)
        return checkLayerListCall(expr, index, n->name, scope);
  if (auto *n = dyn_cast<NameExpr>(callee)) {
    // Locals and members shadow builtins; a sub-layer is called by name.
    bool shadowed =
        scope.locals.count(n->name) ||
        (scope.module && (scope.module->weightTypes.count(n->name) ||
                          scope.module->subLayers.count(n->name)));
    if (scope.module && scope.module->subLayers.count(n->name) &&
        scope.inForward) {
      if (scope.module->subLayers[n->name].list) {
        diags.error(n->loc, "'" + n->name +
                                "' is a list of layers: call one of them, as "
                                "in " +
                                n->name + "[i](...)");
        return Type::error();
      }
      return checkLayerCall(expr, n->name, scope);
    }
    if (!shadowed) {
      if (const Builtin *b = lookupBuiltin(n->name, BuiltinContext::Forward)) {
        if (std::optional<Type> folded = checkScalarMath(expr, *b, scope))
          return *folded;
        if (!scope.inForward) {
          diags.error(n->loc,
                      "'" + n->name + "' can only be called inside forward");
          return Type::error();
        }
        return checkBuiltinCall(expr, *b, scope);
      }
    }
  }
  if (const ModuleDecl *m = lookupModuleName(callee)) {
    diags.error(callee->loc, std::string(m->kindName()) + " '" + m->name +
                                 "' must be a member (c = " + m->name +
                                 "(...)) before forward can call it");
    noteDefinition(m);
    return Type::error();
  }
  Type t = checkExpr(callee, scope);
  if (!t.isError())
    diags.error(callee->loc, show(t, scope) + " is not callable");
  return Type::error();
}

Type Sema::checkLayerCall(CallExpr *expr, const std::string &member,
                          Scope &scope) {
  const SubLayerInfo &sub = scope.module->subLayers[member];
  const ModuleDecl *layer = sub.layer;
  if (!layer || !layer->forward)
    return Type::error(); // The member's declaration was already diagnosed.
  const ModuleInfo &callee = result.moduleInfo[layer];
  const ForwardDecl &fwd = *layer->forward;
  std::vector<const Expr *> args;
  if (!bindArgs(member, expr->loc, fwd.params, expr->args, args)) {
    noteDefinition(layer);
    return Type::error();
  }
  // The callee's symbols, renamed into the caller: its integer parameters
  // as bound by the member declaration, its free names as fresh inferred
  // symbols, its graph parameters as the actual graphs.
  std::map<std::string, Dim> bindings = sub.dimBindings;
  unsigned id = ++scope.freshCounter;
  for (const std::string &s : callee.freeSymbols) {
    std::string fresh = s + "'" + std::to_string(id);
    scope.unifier.addFlexible(fresh);
    bindings[s] = Dim::symbol(fresh);
  }
  std::vector<Type> actuals(args.size());
  for (size_t i = 0; i < args.size() && i < callee.forwardParamTypes.size();
       ++i) {
    if (!args[i])
      continue;
    actuals[i] = checkExpr(const_cast<Expr *>(args[i]), scope);
    const Type &formal = callee.forwardParamTypes[i];
    if (formal.kind == TypeKind::Graph && actuals[i].kind == TypeKind::Graph &&
        formal.graph && actuals[i].graph) {
      // A layer's graph symbols, or a model's whole graph.
      const GraphShape &f = *formal.graph, &a = *actuals[i].graph;
      if (auto s = f.src.asSymbol())
        bindings[*s] = a.src;
      if (auto s = f.dst.asSymbol())
        bindings[*s] = a.dst;
      if (auto s = f.edges.asSymbol())
        bindings[*s] = a.edges;
      if (auto s = f.graphs.asSymbol())
        bindings[*s] = a.graphs;
      if (auto s = f.pairs.asSymbol())
        bindings[*s] = a.pairs;
    }
  }
  bool ok = true;
  for (size_t i = 0; i < args.size() && i < callee.forwardParamTypes.size();
       ++i) {
    if (!args[i] || actuals[i].isError() ||
        callee.forwardParamTypes[i].isError())
      continue;
    const Type &formal = callee.forwardParamTypes[i];
    const Type &actual = actuals[i];
    std::string what = "argument '" + fwd.params[i].name + "' of " + member;
    if (formal.kind == TypeKind::Graph) {
      if (actual.kind != TypeKind::Graph) {
        diags.error(args[i]->loc,
                    what + " expects a graph, got " + show(actual, scope));
        ok = false;
      }
      continue;
    }
    if (formal.isTensor()) {
      if (!actual.isTensor() || actual.rank() != formal.rank()) {
        Type expected = formal;
        for (Dim &d : expected.shape)
          d = d.substitute(bindings);
        diags.error(args[i]->loc, what + " expects " + show(expected, scope) +
                                      ", got " + show(actual, scope));
        ok = false;
        continue;
      }
      for (size_t d = 0; d < formal.rank(); ++d) {
        Dim expected = formal.shape[d].substitute(bindings);
        if (!scope.unifier.unify(actual.shape[d], expected)) {
          diags.error(args[i]->loc, what + " has dimension " +
                                        std::to_string(d) + " = " +
                                        show(actual.shape[d], scope) +
                                        ", expected " + show(expected, scope));
          ok = false;
          break;
        }
      }
      continue;
    }
    if (formal.kind != actual.kind &&
        !(formal.kind == TypeKind::Float && actual.kind == TypeKind::Int)) {
      diags.error(args[i]->loc, what + " expects " + formal.str() + ", got " +
                                    show(actual, scope));
      ok = false;
    }
  }
  if (!ok) {
    noteDefinition(layer);
    return Type::error();
  }
  Type result = callee.forwardResult;
  for (Dim &d : result.shape)
    d = scope.unifier.resolve(d.substitute(bindings));
  return result;
}

bool Sema::expectSymbol(const Expr *expr, SymbolCategory category,
                        const char *paramName, const char *callee,
                        Scope &scope) {
  auto *n = dyn_cast<NameExpr>(expr);
  if (n && isBuiltinSymbol(n->name, category))
    return true;
  // A `reduce` parameter of the enclosing layer stands for its argument.
  if (n && category == SymbolCategory::Reduce && scope.module)
    for (size_t i = 0; i < scope.module->decl->params.size(); ++i)
      if (scope.module->decl->params[i].name == n->name &&
          scope.module->paramTypes[i].kind == TypeKind::Symbol)
        return true;
  std::string found = n ? "'" + n->name + "'" : std::string("an expression");
  diags.error(expr->loc, std::string("'") + paramName + "' of '" + callee +
                             "' must be " + builtinSymbolList(category) +
                             ", found " + found);
  return false;
}

Type Sema::checkBuiltinCall(CallExpr *expr, const Builtin &builtin,
                            Scope &scope) {
  std::vector<std::string> names;
  std::vector<bool> required;
  for (const BuiltinParam &p : builtin.params) {
    names.push_back(p.name);
    required.push_back(p.required);
  }
  BuiltinCall &call = result.builtinCalls[expr];
  call.builtin = &builtin;
  // dst(x): the graph is implied when exactly one is in scope.
  std::vector<Arg> implicitArgs;
  const std::vector<Arg> *args = &expr->args;
  if (builtin.op == BuiltinOp::Dst && expr->args.size() == 1 &&
      expr->args[0].name.empty()) {
    if (scope.graphs.size() != 1) {
      diags.error(expr->loc, "dst(x) needs exactly one graph in scope; write "
                             "dst(g, x)");
      return Type::error();
    }
    Arg g;
    g.value = std::make_unique<NameExpr>(expr->loc, scope.graphs.front());
    implicitArgs.push_back(std::move(g));
    Arg x;
    x.value = std::move(expr->args[0].value);
    implicitArgs.push_back(std::move(x));
    expr->args = std::move(implicitArgs);
  }
  if (!bindArgs(builtin.name, expr->loc, names, required, *args, call.args))
    return Type::error();

  // Check each argument against its kind.
  std::vector<Type> types(builtin.params.size());
  bool ok = true;
  for (size_t i = 0; i < builtin.params.size(); ++i) {
    const Expr *arg = call.args[i];
    if (!arg)
      continue;
    const BuiltinParam &p = builtin.params[i];
    std::string what =
        std::string("'") + p.name + "' of '" + builtin.name + "'";
    switch (p.kind) {
    case ParamKind::Reduce:
      ok &= expectSymbol(arg, SymbolCategory::Reduce, p.name, builtin.name,
                         scope);
      continue;
    case ParamKind::Side:
      // gather alone has a third side: the pair's relation.
      if (auto *n = dyn_cast<NameExpr>(arg);
          n && n->name == kRelationSide && builtin.op == BuiltinOp::Gather) {
        if (scope.module && !scope.module->relationGather)
          scope.module->relationGather = arg->loc;
        continue;
      }
      ok &=
          expectSymbol(arg, SymbolCategory::Side, p.name, builtin.name, scope);
      continue;
    case ParamKind::Metric:
      ok &= expectSymbol(arg, SymbolCategory::Metric, p.name, builtin.name,
                         scope);
      continue;
    case ParamKind::RelationFanouts:
      // Entries are train-setting calls, not expressions: Sema::checkSampler.
      continue;
    case ParamKind::ParamSelector:
      // A layer member or a glob, not an expression: Sema::checkParamGroups.
      continue;
    default:
      break;
    }
    Type t = checkExpr(const_cast<Expr *>(arg), scope);
    types[i] = t;
    if (t.isError()) {
      ok = false;
      continue;
    }
    auto mismatch = [&](const char *expected) {
      diags.error(arg->loc,
                  what + " expects " + expected + ", got " + show(t, scope));
      ok = false;
    };
    switch (p.kind) {
    case ParamKind::Graph:
      if (t.kind != TypeKind::Graph)
        mismatch("a graph");
      break;
    case ParamKind::Tensor:
      if (!t.isNumeric())
        mismatch("a tensor");
      break;
    case ParamKind::TensorList:
      if (t.kind != TypeKind::List || !t.listElement ||
          !t.listElement->isTensor())
        mismatch("a list of tensors");
      break;
    case ParamKind::Int:
      if (!isInt(t))
        mismatch("an integer");
      break;
    case ParamKind::Float:
      if (!isScalarNumber(t))
        mismatch("a number");
      break;
    case ParamKind::Bool:
      if (t.kind != TypeKind::Bool)
        mismatch("true or false");
      break;
    case ParamKind::String:
      if (t.kind != TypeKind::String)
        mismatch("a string");
      break;
    case ParamKind::DimList:
      if (t.kind != TypeKind::List || !t.listElement || !isInt(*t.listElement))
        mismatch("a list of dimensions");
      break;
    default:
      break;
    }
  }
  if (!ok)
    return Type::error();
  if (builtin.context != BuiltinContext::Forward)
    return Type::named(TypeKind::Symbol, builtin.name);

  return builtinResultType(expr, builtin, call, types, scope);
}
