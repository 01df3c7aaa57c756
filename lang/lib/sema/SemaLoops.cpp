//===- SemaLoops.cpp - Checking compile-time repetition -------------------===//
//
// `for i in range(n) { ... }` in a forward and `[Layer(...) for i in range(n)]`
// lists of layers. Both are repeated at compile time (MLIRGen unrolls them).
// A loop whose bounds are literals is checked once per iteration, with its
// index a constant (errors name the iteration). One whose bounds are the
// module's parameters (`range(layers)`) is checked once, generically: the
// index is a symbol, so what holds for the body holds for every iteration,
// provided an iteration keeps the shapes of what the loop carries. A list of
// layers is checked once too, and its layers share their sizes.
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include <algorithm>

using namespace gnn::lang;

bool Sema::checkLoopRange(const LoopRange &range, Scope &scope) {
  bool ok = true;
  std::optional<Dim> bounds[2];
  const Expr *exprs[2] = {range.begin.get(), range.end.get()};
  for (int i = 0; i < 2; ++i) {
    if (!exprs[i])
      continue;
    Type t = checkExpr(const_cast<Expr *>(exprs[i]), scope);
    if (t.isError()) {
      ok = false;
      continue;
    }
    if (t.kind != TypeKind::Int || !t.intValue) {
      diags.error(exprs[i]->loc,
                  "a range bound must be an integer known at compile time "
                  "(a literal or an int parameter), got " +
                      show(t, scope));
      ok = false;
      continue;
    }
    bounds[i] = t.intValue;
  }
  Dim begin = bounds[0].value_or(Dim::constant(0));
  if (ok && bounds[1] && begin.isConstant() && bounds[1]->isConstant() &&
      bounds[1]->constantValue() <= begin.constantValue())
    diags.warning(exprs[1]->loc, "the loop over '" + range.var +
                                     "' never runs: range(" + begin.str() +
                                     ", " + bounds[1]->str() + ") is empty");
  return ok;
}

bool Sema::checkLoopVariable(const LoopRange &range, Scope &scope) {
  const std::string &var = range.var;
  SourceLoc previous;
  if (auto it = scope.localLocs.find(var);
      it != scope.localLocs.end() && scope.locals.count(var))
    previous = it->second;
  if (const ModuleDecl *m = scope.module ? scope.module->decl : nullptr) {
    for (const FormalParam &p : m->params)
      if (p.name == var)
        previous = p.loc;
    for (const WeightDecl &w : m->weights)
      if (w.name == var)
        previous = w.loc;
    for (const SubLayerDecl &s : m->subLayers)
      if (s.name == var)
        previous = s.loc;
  }
  if (!previous.isValid())
    return true;
  diags.error(range.varLoc, "loop variable '" + var + "' hides '" + var +
                                "' defined before; name it differently");
  diags.note(previous, "'" + var + "' is defined here");
  return false;
}

/// The names `body` assigns, loops included.
static void assignedNames(const std::vector<Stmt> &body,
                          std::map<std::string, const Stmt *> &names) {
  for (const Stmt &s : body) {
    if (s.kind == Stmt::Kind::Assign)
      names.emplace(s.name, &s);
    else if (s.kind == Stmt::Kind::For)
      assignedNames(s.body, names);
  }
}

/// The constant value of a checked range bound (0 for an absent begin).
static std::optional<int64_t> constantBound(const Expr *bound) {
  if (!bound)
    return 0;
  if (bound->type.intValue && bound->type.intValue->isConstant())
    return bound->type.intValue->constantValue();
  return std::nullopt;
}

void Sema::checkFor(const Stmt &loop, ModuleInfo &info, Scope &scope,
                    const std::optional<Type> &declared) {
  const LoopRange &range = loop.range;
  bool ok = checkLoopRange(range, scope);
  ok &= checkLoopVariable(range, scope);
  if (!ok)
    return; // Its body would only repeat the errors above.

  std::map<std::string, Type> before = scope.locals;
  std::map<std::string, SourceLoc> beforeLocs = scope.localLocs;
  size_t graphs = scope.graphs.size();
  std::map<std::string, const Stmt *> assigned;
  assignedNames(loop.body, assigned);
  scope.localLocs[range.var] = range.varLoc;
  scope.loopVariables.insert(range.var);
  ++scope.loopDepth;
  auto checkBody = [&](const Dim &index) {
    Type type = Type::scalar(TypeKind::Int);
    type.intValue = index;
    scope.locals[range.var] = type;
    bool returned = false;
    checkStatements(loop.body, info, scope, declared, returned);
  };

  // Bounds known here: each iteration is checked with its own index, so an
  // iteration may change what it carries (a sampled model's rows shrink from
  // block to block). The first iteration with errors is the last checked.
  std::optional<int64_t> begin = constantBound(range.begin.get());
  std::optional<int64_t> end = constantBound(range.end.get());
  constexpr int64_t kMaxCheckedIterations = 4096;
  bool perIteration =
      begin && end && *end - *begin <= kMaxCheckedIterations;
  if (perIteration) {
    for (int64_t i = *begin; i < *end; ++i) {
      unsigned errors = diags.errorCount();
      checkBody(Dim::constant(i));
      if (diags.errorCount() == errors)
        continue;
      diags.note(range.varLoc, "in iteration " + range.var + " = " +
                                   std::to_string(i) + " of this loop");
      // What the failed iteration assigned is unknown from here on.
      for (const auto &[name, stmt] : assigned)
        if (before.count(name))
          before[name] = Type::error();
      break;
    }
  } else {
    // Bounds known only where the module is instantiated: the body is
    // checked once, for a symbolic index, and so holds for every iteration
    // if what it carries keeps its shape.
    checkBody(Dim::symbol(range.var));
  }
  --scope.loopDepth;
  scope.loopVariables.erase(range.var);

  for (const auto &[name, stmt] : assigned) {
    auto old = before.find(name);
    auto now = scope.locals.find(name);
    if (old == before.end() || now == scope.locals.end() ||
        old->second.isError() || now->second.isError())
      continue;
    if (perIteration) {
      old->second = now->second; // The last iteration's value.
      continue;
    }
    const Type &a = old->second, &b = now->second;
    bool same = a.kind == b.kind && (!a.isTensor() || a.rank() == b.rank());
    for (size_t d = 0; same && a.isTensor() && d < a.rank(); ++d)
      same = scope.unifier.unify(b.shape[d], a.shape[d]);
    if (!same) {
      diags.error(stmt->loc, "'" + name + "' is " + show(b, scope) +
                                 " after an iteration of the loop over '" +
                                 range.var + "' but " + show(a, scope) +
                                 " before it: a loop with bounds known only "
                                 "where the model is instantiated must keep "
                                 "the shapes of the variables it reassigns");
      diags.note(beforeLocs[name], "'" + name + "' is defined here");
    }
  }
  // Names first assigned in the body are the body's own.
  scope.locals = std::move(before);
  scope.localLocs = std::move(beforeLocs);
  scope.graphs.resize(std::min(graphs, scope.graphs.size()));
}

void Sema::checkLayerList(const SubLayerDecl &decl,
                          const ComprehensionExpr &list, ModuleInfo &info,
                          Scope &scope) {
  const LoopRange &range = list.range;
  bool ok = checkLoopRange(range, scope);
  ok &= checkLoopVariable(range, scope);
  if (!ok)
    return;
  Type index = Type::scalar(TypeKind::Int);
  index.intValue = Dim::symbol(range.var);
  scope.locals[range.var] = index;
  scope.localLocs[range.var] = range.varLoc;
  std::optional<SubLayerInfo> sub =
      checkLayerInstance(list.element.get(), decl.name, decl.loc, scope);
  scope.locals.erase(range.var);
  scope.localLocs.erase(range.var);
  if (!sub)
    return;
  // Sizes may not depend on the index: a call `convs[i](...)` is checked once
  // for every layer of the list.
  for (size_t p = 0; p < sub->layer->params.size(); ++p) {
    auto binding = sub->dimBindings.find(sub->layer->params[p].name);
    if (binding == sub->dimBindings.end())
      continue;
    std::vector<std::string> symbols = binding->second.symbols();
    if (std::find(symbols.begin(), symbols.end(), range.var) == symbols.end())
      continue;
    const Expr *arg = p < sub->args.size() ? sub->args[p] : nullptr;
    diags.error(arg ? arg->loc : decl.loc,
                "argument '" + sub->layer->params[p].name + "' of '" +
                    sub->layer->name + "' sizes a tensor, so it cannot depend "
                    "on '" + range.var + "': the layers of list '" +
                    decl.name + "' must share their sizes");
    return;
  }
  sub->list = &range;
  info.subLayers[decl.name] = std::move(*sub);
}

Type Sema::checkLayerListCall(CallExpr *expr, IndexExpr *callee,
                              const std::string &member, Scope &scope) {
  const SubLayerInfo &sub = scope.module->subLayers[member];
  if (!sub.layer)
    return Type::error(); // The member's declaration was already diagnosed.
  if (!sub.list) {
    diags.error(callee->loc, "'" + member +
                                 "' is one layer, not a list of layers: call "
                                 "it as " +
                                 member + "(...)");
    return Type::error();
  }
  if (callee->indices.size() != 1) {
    diags.error(callee->loc, "a list of layers takes one index: " + member +
                                 "[i]");
    return Type::error();
  }
  Expr *indexExpr = callee->indices[0].get();
  Type index = checkExpr(indexExpr, scope);
  if (index.isError())
    return Type::error();
  if (index.kind != TypeKind::Int || !index.intValue) {
    diags.error(indexExpr->loc,
                "the index of a list of layers must be an integer known at "
                "compile time (a literal or a loop variable), got " +
                    show(index, scope));
    return Type::error();
  }
  // An index and bounds all known here are checked here; the rest where the
  // loop is unrolled.
  const LoopRange &range = *sub.list;
  const Type *begin = range.begin ? &range.begin->type : nullptr;
  const Type &end = range.end->type;
  if (index.intValue->isConstant() && end.intValue &&
      end.intValue->isConstant() &&
      (!begin || (begin->intValue && begin->intValue->isConstant()))) {
    int64_t i = index.intValue->constantValue();
    int64_t count = end.intValue->constantValue() -
                    (begin ? begin->intValue->constantValue() : 0);
    if (i < 0 || i >= count) {
      diags.error(indexExpr->loc, "index " + std::to_string(i) +
                                      " is out of range for '" + member +
                                      "', a list of " + std::to_string(count) +
                                      " layers");
      return Type::error();
    }
  }
  return checkLayerCall(expr, member, scope);
}
