//===- ASTQuery.cpp - Finding AST nodes by source position ----------------===//
//
// Top-level items never nest, so the item containing a position is the last
// one starting at or before it; inside, statements and train settings are
// found the same way, and expressions by their recorded extents.
//
//===----------------------------------------------------------------------===//
#include "gnn/lang/ASTQuery.h"

using namespace gnn::lang;

bool gnn::lang::isBefore(SourceLoc a, SourceLoc b) {
  return a.line < b.line || (a.line == b.line && a.column < b.column);
}

bool gnn::lang::rangeContains(SourceLoc begin, SourceLoc end, SourceLoc loc) {
  if (!begin.isValid() || isBefore(loc, begin))
    return false;
  return !end.isValid() || isBefore(loc, end);
}

/// The direct sub-expressions of `expr`, in source order.
static std::vector<const Expr *> children(const Expr *expr) {
  std::vector<const Expr *> out;
  auto add = [&](const ExprPtr &e) {
    if (e)
      out.push_back(e.get());
  };
  if (auto *m = dyn_cast<MemberExpr>(expr)) {
    add(m->base);
  } else if (auto *c = dyn_cast<CallExpr>(expr)) {
    add(c->callee);
    for (const Arg &a : c->args)
      add(a.value);
  } else if (auto *i = dyn_cast<IndexExpr>(expr)) {
    add(i->base);
    for (const ExprPtr &e : i->indices)
      add(e);
  } else if (auto *l = dyn_cast<ListExpr>(expr)) {
    for (const ExprPtr &e : l->elements)
      add(e);
  } else if (auto *c = dyn_cast<ComprehensionExpr>(expr)) {
    add(c->element);
    add(c->range.begin);
    add(c->range.end);
  } else if (auto *n = dyn_cast<NegExpr>(expr)) {
    add(n->operand);
  } else if (auto *b = dyn_cast<BinaryExpr>(expr)) {
    add(b->lhs);
    add(b->rhs);
  }
  return out;
}

void gnn::lang::walkExpr(const Expr *expr,
                         const std::function<void(const Expr *)> &visit) {
  if (!expr)
    return;
  // An explicit stack: parser-limited nesting, but no recursion either way.
  std::vector<const Expr *> stack{expr};
  while (!stack.empty()) {
    const Expr *e = stack.back();
    stack.pop_back();
    visit(e);
    std::vector<const Expr *> kids = children(e);
    stack.insert(stack.end(), kids.rbegin(), kids.rend());
  }
}

static void typeRoots(const std::optional<TypeRef> &type,
                      std::vector<const Expr *> &out) {
  if (type)
    for (const ExprPtr &d : type->dims)
      out.push_back(d.get());
}

static void paramRoots(const std::vector<FormalParam> &params,
                       std::vector<const Expr *> &out) {
  for (const FormalParam &p : params) {
    typeRoots(p.type, out);
    out.push_back(p.defaultValue.get());
  }
}

/// The expression roots of forward statements, loop bodies included.
static void stmtRoots(const std::vector<Stmt> &body,
                      std::vector<const Expr *> &out) {
  for (const Stmt &s : body) {
    typeRoots(s.type, out);
    out.push_back(s.value.get());
    out.push_back(s.range.begin.get());
    out.push_back(s.range.end.get());
    stmtRoots(s.body, out);
  }
}

/// The innermost statement of `body` (loop bodies included) that starts at
/// or before `loc`.
static void innermostStmt(const std::vector<Stmt> &body, SourceLoc loc,
                          const Stmt *&stmt) {
  for (const Stmt &s : body)
    if (!isBefore(loc, s.loc)) {
      stmt = &s;
      if (s.kind == Stmt::Kind::For && isBefore(loc, s.endLoc))
        innermostStmt(s.body, loc, stmt);
    }
}

/// The expression roots of one module, in source order per member kind.
static std::vector<const Expr *> moduleRoots(const ModuleDecl &m) {
  std::vector<const Expr *> out;
  paramRoots(m.params, out);
  for (const WeightDecl &w : m.weights) {
    for (const ExprPtr &d : w.type.dims)
      out.push_back(d.get());
    out.push_back(w.init.get());
  }
  for (const SubLayerDecl &s : m.subLayers)
    out.push_back(s.value.get());
  if (m.forward) {
    paramRoots(m.forward->params, out);
    typeRoots(m.forward->result, out);
    stmtRoots(m.forward->body, out);
  }
  return out;
}

static std::vector<const Expr *> trainRoots(const TrainDecl &t) {
  std::vector<const Expr *> out;
  for (const Arg &a : t.modelArgs)
    out.push_back(a.value.get());
  for (const TrainSetting &s : t.settings) {
    out.push_back(s.value.get());
    out.push_back(s.every.get());
  }
  return out;
}

void gnn::lang::walkProgram(const Program &program,
                            const std::function<void(const Expr *)> &visit) {
  for (const DatasetDecl &d : program.datasets)
    walkExpr(d.source.get(), visit);
  for (const auto &m : program.modules)
    for (const Expr *e : moduleRoots(*m))
      walkExpr(e, visit);
  for (const TrainDecl &t : program.trains)
    for (const Expr *e : trainRoots(t))
      walkExpr(e, visit);
}

/// Appends the chain of expressions under `roots` that contain `loc`.
static void descend(const std::vector<const Expr *> &roots, SourceLoc loc,
                    std::vector<const Expr *> &path) {
  std::vector<const Expr *> level = roots;
  for (;;) {
    const Expr *hit = nullptr;
    for (const Expr *e : level)
      if (e && e->endLoc.isValid() && rangeContains(e->loc, e->endLoc, loc))
        hit = e;
    if (!hit)
      return;
    path.push_back(hit);
    level = children(hit);
  }
}

ASTPath gnn::lang::findPath(const Program &program, SourceLoc loc) {
  ASTPath path;
  // The last item starting at or before `loc`.
  SourceLoc best;
  auto consider = [&](SourceLoc begin, SourceLoc end, auto setter) {
    if (!rangeContains(begin, SourceLoc{}, loc) ||
        (best.isValid() && isBefore(begin, best)))
      return;
    best = begin;
    path = ASTPath();
    if (rangeContains(begin, end, loc))
      setter();
  };
  for (const DatasetDecl &d : program.datasets)
    consider(d.beginLoc, d.endLoc, [&] { path.dataset = &d; });
  for (const auto &m : program.modules)
    consider(m->beginLoc, m->endLoc, [&] { path.module = m.get(); });
  for (const TrainDecl &t : program.trains)
    consider(t.loc, t.endLoc, [&] { path.train = &t; });

  if (path.dataset) {
    descend({path.dataset->source.get()}, loc, path.exprs);
  } else if (path.module) {
    const ModuleDecl &m = *path.module;
    if (m.forward && rangeContains(m.forward->loc, m.forward->endLoc, loc)) {
      path.forward = &*m.forward;
      innermostStmt(m.forward->body, loc, path.stmt);
    }
    descend(moduleRoots(m), loc, path.exprs);
  } else if (path.train) {
    for (const TrainSetting &s : path.train->settings)
      if (!isBefore(loc, s.loc))
        path.setting = &s;
    descend(trainRoots(*path.train), loc, path.exprs);
  }
  return path;
}
