//===- AST.h - The .gnn abstract syntax tree --------------------*- C++ -*-===//
//
// The AST mirrors the language: a Program holds imports, datasets, layers,
// models and train blocks; forward bodies hold statements over expressions.
// Every node carries the SourceLoc of its first token. Sema fills in the
// `type` of each expression; MLIRGen reads the typed tree. The AST owns its
// children through unique_ptr and has no dependency on ANTLR or MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_LANG_AST_H
#define GNN_LANG_AST_H

#include "gnn/lang/SourceManager.h"
#include "gnn/lang/Type.h"

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gnn::lang {

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class ExprKind {
  Int,
  Float,
  String,
  Bool,
  Name,
  Member,
  Call,
  Index,
  List,
  Comprehension,
  Neg,
  Binary
};

enum class BinaryOp { Add, Sub, Mul, Div, MatMul };
const char *spelling(BinaryOp op);

struct Expr {
  ExprKind kind;
  SourceLoc loc;
  /// One past the expression's last character (set by the parser; invalid
  /// for expressions Sema synthesizes). Editor queries use [loc, endLoc).
  SourceLoc endLoc;
  /// Filled by Sema; Error until then.
  Type type;

  Expr(ExprKind kind, SourceLoc loc) : kind(kind), loc(loc) {}
  virtual ~Expr() = default;
};
using ExprPtr = std::unique_ptr<Expr>;

struct IntExpr : Expr {
  int64_t value;
  IntExpr(SourceLoc loc, int64_t value)
      : Expr(ExprKind::Int, loc), value(value) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Int; }
};

struct FloatExpr : Expr {
  double value;
  FloatExpr(SourceLoc loc, double value)
      : Expr(ExprKind::Float, loc), value(value) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Float; }
};

struct StringExpr : Expr {
  std::string value; // Escapes already resolved.
  StringExpr(SourceLoc loc, std::string value)
      : Expr(ExprKind::String, loc), value(std::move(value)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::String; }
};

struct BoolExpr : Expr {
  bool value;
  BoolExpr(SourceLoc loc, bool value)
      : Expr(ExprKind::Bool, loc), value(value) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Bool; }
};

struct NameExpr : Expr {
  std::string name;
  NameExpr(SourceLoc loc, std::string name)
      : Expr(ExprKind::Name, loc), name(std::move(name)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Name; }
};

/// `base.member`, e.g. `cora.features`, `g.dst`, `nn.GCNConv`.
struct MemberExpr : Expr {
  ExprPtr base;
  std::string member;
  SourceLoc memberLoc;
  MemberExpr(SourceLoc loc, ExprPtr base, std::string member,
             SourceLoc memberLoc)
      : Expr(ExprKind::Member, loc), base(std::move(base)),
        member(std::move(member)), memberLoc(memberLoc) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Member; }
};

/// One call argument; `name` is empty for positional arguments.
struct Arg {
  std::string name;
  SourceLoc nameLoc;
  ExprPtr value;
};

struct CallExpr : Expr {
  ExprPtr callee;
  std::vector<Arg> args;
  CallExpr(SourceLoc loc, ExprPtr callee, std::vector<Arg> args)
      : Expr(ExprKind::Call, loc), callee(std::move(callee)),
        args(std::move(args)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Call; }
};

/// `base[i, ...]`, e.g. `g[0]` (the block of layer 0).
struct IndexExpr : Expr {
  ExprPtr base;
  std::vector<ExprPtr> indices;
  IndexExpr(SourceLoc loc, ExprPtr base, std::vector<ExprPtr> indices)
      : Expr(ExprKind::Index, loc), base(std::move(base)),
        indices(std::move(indices)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Index; }
};

struct ListExpr : Expr {
  std::vector<ExprPtr> elements;
  ListExpr(SourceLoc loc, std::vector<ExprPtr> elements)
      : Expr(ExprKind::List, loc), elements(std::move(elements)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::List; }
};

/// The loop header `VAR in range(begin, end)` (begin may be absent: 0);
/// `range` is the only iterable, and its bounds are known at compile time.
struct LoopRange {
  std::string var;
  SourceLoc varLoc;
  ExprPtr begin, end;
};

/// `[element for i in range(n)]`: a list built at compile time, such as a
/// model's list of layers `convs = [GCNIIConv(hidden, alpha) for i in
/// range(layers)]`.
struct ComprehensionExpr : Expr {
  ExprPtr element;
  LoopRange range;
  ComprehensionExpr(SourceLoc loc, ExprPtr element, LoopRange range)
      : Expr(ExprKind::Comprehension, loc), element(std::move(element)),
        range(std::move(range)) {}
  static bool classof(const Expr *e) {
    return e->kind == ExprKind::Comprehension;
  }
};

struct NegExpr : Expr {
  ExprPtr operand;
  NegExpr(SourceLoc loc, ExprPtr operand)
      : Expr(ExprKind::Neg, loc), operand(std::move(operand)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Neg; }
};

struct BinaryExpr : Expr {
  BinaryOp op;
  ExprPtr lhs, rhs;
  SourceLoc opLoc;
  BinaryExpr(SourceLoc loc, BinaryOp op, ExprPtr lhs, ExprPtr rhs,
             SourceLoc opLoc)
      : Expr(ExprKind::Binary, loc), op(op), lhs(std::move(lhs)),
        rhs(std::move(rhs)), opLoc(opLoc) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Binary; }
};

/// LLVM-style casts over the kind tag (the AST does not depend on LLVM).
template <typename T> bool isa(const Expr *e) { return e && T::classof(e); }
template <typename T> T *dyn_cast(Expr *e) {
  return isa<T>(e) ? static_cast<T *>(e) : nullptr;
}
template <typename T> const T *dyn_cast(const Expr *e) {
  return isa<T>(e) ? static_cast<const T *>(e) : nullptr;
}

//===----------------------------------------------------------------------===//
// Types as written
//===----------------------------------------------------------------------===//

/// A type annotation: a named type (`int`, `graph`) or a tensor type listing
/// its dimensions as expressions (`[N, in]`, `[g.dst, heads * out]`).
struct TypeRef {
  enum class Kind { Named, Tensor } kind = Kind::Named;
  SourceLoc loc;
  std::string name;
  std::vector<ExprPtr> dims;
};

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

/// A parameter of a layer, model or forward: `name: type = default`.
struct FormalParam {
  std::string name;
  SourceLoc loc;
  std::optional<TypeRef> type;
  ExprPtr defaultValue;
};

/// `param w: [in, out] = glorot` — a trainable tensor.
struct WeightDecl {
  std::string name;
  SourceLoc loc;
  TypeRef type;
  ExprPtr init; // May be null: the default initializer applies.
};

/// `c1 = GCNConv(cora.features, hidden)` — a sub-layer instance.
struct SubLayerDecl {
  std::string name;
  SourceLoc loc;
  ExprPtr value;
};

/// A forward statement: `name = value`, `return value`, or a loop
/// `for VAR in range(...) { body }`, repeated at compile time (MLIRGen
/// unrolls it; Sema checks its body once, for every iteration).
struct Stmt {
  enum class Kind { Assign, Return, For } kind;
  SourceLoc loc;
  std::string name; // Assign only.
  std::optional<TypeRef> type;
  ExprPtr value;
  LoopRange range;        // For only.
  std::vector<Stmt> body; // For only.
  SourceLoc endLoc;       // For only: one past its closing brace.
};

struct ForwardDecl {
  SourceLoc loc;
  SourceLoc endLoc; ///< One past the closing brace.
  std::vector<FormalParam> params;
  std::optional<TypeRef> result;
  std::vector<Stmt> body;
};

/// A `layer` or a `model`: they share their structure; models are what
/// `train` blocks instantiate.
struct ModuleDecl {
  bool isModel = false;
  std::string name;
  SourceLoc loc;
  /// The `layer`/`model` keyword, and one past the closing brace.
  SourceLoc beginLoc, endLoc;
  std::vector<FormalParam> params;
  std::vector<WeightDecl> weights;
  std::vector<SubLayerDecl> subLayers;
  std::optional<ForwardDecl> forward;
  const char *kindName() const { return isModel ? "model" : "layer"; }
};

struct NodeTypeDecl {
  std::string name;
  SourceLoc loc;
};

struct RelationDecl {
  std::string name;
  SourceLoc loc;
  std::string srcType, dstType;
  SourceLoc srcLoc, dstLoc;
};

/// `dataset cora = ogb("cora")`, optionally with node and relation types.
struct DatasetDecl {
  std::string name;
  SourceLoc loc;
  /// The `dataset` keyword, and one past the declaration's last character.
  SourceLoc beginLoc, endLoc;
  ExprPtr source;
  std::vector<NodeTypeDecl> nodeTypes;
  std::vector<RelationDecl> relations;
};

/// `key = value` or `key = value every N epochs` inside a train block.
struct TrainSetting {
  std::string key;
  SourceLoc loc;
  ExprPtr value;
  ExprPtr every; // Null unless `every` was written.
};

struct TrainDecl {
  SourceLoc loc;
  SourceLoc endLoc; ///< One past the closing brace.
  std::string model;
  SourceLoc modelLoc;
  std::vector<Arg> modelArgs;
  std::string dataset;
  SourceLoc datasetLoc;
  std::vector<TrainSetting> settings;
};

struct ImportDecl {
  SourceLoc loc;
  /// `import nn.conv` -> {"nn", "conv"}; `import "dir/file"` -> {"dir/file"}.
  std::vector<std::string> path;
  bool isPath = false;
};

/// One parsed file.
struct Program {
  uint32_t fileId = 0;
  std::vector<ImportDecl> imports;
  std::vector<DatasetDecl> datasets;
  std::vector<std::unique_ptr<ModuleDecl>> modules;
  std::vector<TrainDecl> trains;
};

/// Replaces each comprehension in `expr` (a train setting's value) whose
/// bounds are integer literals by the list it builds: `[10 for i in range(3)]`
/// becomes `[10, 10, 10]` (ASTClone.cpp).
void expandLiteralComprehensions(ExprPtr &expr);

/// Prints the AST as an indented S-expression-like tree (gnnc --emit=ast).
void printAST(const Program &program, const SourceManager &sources,
              std::ostream &out);

} // namespace gnn::lang

#endif // GNN_LANG_AST_H
