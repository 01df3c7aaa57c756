//===- ASTQuery.h - Finding AST nodes by source position --------*- C++ -*-===//
//
// Editor services (gnn-lsp's hover, go-to-definition, completion) ask what
// lies under a cursor. The AST keeps each expression's extent [loc, endLoc)
// and each declaration's braces, so the answer is a walk down the one
// top-level item that contains the position. Everything here reads the AST
// only; it works on the partial trees the parser builds while recovering.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_LANG_ASTQUERY_H
#define GNN_LANG_ASTQUERY_H

#include "gnn/lang/AST.h"

#include <functional>
#include <vector>

namespace gnn::lang {

/// Orders positions of one file by line, then column.
bool isBefore(SourceLoc a, SourceLoc b);
/// True when `loc` lies in [begin, end). An invalid `end` means "to the end
/// of the file" (recovery may leave a declaration without its closing brace).
bool rangeContains(SourceLoc begin, SourceLoc end, SourceLoc loc);

/// The nodes enclosing one position, outermost first. At most one of
/// dataset, module and train is set.
struct ASTPath {
  const DatasetDecl *dataset = nullptr;
  const ModuleDecl *module = nullptr;
  const TrainDecl *train = nullptr;
  /// Inside a module: its forward, and the statement the position is in.
  const ForwardDecl *forward = nullptr;
  const Stmt *stmt = nullptr;
  /// Inside a train block: the setting the position is in.
  const TrainSetting *setting = nullptr;
  /// Expressions whose extent contains the position, outermost first.
  std::vector<const Expr *> exprs;

  const Expr *innermost() const {
    return exprs.empty() ? nullptr : exprs.back();
  }
};

/// What encloses `loc` (1-based line and column) in `program`.
ASTPath findPath(const Program &program, SourceLoc loc);

/// Calls `visit` on `expr` and every expression under it, parents first.
void walkExpr(const Expr *expr, const std::function<void(const Expr *)> &visit);

/// Calls `visit` on every expression of `program` (defaults, tensor type
/// dimensions, initializers, sub-layers, statements, dataset sources, train
/// arguments and settings), parents first.
void walkProgram(const Program &program,
                 const std::function<void(const Expr *)> &visit);

} // namespace gnn::lang

#endif // GNN_LANG_ASTQUERY_H
