//===- TrainAttributes.cpp - train blocks as MLIR attributes --------------===//
//
// A train block's settings and its dataset's source become one dictionary
// attribute, `gnn.train`, on the model's forward function. The conversion is
// structural (numbers, strings, names, lists, and calls as dictionaries with
// a "kind" entry and one entry per argument, named after the builtin's
// parameter), so the code generator reads settings by name and Sema remains
// the one place that validates them.
//
//===----------------------------------------------------------------------===//

#include "TrainAttributes.h"

#include "mlir/IR/Builders.h"

using namespace gnn::lang;
using llvm::cast;
using llvm::dyn_cast;

static mlir::Attribute toAttribute(const Expr *expr, const SemaResult &sema,
                                   mlir::Builder &b);

/// `adam(lr = 0.01)` -> {kind = "adam", lr = 0.01}; arguments bound to the
/// builtin's parameter names when Sema resolved the call.
static mlir::Attribute callAttribute(const CallExpr *call,
                                     const SemaResult &sema, mlir::Builder &b) {
  llvm::SmallVector<mlir::NamedAttribute> entries;
  std::string kind;
  if (auto *name = dyn_cast<NameExpr>(call->callee.get()))
    kind = name->name;
  entries.push_back(b.getNamedAttr("kind", b.getStringAttr(kind)));
  auto resolved = sema.builtinCalls.find(call);
  if (resolved != sema.builtinCalls.end()) {
    const BuiltinCall &info = resolved->second;
    for (size_t i = 0; i < info.args.size(); ++i)
      if (info.args[i])
        entries.push_back(b.getNamedAttr(info.builtin->params[i].name,
                                         toAttribute(info.args[i], sema, b)));
  } else {
    for (size_t i = 0; i < call->args.size(); ++i)
      entries.push_back(b.getNamedAttr(
          call->args[i].name.empty() ? "arg" + std::to_string(i)
                                     : call->args[i].name,
          toAttribute(call->args[i].value.get(), sema, b)));
  }
  return b.getDictionaryAttr(entries);
}

static mlir::Attribute toAttribute(const Expr *expr, const SemaResult &sema,
                                   mlir::Builder &b) {
  switch (expr->kind) {
  case ExprKind::Int:
    return b.getI64IntegerAttr(cast<IntExpr>(expr)->value);
  case ExprKind::Float:
    return b.getF64FloatAttr(cast<FloatExpr>(expr)->value);
  case ExprKind::String:
    return b.getStringAttr(cast<StringExpr>(expr)->value);
  case ExprKind::Bool:
    return b.getBoolAttr(cast<BoolExpr>(expr)->value);
  case ExprKind::Name:
    return b.getStringAttr(cast<NameExpr>(expr)->name);
  case ExprKind::Neg: {
    mlir::Attribute inner =
        toAttribute(cast<NegExpr>(expr)->operand.get(), sema, b);
    if (auto i = dyn_cast<mlir::IntegerAttr>(inner))
      return b.getI64IntegerAttr(-i.getInt());
    if (auto f = dyn_cast<mlir::FloatAttr>(inner))
      return b.getF64FloatAttr(-f.getValueAsDouble());
    return inner;
  }
  case ExprKind::List: {
    llvm::SmallVector<mlir::Attribute> elements;
    for (const ExprPtr &e : cast<ListExpr>(expr)->elements)
      elements.push_back(toAttribute(e.get(), sema, b));
    return b.getArrayAttr(elements);
  }
  case ExprKind::Call:
    return callAttribute(cast<CallExpr>(expr), sema, b);
  case ExprKind::Member: {
    auto *m = cast<MemberExpr>(expr);
    mlir::Attribute base = toAttribute(m->base.get(), sema, b);
    auto s = dyn_cast<mlir::StringAttr>(base);
    return b.getStringAttr((s ? s.getValue().str() + "." : "") + m->member);
  }
  default:
    return b.getUnitAttr();
  }
}

mlir::DictionaryAttr gnn::mlirgen::trainAttributes(const TrainInfo &train,
                                                   const SemaResult &sema,
                                                   mlir::Builder &b) {
  llvm::SmallVector<mlir::NamedAttribute> entries;
  if (train.dataset) {
    entries.push_back(
        b.getNamedAttr("dataset", b.getStringAttr(train.dataset->name)));
    if (train.dataset->source)
      entries.push_back(b.getNamedAttr(
          "source", toAttribute(train.dataset->source.get(), sema, b)));
  }
  for (const auto &[key, setting] : train.settings) {
    entries.push_back(
        b.getNamedAttr(key, toAttribute(setting->value.get(), sema, b)));
    if (setting->every)
      entries.push_back(b.getNamedAttr(
          key + "_every", toAttribute(setting->every.get(), sema, b)));
  }
  return b.getDictionaryAttr(entries);
}
