//===- MLIRGen.cpp - Typed AST to the gnn dialect -------------------------===//
//
// A partial evaluator over the typed AST: integer and float parameters are
// evaluated away (they size tensors and set attributes), tensors become SSA
// values, and each call of a sub-layer inlines the sub-layer's forward under
// an environment binding its parameters. Result types come from Sema's
// symbolic shapes with the environment substituted: a dimension that becomes a
// constant is static, anything else (dataset and graph sizes) is `?`.
//
//===----------------------------------------------------------------------===//
#include "gnn/MLIRGen/MLIRGen.h"

#include "Generator.h"
#include "TrainAttributes.h"

#include "gnn/Dialect/GNN/GNNDialect.h"
#include "gnn/Dialect/GNN/GNNOps.h"
#include "gnn/Dialect/GNN/GNNTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

using namespace gnn::lang;
using mlir::Location;
using mlir::Value;

using namespace gnn::mlirgen::detail;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Location Generator::loc(SourceLoc l, const Env &env) {
  Location fileLoc = l.isValid()
                         ? Location(mlir::FileLineColLoc::get(
                               &context, compilation.sources().name(l.fileId),
                               l.line, l.column))
                         : Location(mlir::UnknownLoc::get(&context));
  if (env.callSite)
    return mlir::CallSiteLoc::get(fileLoc, *env.callSite);
  return fileLoc;
}

Dim Generator::globalDim(const Dim &dim, const Env &env) {
  return dim.substitute(env.dims);
}

mlir::RankedTensorType Generator::tensorType(const Type &type, const Env &env) {
  llvm::SmallVector<int64_t> shape;
  for (const Dim &d : type.shape) {
    Dim g = globalDim(d, env);
    shape.push_back(g.isConstant() ? g.constantValue()
                                   : mlir::ShapedType::kDynamic);
  }
  return mlir::RankedTensorType::get(shape, builder.getF32Type());
}

std::pair<const Expr *, const Env *>
Generator::resolveParam(const std::string &name, const Env &env) {
  auto it = env.args.find(name);
  if (it == env.args.end() || !it->second)
    return {nullptr, nullptr};
  return {it->second, env.parent ? env.parent : &env};
}

/// The constant an environment binds `name` to (a loop's index, an integer
/// parameter), if any.
static std::optional<int64_t> boundConstant(const std::string &name,
                                            const Env &env) {
  auto it = env.dims.find(name);
  if (it == env.dims.end() || !it->second.isConstant())
    return std::nullopt;
  return it->second.constantValue();
}

double Generator::evalFloat(const Expr *expr, const Env &env) {
  if (auto *f = dyn_cast<FloatExpr>(expr))
    return f->value;
  if (auto *i = dyn_cast<IntExpr>(expr))
    return static_cast<double>(i->value);
  if (auto *n = dyn_cast<NameExpr>(expr)) {
    auto [arg, argEnv] = resolveParam(n->name, env);
    if (arg)
      return evalFloat(arg, *argEnv);
    if (std::optional<int64_t> value = boundConstant(n->name, env))
      return static_cast<double>(*value);
  }
  if (auto *neg = dyn_cast<NegExpr>(expr))
    return -evalFloat(neg->operand.get(), env);
  // `log(lambda / (i + 1) + 1)`: maths on numbers (Sema's checkScalarMath).
  if (auto *call = dyn_cast<CallExpr>(expr))
    if (auto *callee = dyn_cast<NameExpr>(call->callee.get()))
      if (const Builtin *b = lookupBuiltin(callee->name, BuiltinContext::Forward))
        if (call->args.size() == 1 && isScalarFoldable(b->op))
          return *foldScalarBuiltin(b->op,
                                    evalFloat(call->args[0].value.get(), env));
  if (auto *b = dyn_cast<BinaryExpr>(expr)) {
    double l = evalFloat(b->lhs.get(), env), r = evalFloat(b->rhs.get(), env);
    switch (b->op) {
    case BinaryOp::Add:
      return l + r;
    case BinaryOp::Sub:
      return l - r;
    case BinaryOp::Mul:
      return l * r;
    case BinaryOp::Div:
      return l / r;
    default:
      break;
    }
  }
  if (expr->type.intValue) {
    Dim d = globalDim(*expr->type.intValue, env);
    if (d.isConstant())
      return static_cast<double>(d.constantValue());
  }
  if (expr->type.floatValue)
    return *expr->type.floatValue;
  fail(expr->loc, "expected a number known at compile time");
  return 0;
}

int64_t Generator::evalInt(const Expr *expr, const Env &env) {
  // Names and arithmetic are evaluated here, not read from their types: a
  // loop Sema checks once per iteration leaves its last iteration's
  // constants in the types of its body.
  if (auto *i = dyn_cast<IntExpr>(expr))
    return i->value;
  if (auto *n = dyn_cast<NameExpr>(expr))
    if (std::optional<int64_t> value = boundConstant(n->name, env))
      return *value;
  if (auto *neg = dyn_cast<NegExpr>(expr))
    return -evalInt(neg->operand.get(), env);
  if (auto *b = dyn_cast<BinaryExpr>(expr)) {
    if (b->op == BinaryOp::Add)
      return evalInt(b->lhs.get(), env) + evalInt(b->rhs.get(), env);
    if (b->op == BinaryOp::Sub)
      return evalInt(b->lhs.get(), env) - evalInt(b->rhs.get(), env);
    if (b->op == BinaryOp::Mul)
      return evalInt(b->lhs.get(), env) * evalInt(b->rhs.get(), env);
  }
  if (expr->type.intValue) {
    Dim d = globalDim(*expr->type.intValue, env);
    if (d.isConstant())
      return d.constantValue();
  }
  fail(expr->loc, "expected an integer known at compile time");
  return 0;
}

std::string Generator::evalSymbol(const Expr *expr, const Env &env) {
  auto *n = dyn_cast<NameExpr>(expr);
  if (!n)
    return {};
  auto [arg, argEnv] = resolveParam(n->name, env);
  return arg ? evalSymbol(arg, *argEnv) : n->name;
}

Value Generator::scalar(double value, Location l) {
  return builder.create<gnn::ConstantOp>(l, value);
}

Value Generator::operand(const Expr *expr, Env &env) {
  if (expr->type.kind == TypeKind::Int || expr->type.kind == TypeKind::Float)
    return scalar(evalFloat(expr, env), loc(expr->loc, env));
  return emitExpr(expr, env);
}

//===----------------------------------------------------------------------===//
// Module and functions
//===----------------------------------------------------------------------===//

mlir::OwningOpRef<mlir::ModuleOp> Generator::run() {
  context.getOrLoadDialect<gnn::GNNDialect>();
  context.getOrLoadDialect<mlir::func::FuncDialect>();
  const Program *main = compilation.mainProgram();
  Location fileLoc = mlir::FileLineColLoc::get(
      &context, compilation.sources().name(main->fileId), 1, 1);
  mlir::OwningOpRef<mlir::ModuleOp> owned = mlir::ModuleOp::create(fileLoc);
  module = *owned;

  std::map<std::string, int> uses;
  if (!sema.trains.empty()) {
    for (const TrainInfo &t : sema.trains) {
      if (!t.model)
        continue;
      int n = uses[t.model->name]++;
      mlir::func::FuncOp forward = emitModel(
          *t.model, t.modelArgs,
          n ? t.model->name + "_" + std::to_string(n) : t.model->name);
      if (!forward)
        continue;
      forward->setAttr(gnn::TrainAttr::getAttrName(),
                       gnn::mlirgen::trainAttributes(
                           t, sema, compilation.sources(), builder));
      if (gnn::TrainAttr::of(forward).getLinks())
        emitPairLogits(forward);
      // A readout pools the graphs of a batch: node-level training has
      // none (Sema checked the model's result; this finds a readout whose
      // rows the model does not return).
      if (!gnn::TrainAttr::of(forward).getGraphBatches() &&
          forward.walk([](gnn::ReadoutOp) {
                   return mlir::WalkResult::interrupt();
                 }).wasInterrupted()) {
        auto it = t.settings.find("batches");
        fail(it != t.settings.end() ? it->second->loc : t.decl->loc,
             "model '" + t.model->name +
                 "' calls readout(g), which pools the graphs of a batch: "
                 "train it on a collection of graphs with batches = "
                 "graphs(batch = N)");
      }
      // Where `batches = ...` is written, for errors found by passes (a
      // fanout list that does not match the model's layers).
      if (auto it = t.settings.find("batches"); it != t.settings.end())
        forward->setAttr("gnn.batches_loc",
                         mlir::LocationAttr(loc(it->second->loc, Env{})));
    }
  } else {
    // No train block: every model of the main file that needs no arguments.
    for (const auto &m : main->modules) {
      if (!m->isModel)
        continue;
      bool defaults = true;
      std::vector<const Expr *> args;
      for (const FormalParam &p : m->params) {
        defaults &= p.defaultValue != nullptr;
        args.push_back(p.defaultValue.get());
      }
      if (defaults)
        emitModel(*m, args, m->name);
    }
  }
  if (failed || hasErrors)
    return nullptr;
  if (mlir::failed(mlir::verify(*owned))) {
    llvm::errs()
        << "gnnc: internal error: the generated module does not verify\n";
    return nullptr;
  }
  return owned;
}

void Generator::emitPairLogits(mlir::func::FuncOp forward) {
  auto ret = llvm::cast<mlir::func::ReturnOp>(
      forward.getBody().front().getTerminator());
  Value scores = ret.getOperand(0);
  Location l = ret.getLoc();
  builder.setInsertionPoint(ret);
  mlir::Type f32 = builder.getF32Type();
  auto column = mlir::RankedTensorType::get({mlir::ShapedType::kDynamic, 1},
                                            f32);
  if (llvm::cast<mlir::RankedTensorType>(scores.getType()).getRank() == 1)
    scores = builder.create<gnn::ReshapeOp>(l, column, scores);
  Value zeros = builder.create<gnn::MulOp>(l, scores.getType(), scores,
                                           scalar(0.0, l));
  auto logitsType =
      mlir::RankedTensorType::get({mlir::ShapedType::kDynamic, 2}, f32);
  Value logits = builder.create<gnn::ConcatOp>(
      l, logitsType, mlir::ValueRange{zeros, scores},
      builder.getI64IntegerAttr(1));
  ret->setOperand(0, logits);
  forward.setType(builder.getFunctionType(
      forward.getFunctionType().getInputs(), {logitsType}));
}

mlir::func::FuncOp Generator::emitModel(const ModuleDecl &model,
                                        const std::vector<const Expr *> &args,
                                        const std::string &name) {
  const ModuleInfo &info = sema.moduleInfo.at(&model);
  Env env;
  env.module = &info;
  env.prefix = name;
  for (size_t i = 0; i < model.params.size() && i < args.size(); ++i) {
    env.args[model.params[i].name] = args[i];
    if (args[i] && args[i]->type.intValue)
      env.dims[model.params[i].name] = *args[i]->type.intValue;
  }

  llvm::SmallVector<mlir::Type> inputs;
  for (const Type &t : info.forwardParamTypes)
    inputs.push_back(t.kind == TypeKind::Graph
                         ? mlir::Type(gnn::GraphType::get(&context))
                         : mlir::Type(tensorType(t, env)));
  mlir::Type result = tensorType(info.forwardResult, env);
  builder.setInsertionPointToEnd(module.getBody());
  auto func = builder.create<mlir::func::FuncOp>(
      loc(model.forward->loc, env), name + ".forward",
      builder.getFunctionType(inputs, result));
  mlir::Block *entry = func.addEntryBlock();
  for (size_t i = 0; i < model.forward->params.size(); ++i)
    env.values[model.forward->params[i].name] = entry->getArgument(i);
  builder.setInsertionPointToStart(entry);
  Value value = emitForwardBody(env);
  if (!value)
    return nullptr;
  // Static dims the signature could not know (e.g. through inference) may
  // differ only in refinement: the result type follows the body.
  if (value.getType() != result)
    func.setType(builder.getFunctionType(inputs, value.getType()));
  builder.create<mlir::func::ReturnOp>(loc(model.forward->loc, env), value);
  return func;
}

Value Generator::emitForwardBody(Env &env) {
  Value result;
  if (emitStatements(env.module->decl->forward->body, env, result))
    return result;
  fail(env.module->decl->forward->loc, "forward does not return");
  return nullptr;
}

bool Generator::emitStatements(const std::vector<Stmt> &body, Env &env,
                               Value &result) {
  for (const Stmt &stmt : body) {
    if (stmt.kind == Stmt::Kind::For) {
      if (!emitLoop(stmt, env)) {
        result = nullptr;
        return true;
      }
      continue;
    }
    Value v = emitExpr(stmt.value.get(), env);
    if (!v || stmt.kind == Stmt::Kind::Return) {
      result = v;
      return true;
    }
    // Record the variable's name, so that generated code can use it.
    mlir::Operation *def = v.getDefiningOp();
    if (def && !isa<mlir::NameLoc>(def->getLoc()))
      def->setLoc(
          mlir::NameLoc::get(builder.getStringAttr(stmt.name), def->getLoc()));
    env.values[stmt.name] = v;
  }
  return false;
}

bool Generator::emitLoop(const Stmt &loop, Env &env) {
  // Unrolling is linear in the iterations; a bound this large is a mistake
  // (a size where a count was meant), not a model.
  constexpr int64_t kMaxIterations = 4096;
  const LoopRange &range = loop.range;
  int64_t begin = range.begin ? evalInt(range.begin.get(), env) : 0;
  int64_t end = evalInt(range.end.get(), env);
  if (failed)
    return false;
  if (end - begin > kMaxIterations) {
    fail(range.end->loc, "the loop over '" + range.var + "' would unroll " +
                             std::to_string(end - begin) +
                             " iterations; at most " +
                             std::to_string(kMaxIterations) + " are allowed");
    return false;
  }
  for (int64_t i = begin; i < end; ++i) {
    env.dims[range.var] = Dim::constant(i);
    iterations.emplace_back(range.var, i);
    Value returned;
    bool stopped = emitStatements(loop.body, env, returned);
    iterations.pop_back();
    if (stopped)
      return false; // Sema rejects a return in a loop: this is a failure.
  }
  env.dims.erase(range.var);
  return true;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Value Generator::emitWeight(const std::string &name, const Expr *use,
                            Env &env) {
  const ModuleDecl &decl = *env.module->decl;
  const WeightDecl *weight = nullptr;
  for (const WeightDecl &w : decl.weights)
    if (w.name == name)
      weight = &w;
  auto type = tensorType(env.module->weightTypes.at(name), env);
  std::string symbol = env.prefix + "." + name;
  if (declaredParameters.insert(symbol).second) {
    gnn::InitKind init = gnn::InitKind::glorot;
    llvm::SmallVector<double> initArgs;
    const Expr *initExpr = weight ? weight->init.get() : nullptr;
    auto *call = dyn_cast<CallExpr>(initExpr);
    auto *initName = dyn_cast<NameExpr>(call ? call->callee.get() : initExpr);
    if (initName) {
      if (auto kind = gnn::symbolizeInitKind(initName->name))
        init = *kind;
    }
    if (call) {
      const BuiltinCall &bound = sema.builtinCalls.at(call);
      for (size_t i = 0; i < bound.args.size(); ++i) {
        // normal(mean = 0, std): the mean defaults to zero.
        if (!bound.args[i]) {
          initArgs.push_back(0.0);
          continue;
        }
        initArgs.push_back(evalFloat(bound.args[i], env));
      }
    }
    llvm::SmallVector<mlir::Attribute> dims;
    for (const Dim &d : env.module->weightTypes.at(name).shape) {
      // Sema checks a layer's own arguments; this catches quotients whose
      // operands came through an enclosing layer's or a model's parameters
      // (`in / blocks`). The parameter is still made, and generation goes
      // on.
      Dim global = globalDim(d, env);
      if (auto q = global.indivisibleQuotient())
        reportError(weight ? weight->loc : use->loc,
                    "parameter '" + symbol + "' has a dimension " + d.str() +
                        ", but " + std::to_string(q->first) +
                        " is not divisible by " + std::to_string(q->second));
      dims.push_back(builder.getStringAttr(global.str()));
    }
    declareParameter(symbol, type, init, initArgs, dims,
                     loc(weight ? weight->loc : use->loc, Env()),
                     /*buffer=*/false);
  }
  return builder.create<gnn::ParamOp>(
      loc(use->loc, env), type, mlir::FlatSymbolRefAttr::get(&context, symbol));
}

void Generator::declareParameter(const std::string &symbol,
                                 mlir::RankedTensorType type,
                                 gnn::InitKind init,
                                 llvm::ArrayRef<double> initArgs,
                                 llvm::ArrayRef<mlir::Attribute> dims,
                                 mlir::Location where, bool buffer) {
  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(module.getBody(), module.getBody()->begin());
  // Parameters go before functions, in declaration order.
  for (mlir::Operation &op : *module.getBody())
    if (mlir::isa<gnn::ParameterOp>(op))
      builder.setInsertionPointAfter(&op);
  builder.create<gnn::ParameterOp>(
      where, builder.getStringAttr(symbol), mlir::TypeAttr::get(type),
      gnn::InitKindAttr::get(&context, init),
      initArgs.empty() ? mlir::ArrayAttr() : builder.getF64ArrayAttr(initArgs),
      builder.getArrayAttr(dims),
      buffer ? builder.getUnitAttr() : mlir::UnitAttr());
}

Value Generator::emitRunningStatistic(const std::string &name,
                                      gnn::InitKind init, const Expr *of,
                                      const CallExpr *call, Env &env) {
  // One per batch_norm call of a layer instance: `<instance>.running_mean`,
  // then `running_mean_1`, ... (PyTorch's names for BatchNorm's buffers).
  std::string symbol = env.prefix + "." + name;
  auto [it, fresh] = runningStatisticCalls.try_emplace(
      std::make_pair(env.prefix, call), 0);
  if (fresh) {
    int64_t &count = runningStatisticCount[env.prefix + "." + name];
    it->second = count++;
  }
  if (it->second > 0)
    symbol += "_" + std::to_string(it->second);
  // Shaped like a row of the normalized tensor.
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<mlir::Attribute> dims;
  const std::vector<Dim> &columns = of->type.shape;
  for (size_t d = 1; d < columns.size(); ++d) {
    Dim global = globalDim(columns[d], env);
    dims.push_back(builder.getStringAttr(global.str()));
    shape.push_back(global.isConstant() ? global.constantValue()
                                        : mlir::ShapedType::kDynamic);
  }
  auto type = mlir::RankedTensorType::get(shape, builder.getF32Type());
  if (declaredParameters.insert(symbol).second)
    declareParameter(symbol, type, init, {}, dims, loc(call->loc, Env()),
                     /*buffer=*/true);
  return builder.create<gnn::ParamOp>(
      loc(call->loc, env), type, mlir::FlatSymbolRefAttr::get(&context, symbol));
}

Value Generator::emitExpr(const Expr *expr, Env &env) {
  if (failed || !expr)
    return nullptr;
  Location l = loc(expr->loc, env);
  switch (expr->kind) {
  case ExprKind::Int:
  case ExprKind::Float:
    return scalar(evalFloat(expr, env), l);
  case ExprKind::Name: {
    auto *n = static_cast<const NameExpr *>(expr);
    if (auto it = env.values.find(n->name); it != env.values.end())
      return it->second;
    if (env.module->weightTypes.count(n->name))
      return emitWeight(n->name, expr, env);
    if (expr->type.kind == TypeKind::Int || expr->type.kind == TypeKind::Float)
      return scalar(evalFloat(expr, env), l);
    fail(expr->loc, "'" + n->name + "' is not a tensor");
    return nullptr;
  }
  case ExprKind::Index: {
    auto *index = static_cast<const IndexExpr *>(expr);
    Value g = emitExpr(index->base.get(), env);
    if (!g)
      return nullptr;
    return builder.create<gnn::BlockOp>(
        l, gnn::GraphType::get(&context), g,
        builder.getI64IntegerAttr(evalInt(index->indices[0].get(), env)));
  }
  case ExprKind::Neg: {
    auto *neg = static_cast<const NegExpr *>(expr);
    if (!expr->type.isTensor())
      return scalar(evalFloat(expr, env), l);
    Value v = emitExpr(neg->operand.get(), env);
    return v ? builder.create<gnn::NegOp>(l, v.getType(), v) : nullptr;
  }
  case ExprKind::Binary: {
    auto *b = static_cast<const BinaryExpr *>(expr);
    if (!expr->type.isTensor())
      return scalar(evalFloat(expr, env), l);
    Value lhs = operand(b->lhs.get(), env), rhs = operand(b->rhs.get(), env);
    if (!lhs || !rhs)
      return nullptr;
    mlir::Type type = tensorType(expr->type, env);
    Location ol = loc(b->opLoc, env);
    switch (b->op) {
    case BinaryOp::Add:
      return builder.create<gnn::AddOp>(ol, type, lhs, rhs);
    case BinaryOp::Sub:
      return builder.create<gnn::SubOp>(ol, type, lhs, rhs);
    case BinaryOp::Mul:
      return builder.create<gnn::MulOp>(ol, type, lhs, rhs);
    case BinaryOp::Div:
      return builder.create<gnn::DivOp>(ol, type, lhs, rhs);
    case BinaryOp::MatMul:
      return builder.create<gnn::MatmulOp>(ol, type, lhs, rhs);
    }
    return nullptr;
  }
  case ExprKind::Call:
    return emitCall(static_cast<const CallExpr *>(expr), env);
  default:
    fail(expr->loc, "expression is not a tensor");
    return nullptr;
  }
}

Value Generator::emitCall(const CallExpr *call, Env &env) {
  if (auto it = sema.builtinCalls.find(call); it != sema.builtinCalls.end())
    return emitBuiltin(call, it->second, env);
  if (auto *n = dyn_cast<NameExpr>(call->callee.get()))
    if (env.module->subLayers.count(n->name))
      return emitLayerCall(call, n->name, env);
  if (auto *index = dyn_cast<IndexExpr>(call->callee.get()))
    if (auto *n = dyn_cast<NameExpr>(index->base.get()))
      if (env.module->subLayers.count(n->name))
        return emitLayerCall(call, n->name, env,
                             evalInt(index->indices[0].get(), env));
  fail(call->loc, "unsupported call");
  return nullptr;
}

Value Generator::emitLayerCall(const CallExpr *call, const std::string &member,
                               Env &env, std::optional<int64_t> element) {
  const SubLayerInfo &sub = env.module->subLayers.at(member);
  const ModuleInfo &info = sema.moduleInfo.at(sub.layer);
  Env inner;
  inner.module = &info;
  inner.parent = &env;
  inner.prefix = env.prefix + "." + member;
  inner.callSite = loc(call->loc, env);
  // A list's layer: its arguments are evaluated with the list's variable
  // bound to the layer's value of it, and its parameters are its own.
  Env listScope;
  if (element) {
    const LoopRange &range = *sub.list;
    int64_t begin = range.begin ? evalInt(range.begin.get(), env) : 0;
    int64_t count = evalInt(range.end.get(), env) - begin;
    if (failed)
      return nullptr;
    if (*element < 0 || *element >= count) {
      fail(call->callee->loc, "index " + std::to_string(*element) +
                                  " is out of range for '" + member +
                                  "', a list of " + std::to_string(count) +
                                  " layers");
      return nullptr;
    }
    listScope = env;
    listScope.dims[range.var] = Dim::constant(begin + *element);
    inner.parent = &listScope;
    inner.prefix += "." + std::to_string(*element);
  }
  const Env &argScope = *inner.parent;
  for (size_t i = 0; i < sub.layer->params.size() && i < sub.args.size(); ++i)
    inner.args[sub.layer->params[i].name] = sub.args[i];
  for (const auto &[name, dim] : sub.dimBindings)
    inner.dims[name] = globalDim(dim, argScope);
  // Bind forward arguments positionally or by name.
  const ForwardDecl &fwd = *sub.layer->forward;
  size_t position = 0;
  for (const Arg &arg : call->args) {
    std::string name = arg.name.empty() && position < fwd.params.size()
                           ? fwd.params[position++].name
                           : arg.name;
    Value v = operand(arg.value.get(), env);
    if (!v)
      return nullptr;
    inner.values[name] = v;
    // Free names of the signature (`x: [N, F]`) take the argument's static
    // sizes, so shapes inside the inlined body stay static.
    for (size_t i = 0; i < fwd.params.size(); ++i) {
      if (fwd.params[i].name != name || i >= info.forwardParamTypes.size())
        continue;
      auto tensor = v.getType().dyn_cast<mlir::RankedTensorType>();
      const Type &formal = info.forwardParamTypes[i];
      if (!tensor || !formal.isTensor() ||
          tensor.getRank() != static_cast<int64_t>(formal.rank()))
        continue;
      for (size_t d = 0; d < formal.rank(); ++d) {
        std::optional<std::string> sym = formal.shape[d].asSymbol();
        if (sym && info.freeSymbols.count(*sym) && !tensor.isDynamicDim(d))
          inner.dims[*sym] = Dim::constant(tensor.getDimSize(d));
      }
    }
  }
  mlir::OpBuilder::InsertionGuard guard(builder);
  return emitForwardBody(inner);
}

mlir::OwningOpRef<mlir::ModuleOp>
gnn::mlirgen::emitModule(mlir::MLIRContext &context,
                         lang::Compilation &compilation) {
  Generator generator(context, compilation);
  return generator.run();
}
