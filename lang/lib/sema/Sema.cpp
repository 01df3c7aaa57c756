//===- Sema.cpp - Declarations and modules --------------------------------===//
//
// Global names first (so order in the file does not matter), then datasets,
// every layer and model (each once; sub-layers before their users, with cycle
// detection), then train blocks (SemaTrain.cpp). Errors are reported and
// checking goes on with an Error type, which silences follow-on diagnostics.
//
//===----------------------------------------------------------------------===//
#include "SemaImpl.h"

#include <algorithm>

using namespace gnn::lang;

//===----------------------------------------------------------------------===//
// Unifier
//===----------------------------------------------------------------------===//

Dim Unifier::resolve(const Dim &dim) const {
  Dim d = dim;
  // Bound values may mention symbols bound later; a few rounds reach the
  // fixpoint (binding never creates cycles: unify checks occurrence).
  for (int i = 0; i < 8 && !bound.empty(); ++i) {
    Dim next = d.substitute(bound);
    if (next == d)
      break;
    d = next;
  }
  return d;
}

Type Unifier::resolve(const Type &type) const {
  Type t = type;
  for (Dim &d : t.shape)
    d = resolve(d);
  if (t.intValue)
    t.intValue = resolve(*t.intValue);
  if (t.graph) {
    auto g = std::make_shared<GraphShape>(*t.graph);
    g->src = resolve(g->src);
    g->dst = resolve(g->dst);
    g->edges = resolve(g->edges);
    g->graphs = resolve(g->graphs);
    g->pairs = resolve(g->pairs);
    t.graph = g;
  }
  if (t.listElement)
    t.listElement = std::make_shared<Type>(resolve(*t.listElement));
  return t;
}

bool Unifier::unify(const Dim &a, const Dim &b) {
  Dim ra = resolve(a), rb = resolve(b);
  if (ra == rb)
    return true;
  auto bind = [&](const Dim &var, const Dim &value) {
    std::optional<std::string> name = var.asSymbol();
    if (!name || !flexible.count(*name) || bound.count(*name))
      return false;
    std::vector<std::string> syms = value.symbols();
    if (std::find(syms.begin(), syms.end(), *name) != syms.end())
      return false;
    bound[*name] = value;
    return true;
  };
  // Bind a callee's fresh copy (`N'1`) rather than the caller's own name, so
  // types shown to the user keep the names the user wrote (`x.rows`).
  auto isFresh = [](const Dim &d) {
    std::optional<std::string> s = d.asSymbol();
    return s && s->find('\'') != std::string::npos;
  };
  if (isFresh(rb) && !isFresh(ra))
    return bind(rb, ra) || bind(ra, rb);
  return bind(ra, rb) || bind(rb, ra);
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

bool gnn::lang::runSema(const std::vector<Program *> &programs,
                        const std::vector<std::string> &importAliases,
                        SemaResult &result, DiagnosticEngine &diags) {
  unsigned before = diags.errorCount();
  Sema sema(result, diags, importAliases);
  sema.run(programs);
  return diags.errorCount() == before;
}

void Sema::run(const std::vector<Program *> &programs) {
  declareGlobals(programs);
  // find, not operator[]: a name taken by another kind of declaration
  // (`dataset n` and `layer n`) must not leave a null entry in the tables.
  for (Program *p : programs)
    for (const DatasetDecl &d : p->datasets)
      if (auto it = result.datasets.find(d.name);
          it != result.datasets.end() && it->second == &d)
        checkDataset(d);
  for (Program *p : programs)
    for (const auto &m : p->modules)
      if (auto it = result.modules.find(m->name);
          it != result.modules.end() && it->second == m.get())
        checkModule(*m);
  // Train blocks of the main file only: imported files are libraries.
  if (!programs.empty())
    for (const TrainDecl &t : programs.front()->trains)
      checkTrain(t);
}

void Sema::declareGlobals(const std::vector<Program *> &programs) {
  std::map<std::string, SourceLoc> defined;
  auto declare = [&](const std::string &name, SourceLoc loc, const char *what) {
    auto [it, inserted] = defined.emplace(name, loc);
    if (inserted)
      return true;
    diags.error(loc,
                std::string("redefinition of ") + what + " '" + name + "'");
    diags.note(it->second, "previous definition is here");
    return false;
  };
  for (Program *p : programs) {
    for (const DatasetDecl &d : p->datasets)
      if (declare(d.name, d.loc, "dataset"))
        result.datasets[d.name] = &d;
    for (const auto &m : p->modules)
      if (declare(m->name, m->loc, m->kindName()))
        result.modules[m->name] = m.get();
  }
}

void Sema::noteDefinition(const ModuleDecl *decl) {
  if (decl)
    diags.note(decl->loc, std::string(decl->kindName()) + " '" + decl->name +
                              "' is defined here");
}

//===----------------------------------------------------------------------===//
// Datasets
//===----------------------------------------------------------------------===//

void Sema::checkDatasetCounts(const CallExpr *call, const Builtin &builtin) {
  // The least each count of a dataset source may be: a graph has a node, a
  // task a class; the rest may be 0 (no edges, features or learned rows).
  static const std::map<std::string, int64_t> kLeast = {
      {"nodes", 1}, {"classes", 1}, {"edges", 0},
      {"features", 0}, {"embed", 0}, {"seed", 0}};
  const BuiltinCall &bound = result.builtinCalls[call];
  for (size_t i = 0; i < builtin.params.size(); ++i) {
    const Expr *arg = bound.args[i];
    auto least = kLeast.find(builtin.params[i].name);
    if (!arg || least == kLeast.end() || !arg->type.intValue ||
        !arg->type.intValue->isConstant())
      continue;
    int64_t value = arg->type.intValue->constantValue();
    if (value < least->second)
      diags.error(arg->loc, std::string("'") + builtin.params[i].name +
                                "' of '" + builtin.name + "' must be " +
                                (least->second > 0 ? "a positive"
                                                   : "a non-negative") +
                                " integer, got " + std::to_string(value));
  }
}

void Sema::checkDataset(const DatasetDecl &decl) {
  if (decl.poisoned)
    return; // Its syntax error was reported.
  auto *call = dyn_cast<CallExpr>(decl.source.get());
  auto *callee = call ? dyn_cast<NameExpr>(call->callee.get()) : nullptr;
  const Builtin *builtin =
      callee ? lookupBuiltin(callee->name, BuiltinContext::DatasetSource)
             : nullptr;
  if (!builtin) {
    if (decl.source)
      diags.error(decl.source->loc, "dataset '" + decl.name +
                                        "' must come from ogb(...), npy(...), "
                                        "generate(...), tu(...), ogbg(...) "
                                        "or kg(...)");
  } else {
    Scope scope;
    if (!checkBuiltinCall(call, *builtin, scope).isError())
      checkDatasetCounts(call, *builtin);
  }
  std::map<std::string, SourceLoc> types;
  for (const NodeTypeDecl &n : decl.nodeTypes) {
    auto [it, inserted] = types.emplace(n.name, n.loc);
    if (!inserted) {
      diags.error(n.loc, "node type '" + n.name + "' is declared twice");
      diags.note(it->second, "previous declaration is here");
    }
  }
  std::map<std::string, SourceLoc> relations;
  for (const RelationDecl &r : decl.relations) {
    auto [it, inserted] = relations.emplace(r.name, r.loc);
    if (!inserted) {
      diags.error(r.loc, "relation '" + r.name + "' is declared twice");
      diags.note(it->second, "previous declaration is here");
    }
    if (!types.count(r.srcType))
      diags.error(r.srcLoc, "unknown node type '" + r.srcType +
                                "' in relation '" + r.name + "'");
    if (!types.count(r.dstType))
      diags.error(r.dstLoc, "unknown node type '" + r.dstType +
                                "' in relation '" + r.name + "'");
  }
}

//===----------------------------------------------------------------------===//
// Types as written
//===----------------------------------------------------------------------===//

Type Sema::scalarTypeNamed(const std::string &name, SourceLoc loc) {
  static const std::map<std::string, TypeKind> kinds = {
      {"int", TypeKind::Int},
      {"float", TypeKind::Float},
      {"bool", TypeKind::Bool},
      {"string", TypeKind::String},
      {"graph", TypeKind::Graph}};
  auto it = kinds.find(name);
  if (it != kinds.end())
    return Type::scalar(it->second);
  // A layer parameter choosing an aggregation: `aggr: reduce = mean`.
  if (name == "reduce")
    return Type::named(TypeKind::Symbol, "reduce");
  diags.error(loc, withSuggestion(
                       "unknown type '" + name + "'", name,
                       {"int", "float", "bool", "string", "graph", "reduce"}));
  return Type::error();
}

Type Sema::resolveTypeRef(const TypeRef &ref, Scope &scope) {
  if (ref.kind == TypeRef::Kind::Named)
    return scalarTypeNamed(ref.name, ref.loc);
  std::vector<Dim> shape;
  bool ok = true;
  for (const ExprPtr &d : ref.dims) {
    std::optional<Dim> dim = resolveDim(d.get(), scope);
    if (!dim) {
      ok = false;
      continue;
    }
    if (dim->isConstant() && dim->constantValue() <= 0) {
      diags.error(d->loc,
                  "tensor dimension must be positive, got " + dim->str());
      ok = false;
      continue;
    }
    shape.push_back(*dim);
  }
  return ok ? Type::tensor(std::move(shape)) : Type::error();
}

bool Sema::isAssignable(const Type &expected, const Type &actual) {
  if (expected.kind == TypeKind::Float && actual.kind == TypeKind::Int)
    return true;
  if (expected.kind != actual.kind)
    return false;
  if (expected.kind == TypeKind::Symbol && expected.name == "reduce")
    return actual.name == "reduce" ||
           isBuiltinSymbol(actual.name, SymbolCategory::Reduce);
  return true;
}

//===----------------------------------------------------------------------===//
// Call argument binding
//===----------------------------------------------------------------------===//

bool Sema::bindArgs(const std::string &callee, SourceLoc loc,
                    const std::vector<std::string> &paramNames,
                    const std::vector<bool> &required,
                    const std::vector<Arg> &args,
                    std::vector<const Expr *> &bound) {
  bound.assign(paramNames.size(), nullptr);
  bool ok = true, seenNamed = false;
  size_t position = 0;
  for (const Arg &arg : args) {
    if (arg.name.empty()) {
      if (seenNamed) {
        diags.error(arg.value->loc, "positional argument after a named "
                                    "argument in call to '" +
                                        callee + "'");
        ok = false;
        continue;
      }
      if (position >= paramNames.size()) {
        diags.error(arg.value->loc, "too many arguments to '" + callee +
                                        "': expected at most " +
                                        std::to_string(paramNames.size()) +
                                        ", got " + std::to_string(args.size()));
        return false;
      }
      bound[position++] = arg.value.get();
      continue;
    }
    seenNamed = true;
    auto it = std::find(paramNames.begin(), paramNames.end(), arg.name);
    if (it == paramNames.end()) {
      diags.error(arg.nameLoc,
                  withSuggestion("'" + callee + "' has no parameter named '" +
                                     arg.name + "'",
                                 arg.name, paramNames));
      ok = false;
      continue;
    }
    size_t index = it - paramNames.begin();
    if (bound[index]) {
      diags.error(arg.nameLoc, "argument '" + arg.name + "' of '" + callee +
                                   "' is given more than once");
      ok = false;
      continue;
    }
    bound[index] = arg.value.get();
  }
  for (size_t i = 0; i < paramNames.size(); ++i)
    if (required[i] && !bound[i]) {
      diags.error(loc, "missing argument '" + paramNames[i] + "' in call to '" +
                           callee + "'");
      ok = false;
    }
  return ok;
}

bool Sema::bindArgs(const std::string &callee, SourceLoc loc,
                    const std::vector<FormalParam> &params,
                    const std::vector<Arg> &args,
                    std::vector<const Expr *> &bound) {
  std::vector<std::string> names;
  std::vector<bool> required;
  for (const FormalParam &p : params) {
    names.push_back(p.name);
    required.push_back(!p.defaultValue);
  }
  return bindArgs(callee, loc, names, required, args, bound);
}

//===----------------------------------------------------------------------===//
// Layers and models
//===----------------------------------------------------------------------===//

ModuleInfo &Sema::checkModule(const ModuleDecl &decl) {
  ModuleInfo &info = result.moduleInfo[&decl];
  if (info.state != ModuleInfo::State::Unchecked)
    return info;
  info.decl = &decl;
  info.state = ModuleInfo::State::InProgress;
  info.forwardResult = Type::error();
  // Its header did not parse: what it declares is unknown, so nothing in it
  // or about it is reported.
  if (decl.poisoned) {
    info.state = ModuleInfo::State::Done;
    return info;
  }

  Scope scope;
  scope.module = &info;
  // Member names share one namespace.
  std::map<std::string, SourceLoc> members;
  auto declare = [&](const std::string &name, SourceLoc loc) {
    auto [it, inserted] = members.emplace(name, loc);
    if (!inserted) {
      diags.error(loc, "redefinition of '" + name + "' in " + decl.kindName() +
                           " '" + decl.name + "'");
      diags.note(it->second, "previous definition is here");
    }
    return inserted;
  };

  for (const FormalParam &p : decl.params) {
    declare(p.name, p.loc);
    Type type =
        p.type ? resolveTypeRef(*p.type, scope) : Type::scalar(TypeKind::Int);
    if (p.defaultValue) {
      Type def = checkExpr(p.defaultValue.get(), scope);
      if (!p.type && !def.isError())
        type = def.kind == TypeKind::Symbol &&
                       isBuiltinSymbol(def.name, SymbolCategory::Reduce)
                   ? Type::named(TypeKind::Symbol, "reduce")
                   : Type::scalar(def.kind);
      bool compatible =
          def.isError() || type.isError() || isAssignable(type, def);
      if (!compatible)
        diags.error(p.defaultValue->loc, "default value of '" + p.name +
                                             "' has type " + def.str() +
                                             ", expected " + type.str());
      // Integer parameters are sizes (they become dims, as in
      // `[heads, out]`), and an argument must be positive (checked where a
      // layer is instantiated): so must a default, which no call checks.
      else if (type.kind == TypeKind::Int && def.intValue &&
               def.intValue->isConstant() && def.intValue->constantValue() <= 0)
        diags.error(p.defaultValue->loc, "default value of '" + p.name +
                                             "' must be positive, got " +
                                             def.intValue->str());
    }
    if (type.kind == TypeKind::Tensor || type.kind == TypeKind::Graph) {
      diags.error(p.loc, std::string(decl.kindName()) + " parameter '" +
                             p.name +
                             "' must be an int, float, bool or string; tensors "
                             "and graphs are forward arguments");
      type = Type::error();
    }
    if (type.kind == TypeKind::Int)
      type.intValue = Dim::symbol(p.name);
    info.paramTypes.push_back(type);
  }

  for (const WeightDecl &w : decl.weights) {
    declare(w.name, w.loc);
    Type type = resolveTypeRef(w.type, scope);
    if (!type.isError() && !type.isTensor()) {
      diags.error(w.type.loc,
                  "parameter '" + w.name +
                      "' must have a tensor type such as [in, out]");
      type = Type::error();
    }
    info.weightTypes[w.name] = type;
    if (!w.init)
      continue;
    const Expr *init = w.init.get();
    if (auto *name = dyn_cast<NameExpr>(init)) {
      if (!isBuiltinSymbol(name->name, SymbolCategory::Initializer))
        diags.error(init->loc,
                    "unknown initializer '" + name->name + "'; expected " +
                        builtinSymbolList(SymbolCategory::Initializer) +
                        ", uniform(...), normal(...) or constant(...)");
    } else if (auto *call = dyn_cast<CallExpr>(const_cast<Expr *>(init))) {
      auto *callee = dyn_cast<NameExpr>(call->callee.get());
      const Builtin *b =
          callee ? lookupBuiltin(callee->name, BuiltinContext::Initializer)
                 : nullptr;
      if (b)
        checkBuiltinCall(call, *b, scope);
      else
        diags.error(init->loc,
                    "unknown initializer; expected " +
                        builtinSymbolList(SymbolCategory::Initializer) +
                        ", uniform(...), normal(...) or constant(...)");
    } else {
      diags.error(init->loc, "initializer of '" + w.name +
                                 "' must be a name such as glorot or a call "
                                 "such as uniform(-0.1, 0.1)");
    }
  }

  for (const SubLayerDecl &s : decl.subLayers) {
    declare(s.name, s.loc);
    checkSubLayer(s, info, scope);
  }
  // Members whose syntax error was reported: declared with an error type,
  // so neither their uses nor a later definition of the name report more.
  for (const auto &[name, loc] : decl.poisonedMembers)
    if (members.emplace(name, loc).second)
      info.weightTypes.emplace(name, Type::error());

  // A member lost to a syntax error may have been the forward.
  if (!decl.forward && !decl.lostMembers)
    diags.error(decl.loc, std::string(decl.kindName()) + " '" + decl.name +
                              "' has no forward");
  else if (decl.forward && !decl.forward->poisoned)
    checkForward(info, scope);
  // The defaults of dropout probabilities (arguments are checked where the
  // module is instantiated).
  for (const FormalParam &p : decl.params)
    if (auto use = info.dropoutParams.find(p.name);
        use != info.dropoutParams.end() && p.defaultValue)
      checkDropoutArgument(p.defaultValue.get(), p.defaultValue->type,
                           use->second, scope);
  info.state = ModuleInfo::State::Done;
  return info;
}

void Sema::checkDropoutArgument(const Expr *value, const Type &type,
                                SourceLoc use, Scope &scope) {
  std::optional<double> p = type.floatValue;
  if (!p && type.intValue && type.intValue->isConstant())
    p = static_cast<double>(type.intValue->constantValue());
  if (p) {
    if (*p < 0 || *p >= 1) {
      diags.error(value->loc, "dropout probability must be in [0, 1), got " +
                                  std::to_string(*p));
      diags.note(use, "used as a dropout probability here");
    }
    return;
  }
  auto *name = dyn_cast<NameExpr>(value);
  if (!name || !scope.module || scope.locals.count(name->name))
    return;
  for (const FormalParam &param : scope.module->decl->params)
    if (param.name == name->name)
      scope.module->dropoutParams.emplace(param.name, use);
}

void Sema::checkSubLayer(const SubLayerDecl &decl, ModuleInfo &info,
                         Scope &scope) {
  // A member that failed to check is still declared (layer = null), so uses
  // of it are silent instead of "undeclared name" cascades.
  info.subLayers[decl.name] = SubLayerInfo();
  if (!decl.value)
    return; // Its syntax error was reported.
  if (auto *list = dyn_cast<ComprehensionExpr>(decl.value.get())) {
    checkLayerList(decl, *list, info, scope);
    return;
  }
  if (std::optional<SubLayerInfo> sub =
          checkLayerInstance(decl.value.get(), decl.name, decl.loc, scope))
    info.subLayers[decl.name] = std::move(*sub);
}

std::optional<SubLayerInfo> Sema::checkLayerInstance(const Expr *value,
                                                     const std::string &name,
                                                     SourceLoc loc,
                                                     Scope &scope) {
  auto *call = dyn_cast<CallExpr>(const_cast<Expr *>(value));
  const ModuleDecl *layer =
      call ? lookupModuleName(call->callee.get()) : nullptr;
  if (!layer) {
    if (call && call->callee) {
      // Name the missing layer precisely.
      if (auto *name = dyn_cast<NameExpr>(call->callee.get())) {
        std::vector<std::string> names;
        for (const auto &[n, m] : result.modules)
          names.push_back(n);
        diags.error(name->loc,
                    withSuggestion("unknown layer '" + name->name + "'",
                                   name->name, names));
        return std::nullopt;
      }
      // `nn.Missing(...)`: checking the callee names the missing layer.
      if (isa<MemberExpr>(call->callee.get()) &&
          checkExpr(call->callee.get(), scope).isError())
        return std::nullopt;
    }
    diags.error(value ? value->loc : loc,
                "member '" + name +
                    "' must be a layer instance such as Linear(16, 7)");
    return std::nullopt;
  }
  ModuleInfo &callee = result.moduleInfo[layer];
  if (callee.state == ModuleInfo::State::InProgress) {
    diags.error(call->loc, std::string(layer->kindName()) + " '" + layer->name +
                               "' contains itself");
    noteDefinition(layer);
    return std::nullopt;
  }
  checkModule(*layer);
  if (layer->poisoned)
    return std::nullopt; // Its header's syntax error was reported.
  SubLayerInfo sub;
  sub.layer = layer;
  if (!bindArgs(layer->name, call->loc, layer->params, call->args, sub.args)) {
    noteDefinition(layer);
    return std::nullopt;
  }
  bool argsOk = true;
  for (size_t i = 0; i < sub.args.size(); ++i) {
    const FormalParam &p = layer->params[i];
    const Type &expected = callee.paramTypes[i];
    if (!sub.args[i]) {
      sub.args[i] = p.defaultValue.get();
      if (expected.kind == TypeKind::Int && sub.args[i] &&
          sub.args[i]->type.intValue)
        sub.dimBindings[p.name] = *sub.args[i]->type.intValue;
      continue;
    }
    Type actual = checkExpr(const_cast<Expr *>(sub.args[i]), scope);
    if (actual.isError() || expected.isError()) {
      argsOk = false;
      continue;
    }
    if (!isAssignable(expected, actual)) {
      argsOk = false;
      diags.error(sub.args[i]->loc,
                  "argument '" + p.name + "' of '" + layer->name +
                      "' expects " + expected.str() + ", got " + actual.str());
      continue;
    }
    if (auto use = callee.dropoutParams.find(p.name);
        use != callee.dropoutParams.end())
      checkDropoutArgument(sub.args[i], actual, use->second, scope);
    if (expected.kind == TypeKind::Int && actual.intValue) {
      if (actual.intValue->isConstant() &&
          actual.intValue->constantValue() <= 0)
        diags.error(sub.args[i]->loc,
                    "argument '" + p.name + "' of '" + layer->name +
                        "' must be positive, got " + actual.intValue->str());
      sub.dimBindings[p.name] = *actual.intValue;
    }
  }
  if (argsOk && !checkQuotientDims(*layer, callee, sub, call->loc))
    argsOk = false;
  if (!argsOk)
    return std::nullopt;
  return sub;
}

bool Sema::checkQuotientDims(const ModuleDecl &layer, const ModuleInfo &callee,
                             const SubLayerInfo &sub, SourceLoc loc) {
  // A parameter sized `in / blocks` needs arguments that divide.
  for (const auto &[weight, type] : callee.weightTypes)
    for (const Dim &d : type.shape)
      if (auto q = d.substitute(sub.dimBindings).indivisibleQuotient()) {
        diags.error(loc, "parameter '" + weight + "' of '" + layer.name +
                             "' has a dimension " + d.str() + ", but " +
                             std::to_string(q->first) +
                             " is not divisible by " +
                             std::to_string(q->second));
        noteDefinition(&layer);
        return false;
      }
  return true;
}

void Sema::checkForward(ModuleInfo &info, Scope &scope) {
  const ModuleDecl &decl = *info.decl;
  const ForwardDecl &fwd = *decl.forward;
  scope.inForward = true;

  // Signature: free dimension names become inferred symbols.
  scope.inSignature = true;
  for (size_t i = 0; i < fwd.params.size(); ++i) {
    const FormalParam &p = fwd.params[i];
    if (scope.locals.count(p.name)) {
      diags.error(p.loc, "duplicate forward parameter '" + p.name + "'");
      diags.note(scope.localLocs[p.name], "previous definition is here");
      continue;
    }
    Type type;
    if (p.type) {
      type = resolveTypeRef(*p.type, scope);
    } else if (decl.isModel && i == 0) {
      type = Type::scalar(TypeKind::Graph);
    } else if (decl.isModel) {
      // Untyped model inputs: rows and width inferred from use.
      std::string rows = p.name + ".rows", cols = p.name + ".width";
      scope.unifier.addFlexible(rows);
      scope.unifier.addFlexible(cols);
      info.freeSymbols.insert(rows);
      info.freeSymbols.insert(cols);
      type = Type::tensor({Dim::symbol(rows), Dim::symbol(cols)});
    } else {
      diags.error(p.loc, "forward parameter '" + p.name + "' of layer '" +
                             decl.name +
                             "' needs a type, such as graph or [N, in]");
      type = Type::error();
    }
    if (type.kind == TypeKind::Graph) {
      auto shape = std::make_shared<GraphShape>();
      shape->name = p.name;
      shape->isLayered = decl.isModel;
      if (decl.isModel) {
        shape->src = shape->dst = Dim::symbol(p.name + ".nodes");
      } else {
        shape->src = Dim::symbol(p.name + ".src");
        shape->dst = Dim::symbol(p.name + ".dst");
      }
      shape->edges = Dim::symbol(p.name + ".edges");
      shape->graphs = Dim::symbol(p.name + ".graphs");
      shape->pairs = Dim::symbol(p.name + ".pairs");
      type.graph = shape;
      scope.graphs.push_back(p.name);
    }
    scope.locals[p.name] = type;
    scope.localLocs[p.name] = p.loc;
    info.forwardParamTypes.push_back(type);
  }
  std::optional<Type> declared;
  if (fwd.result)
    declared = resolveTypeRef(*fwd.result, scope);
  scope.inSignature = false;

  bool returned = false;
  checkStatements(fwd.body, info, scope, declared, returned);
  if (!returned)
    diags.error(fwd.loc,
                "forward of '" + decl.name + "' does not return a value");

  // Publish shapes with every inferred symbol substituted.
  for (Expr *e : scope.typedExprs)
    e->type = scope.unifier.resolve(e->type);
  for (Type &t : info.forwardParamTypes)
    t = scope.unifier.resolve(t);
  info.forwardResult = scope.unifier.resolve(info.forwardResult);
  // A free name that use bound to something else is no longer free.
  for (const std::string &s : std::set<std::string>(info.freeSymbols))
    if (scope.unifier.resolve(Dim::symbol(s)).asSymbol() != s)
      info.freeSymbols.erase(s);
}

void Sema::checkStatements(const std::vector<Stmt> &body, ModuleInfo &info,
                           Scope &scope, const std::optional<Type> &declared,
                           bool &returned) {
  const ModuleDecl &decl = *info.decl;
  for (const Stmt &stmt : body) {
    if (returned) {
      diags.warning(stmt.loc, "code after return is never executed");
      break;
    }
    if (stmt.kind == Stmt::Kind::For) {
      checkFor(stmt, info, scope, declared);
      continue;
    }
    Type value = checkExpr(stmt.value.get(), scope);
    if (stmt.kind == Stmt::Kind::Return) {
      if (scope.loopDepth) {
        diags.error(stmt.loc, "return inside a for loop: a forward returns "
                              "once, after its loops");
        continue;
      }
      returned = true;
      if (declared && !declared->isError() && !value.isError()) {
        if (!value.isTensor() || value.rank() != declared->rank()) {
          diags.error(stmt.value->loc, "forward of '" + decl.name +
                                           "' returns " + show(value, scope) +
                                           ", declared " +
                                           show(*declared, scope));
        } else {
          for (size_t d = 0; d < value.rank(); ++d)
            unifyOrError(value.shape[d], declared->shape[d], stmt.value->loc,
                         "dimension " + std::to_string(d) +
                             " of the result of '" + decl.name + "'",
                         scope);
        }
      }
      info.forwardResult = declared ? *declared : value;
      continue;
    }
    if (stmt.type && !value.isError()) {
      Type annotated = resolveTypeRef(*stmt.type, scope);
      if (!annotated.isError() && value.isTensor() && annotated.isTensor() &&
          value.rank() == annotated.rank()) {
        for (size_t d = 0; d < value.rank(); ++d)
          unifyOrError(value.shape[d], annotated.shape[d], stmt.value->loc,
                       "dimension " + std::to_string(d) + " of '" + stmt.name +
                           "'",
                       scope);
      } else if (!annotated.isError()) {
        diags.error(stmt.value->loc, "'" + stmt.name + "' is declared " +
                                         show(annotated, scope) +
                                         " but its value is " +
                                         show(value, scope));
      }
    }
    // A poisoned statement (no value) reported its syntax error already.
    if (stmt.value && (info.weightTypes.count(stmt.name) ||
                       info.subLayers.count(stmt.name))) {
      diags.error(stmt.loc, "cannot assign to member '" + stmt.name + "'");
      continue;
    }
    if (scope.loopVariables.count(stmt.name)) {
      diags.error(stmt.loc,
                  "cannot assign to loop variable '" + stmt.name + "'");
      continue;
    }
    scope.locals[stmt.name] = value;
    scope.localLocs[stmt.name] = stmt.loc;
    if (value.kind == TypeKind::Graph)
      scope.graphs.push_back(stmt.name);
  }
}
