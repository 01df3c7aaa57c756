//===- ASTPrinter.cpp - gnnc --emit=ast -----------------------------------===//
//
// An indented dump of the AST, one node per line with its line:column, and
// Sema's type for expressions that have one. Lit tests check parsing with it.
//
//===----------------------------------------------------------------------===//
#include "gnn/lang/AST.h"

#include <ostream>
#include <sstream>

using namespace gnn::lang;

const char *gnn::lang::spelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::MatMul:
    return "@";
  }
  return "?";
}

namespace {
class Printer {
public:
  explicit Printer(std::ostream &out) : out(out) {}

  void line(unsigned indent, SourceLoc loc, const std::string &text) {
    out << std::string(indent * 2, ' ') << text << " <" << loc.line << ':'
        << loc.column << ">\n";
  }

  void expr(unsigned indent, const Expr *e) {
    if (!e)
      return;
    std::string type = e->type.isError() ? "" : " : " + e->type.str();
    switch (e->kind) {
    case ExprKind::Int:
      line(indent, e->loc,
           "Int " + std::to_string(static_cast<const IntExpr *>(e)->value) +
               type);
      return;
    case ExprKind::Float: {
      std::ostringstream os;
      os << static_cast<const FloatExpr *>(e)->value;
      line(indent, e->loc, "Float " + os.str() + type);
      return;
    }
    case ExprKind::String:
      line(indent, e->loc,
           "String \"" + static_cast<const StringExpr *>(e)->value + "\"");
      return;
    case ExprKind::Bool:
      line(indent, e->loc,
           std::string("Bool ") +
               (static_cast<const BoolExpr *>(e)->value ? "true" : "false"));
      return;
    case ExprKind::Name:
      line(indent, e->loc,
           "Name " + static_cast<const NameExpr *>(e)->name + type);
      return;
    case ExprKind::Member: {
      auto *m = static_cast<const MemberExpr *>(e);
      line(indent, e->loc, "Member ." + m->member + type);
      expr(indent + 1, m->base.get());
      return;
    }
    case ExprKind::Call: {
      auto *c = static_cast<const CallExpr *>(e);
      line(indent, e->loc, "Call" + type);
      expr(indent + 1, c->callee.get());
      for (const Arg &a : c->args) {
        if (!a.name.empty()) {
          line(indent + 1, a.nameLoc, "NamedArg " + a.name);
          expr(indent + 2, a.value.get());
        } else {
          expr(indent + 1, a.value.get());
        }
      }
      return;
    }
    case ExprKind::Index: {
      auto *x = static_cast<const IndexExpr *>(e);
      line(indent, e->loc, "Index" + type);
      expr(indent + 1, x->base.get());
      for (const ExprPtr &i : x->indices)
        expr(indent + 1, i.get());
      return;
    }
    case ExprKind::List: {
      auto *l = static_cast<const ListExpr *>(e);
      line(indent, e->loc, "List" + type);
      for (const ExprPtr &i : l->elements)
        expr(indent + 1, i.get());
      return;
    }
    case ExprKind::Comprehension: {
      auto *c = static_cast<const ComprehensionExpr *>(e);
      line(indent, e->loc, "Comprehension" + type);
      expr(indent + 1, c->element.get());
      range(indent + 1, c->range);
      return;
    }
    case ExprKind::Neg:
      line(indent, e->loc, "Neg" + type);
      expr(indent + 1, static_cast<const NegExpr *>(e)->operand.get());
      return;
    case ExprKind::Binary: {
      auto *b = static_cast<const BinaryExpr *>(e);
      line(indent, e->loc, std::string("Binary ") + spelling(b->op) + type);
      expr(indent + 1, b->lhs.get());
      expr(indent + 1, b->rhs.get());
      return;
    }
    }
  }

  void range(unsigned indent, const LoopRange &r) {
    line(indent, r.varLoc, "Range " + r.var);
    expr(indent + 1, r.begin.get());
    expr(indent + 1, r.end.get());
  }

  void stmts(unsigned indent, const std::vector<Stmt> &body) {
    for (const Stmt &s : body) {
      if (s.kind == Stmt::Kind::For) {
        line(indent, s.loc, "For");
        range(indent + 1, s.range);
        stmts(indent + 1, s.body);
        continue;
      }
      line(indent, s.loc,
           s.kind == Stmt::Kind::Return ? "Return" : "Assign " + s.name);
      if (s.type)
        typeRef(indent + 1, *s.type);
      expr(indent + 1, s.value.get());
    }
  }

  void typeRef(unsigned indent, const TypeRef &t) {
    if (t.kind == TypeRef::Kind::Named) {
      line(indent, t.loc, "Type " + t.name);
      return;
    }
    line(indent, t.loc, "TensorType");
    for (const ExprPtr &d : t.dims)
      expr(indent + 1, d.get());
  }

  void params(unsigned indent, const std::vector<FormalParam> &ps) {
    for (const FormalParam &p : ps) {
      line(indent, p.loc, "Param " + p.name);
      if (p.type)
        typeRef(indent + 1, *p.type);
      if (p.defaultValue)
        expr(indent + 1, p.defaultValue.get());
    }
  }

  void module(const ModuleDecl &m) {
    line(0, m.loc, std::string(m.isModel ? "Model " : "Layer ") + m.name);
    params(1, m.params);
    for (const WeightDecl &w : m.weights) {
      line(1, w.loc, "Weight " + w.name);
      typeRef(2, w.type);
      expr(2, w.init.get());
    }
    for (const SubLayerDecl &s : m.subLayers) {
      line(1, s.loc, "SubLayer " + s.name);
      expr(2, s.value.get());
    }
    if (!m.forward)
      return;
    line(1, m.forward->loc, "Forward");
    params(2, m.forward->params);
    if (m.forward->result) {
      line(2, m.forward->result->loc, "Result");
      typeRef(3, *m.forward->result);
    }
    stmts(2, m.forward->body);
  }

  std::ostream &out;
};
} // namespace

void gnn::lang::printAST(const Program &program, const SourceManager &sources,
                         std::ostream &out) {
  Printer p(out);
  out << "Program " << sources.name(program.fileId) << "\n";
  for (const ImportDecl &i : program.imports) {
    std::string path;
    for (const std::string &part : i.path)
      path += (path.empty() ? "" : ".") + part;
    p.line(0, i.loc,
           std::string("Import ") + (i.isPath ? "\"" + path + "\"" : path));
  }
  for (const DatasetDecl &d : program.datasets) {
    p.line(0, d.loc, "Dataset " + d.name);
    p.expr(1, d.source.get());
    for (const NodeTypeDecl &n : d.nodeTypes)
      p.line(1, n.loc, "NodeType " + n.name);
    for (const RelationDecl &r : d.relations)
      p.line(1, r.loc,
             "Relation " + r.name + " : " + r.srcType + " -> " + r.dstType);
  }
  for (const auto &m : program.modules)
    p.module(*m);
  for (const TrainDecl &t : program.trains) {
    p.line(0, t.loc, "Train " + t.model + " on " + t.dataset);
    for (const Arg &a : t.modelArgs) {
      p.line(1, a.nameLoc.isValid() ? a.nameLoc : a.value->loc,
             "ModelArg " + (a.name.empty() ? std::string("_") : a.name));
      p.expr(2, a.value.get());
    }
    for (const TrainSetting &s : t.settings) {
      p.line(1, s.loc, "Setting " + s.key);
      p.expr(2, s.value.get());
      if (s.every) {
        p.line(2, s.every->loc, "Every");
        p.expr(3, s.every.get());
      }
    }
  }
}
