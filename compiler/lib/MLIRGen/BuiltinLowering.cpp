//===- BuiltinLowering.cpp - Forward builtins to gnn ops ------------------===//
//
// Each builtin of BuiltinOps.def becomes its gnn op, one method per family,
// each a switch over its BuiltinOps; one without a case is a located "no
// lowering" error (and test/Tools/op-recipe.test finds it first). The result
// type is Sema's (with the environment substituted), or the operand's for the
// ops that keep it.
//
//===----------------------------------------------------------------------===//
#include "Generator.h"

using namespace gnn::mlirgen::detail;

gnn::ReduceKindAttr Generator::reduceKind(const Expr *arg, Env &env) {
  std::string s = arg ? evalSymbol(arg, env) : "sum";
  return gnn::ReduceKindAttr::get(
      &context, gnn::symbolizeReduceKind(s).value_or(gnn::ReduceKind::sum));
}

Value Generator::noLowering(const CallExpr *call, const BuiltinCall &info) {
  fail(call->loc,
       std::string("no lowering for builtin '") + info.builtin->name + "'");
  return nullptr;
}

Value Generator::emitBuiltin(const CallExpr *call, const BuiltinCall &info,
                             Env &env) {
  mlir::Type type = tensorType(call->type, env);
  switch (builtinFamily(info.builtin->op)) {
  case BuiltinFamily::Graph:
    return emitGraphBuiltin(call, info, type, env);
  case BuiltinFamily::Elementwise:
    return emitElementwiseBuiltin(call, info, type, env);
  case BuiltinFamily::Axis:
    return emitAxisBuiltin(call, info, type, env);
  case BuiltinFamily::Structural:
    return emitStructuralBuiltin(call, info, type, env);
  case BuiltinFamily::None:
    break;
  }
  return noLowering(call, info);
}

Value Generator::emitGraphBuiltin(const CallExpr *call, const BuiltinCall &info,
                                  mlir::Type type, Env &env) {
  Location l = loc(call->loc, env);
  auto arg = [&](size_t i) { return info.args[i]; };
  auto value = [&](size_t i) -> Value { return operand(arg(i), env); };
  auto graph = [&](size_t i) -> Value { return emitExpr(arg(i), env); };
  auto side = [&](size_t i, gnn::EdgeSide dflt) {
    gnn::EdgeSide s = dflt;
    if (arg(i))
      s = gnn::symbolizeEdgeSide(evalSymbol(arg(i), env)).value_or(dflt);
    return gnn::EdgeSideAttr::get(&context, s);
  };
  auto stringArg = [&](size_t i) {
    auto *s = dyn_cast<StringExpr>(arg(i));
    return builder.getStringAttr(s ? s->value : "");
  };
  // The relation-batched primitives reduce linearly; a layer's `reduce`
  // parameter is known only here.
  auto linearReduce = [&](size_t i) -> gnn::ReduceKindAttr {
    gnn::ReduceKindAttr reduce = reduceKind(arg(i), env);
    if (reduce.getValue() == gnn::ReduceKind::sum ||
        reduce.getValue() == gnn::ReduceKind::mean)
      return reduce;
    fail(arg(i)->loc, std::string("'") + info.builtin->name +
                          "' supports sum and mean, not " +
                          gnn::stringifyReduceKind(reduce.getValue()).str());
    return nullptr;
  };

  switch (info.builtin->op) {
  case BuiltinOp::Aggregate: {
    Value g = graph(0), x = value(1);
    Value w = arg(3) ? value(3) : Value();
    auto *selfLoops = arg(4) ? dyn_cast<BoolExpr>(arg(4)) : nullptr;
    return builder.create<gnn::AggregateOp>(
        l, type, g, x, w, reduceKind(arg(2), env),
        builder.getBoolAttr(selfLoops && selfLoops->value));
  }
  case BuiltinOp::AggregateRelationRows: {
    gnn::ReduceKindAttr reduce = linearReduce(2);
    return reduce ? builder.create<gnn::AggregateRelationRowsOp>(
                        l, type, graph(0), value(1), reduce)
                  : Value();
  }
  case BuiltinOp::AggregateRelations: {
    gnn::ReduceKindAttr reduce = linearReduce(3);
    return reduce ? builder.create<gnn::AggregateRelationsOp>(
                        l, type, graph(0), value(1), value(2), reduce)
                  : Value();
  }
  case BuiltinOp::Gather:
    // The relation side reads a per-relation table: its own op, so that
    // the passes that reason about src/dst endpoints never see it.
    if (arg(2) && evalSymbol(arg(2), env) == kRelationSide)
      return builder.create<gnn::GatherRelationOp>(l, type, graph(0), value(1));
    return builder.create<gnn::GatherOp>(l, type, side(2, gnn::EdgeSide::src),
                                         graph(0), value(1));
  case BuiltinOp::Scatter:
    return builder.create<gnn::ScatterOp>(l, type, reduceKind(arg(2), env),
                                          graph(0), value(1));
  case BuiltinOp::EdgeSoftmax:
    return builder.create<gnn::EdgeSoftmaxOp>(l, type, graph(0), value(1));
  case BuiltinOp::Degree:
    return builder.create<gnn::DegreeOp>(l, type, side(1, gnn::EdgeSide::dst),
                                         graph(0));
  case BuiltinOp::Dst:
    return builder.create<gnn::DstOp>(l, type, graph(0), value(1));
  case BuiltinOp::NodeType:
    return builder.create<gnn::NodeTypeOp>(l, type, graph(0), stringArg(1));
  case BuiltinOp::Relation:
    return builder.create<gnn::RelationOp>(l, gnn::GraphType::get(&context),
                                           graph(0), stringArg(1));
  case BuiltinOp::Pairs:
    return builder.create<gnn::PairsOp>(l, gnn::GraphType::get(&context),
                                        graph(0));
  case BuiltinOp::Readout:
    return builder.create<gnn::ReadoutOp>(l, gnn::GraphType::get(&context),
                                          graph(0));
  default:
    break;
  }
  return noLowering(call, info);
}

Value Generator::emitElementwiseBuiltin(const CallExpr *call,
                                        const BuiltinCall &info,
                                        mlir::Type type, Env &env) {
  Location l = loc(call->loc, env);
  const Expr *xArg = info.args[0],
             *second = info.args.size() > 1 ? info.args[1] : nullptr;
  Value x = operand(xArg, env);
  if (!x)
    return nullptr;
  // The result has the operand's type.
  if (call->type.isTensor())
    type = x.getType();
  auto alpha = [&](double dflt) {
    return builder.getF64FloatAttr(second ? evalFloat(second, env) : dflt);
  };
  switch (info.builtin->op) {
  case BuiltinOp::Dropout: {
    double p = second ? evalFloat(second, env) : 0.5;
    // A layer's optional dropout (p = 0 by default) is the identity.
    if (p == 0.0)
      return x;
    return builder.create<gnn::DropoutOp>(
        l, type, x, builder.getF64FloatAttr(p),
        builder.getI64IntegerAttr(nextDropoutStream++));
  }
  case BuiltinOp::LeakyRelu:
    return builder.create<gnn::LeakyReluOp>(l, type, x, alpha(0.01));
  case BuiltinOp::Elu:
    return builder.create<gnn::EluOp>(l, type, x, alpha(1.0));
  case BuiltinOp::Relu:
    return builder.create<gnn::ReluOp>(l, type, x);
  case BuiltinOp::Sigmoid:
    return builder.create<gnn::SigmoidOp>(l, type, x);
  case BuiltinOp::Tanh:
    return builder.create<gnn::TanhOp>(l, type, x);
  case BuiltinOp::Exp:
    return builder.create<gnn::ExpOp>(l, type, x);
  case BuiltinOp::Log:
    return builder.create<gnn::LogOp>(l, type, x);
  case BuiltinOp::Sqrt:
    return builder.create<gnn::SqrtOp>(l, type, x);
  case BuiltinOp::Rsqrt:
    return builder.create<gnn::RsqrtOp>(l, type, x);
  case BuiltinOp::Abs:
    return builder.create<gnn::AbsOp>(l, type, x);
  default:
    break;
  }
  return noLowering(call, info);
}

Value Generator::emitAxisBuiltin(const CallExpr *call, const BuiltinCall &info,
                                 mlir::Type type, Env &env) {
  Location l = loc(call->loc, env);
  const Expr *xArg = info.args[0];
  const int64_t rank = xArg->type.rank();
  auto axis = [&](int64_t dflt) {
    int64_t a = info.args[1] ? evalInt(info.args[1], env) : dflt;
    return builder.getI64IntegerAttr(a < 0 ? a + rank : a);
  };
  auto reduce = [&](gnn::ReduceKind kind) -> Value {
    return builder.create<gnn::ReduceOp>(
        l, type, gnn::ReduceKindAttr::get(&context, kind), operand(xArg, env),
        axis(0));
  };
  switch (info.builtin->op) {
  case BuiltinOp::Softmax:
  case BuiltinOp::LogSoftmax: {
    Value x = operand(xArg, env);
    if (!x)
      return nullptr;
    if (call->type.isTensor())
      type = x.getType();
    if (info.builtin->op == BuiltinOp::Softmax)
      return builder.create<gnn::SoftmaxOp>(l, type, x, axis(-1));
    return builder.create<gnn::LogSoftmaxOp>(l, type, x, axis(-1));
  }
  case BuiltinOp::BatchNorm: {
    Value x = operand(xArg, env);
    if (!x)
      return nullptr;
    double eps = info.args[1] ? evalFloat(info.args[1], env) : 1e-5;
    double momentum = info.args[2] ? evalFloat(info.args[2], env) : 0.1;
    llvm::SmallVector<Value, 2> running;
    mlir::FloatAttr momentumAttr;
    // momentum 0: no running statistics (the batch's in evaluation too).
    if (momentum > 0) {
      running.push_back(emitRunningStatistic(
          "running_mean", gnn::InitKind::zeros, xArg, call, env));
      running.push_back(emitRunningStatistic(
          "running_var", gnn::InitKind::ones, xArg, call, env));
      momentumAttr = builder.getF64FloatAttr(momentum);
    }
    return builder.create<gnn::BatchNormOp>(l, x.getType(), x, running,
                                            builder.getF64FloatAttr(eps),
                                            momentumAttr);
  }
  case BuiltinOp::Sum:
    return reduce(gnn::ReduceKind::sum);
  case BuiltinOp::Mean:
    return reduce(gnn::ReduceKind::mean);
  case BuiltinOp::Max:
    return reduce(gnn::ReduceKind::max);
  default:
    break;
  }
  return noLowering(call, info);
}

Value Generator::emitStructuralBuiltin(const CallExpr *call,
                                       const BuiltinCall &info, mlir::Type type,
                                       Env &env) {
  Location l = loc(call->loc, env);
  switch (info.builtin->op) {
  case BuiltinOp::Concat: {
    auto *list = dyn_cast<ListExpr>(info.args[0]);
    llvm::SmallVector<Value> inputs;
    for (const ExprPtr &e : list->elements)
      if (Value v = operand(e.get(), env))
        inputs.push_back(v);
    int64_t rank = list->elements.front()->type.rank();
    int64_t a = info.args[1] ? evalInt(info.args[1], env) : -1;
    return builder.create<gnn::ConcatOp>(
        l, type, inputs, builder.getI64IntegerAttr(a < 0 ? a + rank : a));
  }
  case BuiltinOp::Reshape:
    return builder.create<gnn::ReshapeOp>(l, type, operand(info.args[0], env));
  case BuiltinOp::BlockDiagonal:
    return builder.create<gnn::BlockDiagonalOp>(l, type,
                                                operand(info.args[0], env));
  default:
    break;
  }
  return noLowering(call, info);
}
