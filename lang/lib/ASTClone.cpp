//===- ASTClone.cpp - Copies of expressions, and lists built by loops -----===//
//
// A train block's list written as a comprehension, `fanout = [10 for i in
// range(3)]`, is a list of constants: it is expanded where it is parsed, one
// copy of the element per value of the variable, so that everything after
// the parser sees the list it stands for.
//
//===----------------------------------------------------------------------===//
#include "gnn/lang/AST.h"

using namespace gnn::lang;

static ExprPtr clone(const Expr *e, const std::string &var, int64_t value);

static std::vector<Arg> cloneArgs(const std::vector<Arg> &args,
                                  const std::string &var, int64_t value) {
  std::vector<Arg> out;
  for (const Arg &a : args)
    out.push_back({a.name, a.nameLoc, clone(a.value.get(), var, value)});
  return out;
}

static std::vector<ExprPtr> cloneAll(const std::vector<ExprPtr> &exprs,
                                     const std::string &var, int64_t value) {
  std::vector<ExprPtr> out;
  for (const ExprPtr &e : exprs)
    out.push_back(clone(e.get(), var, value));
  return out;
}

/// A copy of `e` with the name `var` replaced by the literal `value`.
static ExprPtr clone(const Expr *e, const std::string &var, int64_t value) {
  if (!e)
    return nullptr;
  ExprPtr out;
  switch (e->kind) {
  case ExprKind::Int:
    out = std::make_unique<IntExpr>(e->loc, static_cast<const IntExpr *>(e)->value);
    break;
  case ExprKind::Float:
    out = std::make_unique<FloatExpr>(e->loc,
                                      static_cast<const FloatExpr *>(e)->value);
    break;
  case ExprKind::String:
    out = std::make_unique<StringExpr>(
        e->loc, static_cast<const StringExpr *>(e)->value);
    break;
  case ExprKind::Bool:
    out = std::make_unique<BoolExpr>(e->loc,
                                     static_cast<const BoolExpr *>(e)->value);
    break;
  case ExprKind::Name: {
    auto *n = static_cast<const NameExpr *>(e);
    if (n->name == var)
      out = std::make_unique<IntExpr>(e->loc, value);
    else
      out = std::make_unique<NameExpr>(e->loc, n->name);
    break;
  }
  case ExprKind::Member: {
    auto *m = static_cast<const MemberExpr *>(e);
    out = std::make_unique<MemberExpr>(e->loc, clone(m->base.get(), var, value),
                                       m->member, m->memberLoc);
    break;
  }
  case ExprKind::Call: {
    auto *c = static_cast<const CallExpr *>(e);
    out = std::make_unique<CallExpr>(e->loc, clone(c->callee.get(), var, value),
                                     cloneArgs(c->args, var, value));
    break;
  }
  case ExprKind::Index: {
    auto *x = static_cast<const IndexExpr *>(e);
    out = std::make_unique<IndexExpr>(e->loc, clone(x->base.get(), var, value),
                                      cloneAll(x->indices, var, value));
    break;
  }
  case ExprKind::List:
    out = std::make_unique<ListExpr>(
        e->loc,
        cloneAll(static_cast<const ListExpr *>(e)->elements, var, value));
    break;
  case ExprKind::Comprehension: {
    // An inner loop over another variable (its own variable hides `var`).
    auto *c = static_cast<const ComprehensionExpr *>(e);
    const std::string &inner = c->range.var;
    bool hidden = inner == var;
    LoopRange range{inner, c->range.varLoc,
                    clone(c->range.begin.get(), var, value),
                    clone(c->range.end.get(), var, value)};
    out = std::make_unique<ComprehensionExpr>(
        e->loc,
        hidden ? clone(c->element.get(), "", 0)
               : clone(c->element.get(), var, value),
        std::move(range));
    break;
  }
  case ExprKind::Neg:
    out = std::make_unique<NegExpr>(
        e->loc, clone(static_cast<const NegExpr *>(e)->operand.get(), var,
                      value));
    break;
  case ExprKind::Binary: {
    auto *b = static_cast<const BinaryExpr *>(e);
    out = std::make_unique<BinaryExpr>(e->loc, b->op,
                                       clone(b->lhs.get(), var, value),
                                       clone(b->rhs.get(), var, value),
                                       b->opLoc);
    break;
  }
  }
  out->endLoc = e->endLoc;
  return out;
}

/// Folds integer arithmetic on literals (`10 - 2 * 1` is 8), so that an
/// element built from the variable is the literal a setting expects.
static void foldIntegers(ExprPtr &e) {
  if (auto *neg = dyn_cast<NegExpr>(e.get())) {
    foldIntegers(neg->operand);
    if (auto *v = dyn_cast<IntExpr>(neg->operand.get())) {
      SourceLoc end = e->endLoc;
      e = std::make_unique<IntExpr>(e->loc, -v->value);
      e->endLoc = end;
    }
    return;
  }
  if (auto *list = dyn_cast<ListExpr>(e.get())) {
    for (ExprPtr &element : list->elements)
      foldIntegers(element);
    return;
  }
  auto *b = dyn_cast<BinaryExpr>(e.get());
  if (!b)
    return;
  foldIntegers(b->lhs);
  foldIntegers(b->rhs);
  auto *l = dyn_cast<IntExpr>(b->lhs.get());
  auto *r = dyn_cast<IntExpr>(b->rhs.get());
  if (!l || !r)
    return;
  std::optional<int64_t> value;
  if (b->op == BinaryOp::Add)
    value = l->value + r->value;
  else if (b->op == BinaryOp::Sub)
    value = l->value - r->value;
  else if (b->op == BinaryOp::Mul)
    value = l->value * r->value;
  if (!value)
    return;
  SourceLoc end = e->endLoc;
  e = std::make_unique<IntExpr>(e->loc, *value);
  e->endLoc = end;
}

static const IntExpr *literalBound(const ExprPtr &e) {
  return dyn_cast<IntExpr>(e.get());
}

void gnn::lang::expandLiteralComprehensions(ExprPtr &expr) {
  if (!expr)
    return;
  if (auto *list = dyn_cast<ListExpr>(expr.get())) {
    for (ExprPtr &e : list->elements)
      expandLiteralComprehensions(e);
    return;
  }
  if (auto *call = dyn_cast<CallExpr>(expr.get())) {
    for (Arg &a : call->args)
      expandLiteralComprehensions(a.value);
    return;
  }
  auto *c = dyn_cast<ComprehensionExpr>(expr.get());
  const IntExpr *end = c ? literalBound(c->range.end) : nullptr;
  const IntExpr *begin = c ? literalBound(c->range.begin) : nullptr;
  // Bounds that are not literals stay: Sema reports the comprehension.
  if (!end || (c->range.begin && !begin))
    return;
  constexpr int64_t kMaxElements = 4096;
  int64_t first = begin ? begin->value : 0;
  if (end->value - first > kMaxElements)
    return;
  std::vector<ExprPtr> elements;
  for (int64_t i = first; i < end->value; ++i) {
    elements.push_back(clone(c->element.get(), c->range.var, i));
    expandLiteralComprehensions(elements.back());
    foldIntegers(elements.back());
  }
  auto list = std::make_unique<ListExpr>(c->loc, std::move(elements));
  list->endLoc = c->endLoc;
  expr = std::move(list);
}
