//===- FeatureSupport.h - What the language features share ------*- C++ -*-===//
//
// Helpers that hover and definition (Features.cpp) and completion
// (Completion.cpp) both use: LSP positions, declaration headers and builtin
// signatures as the editor shows them.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_LSP_FEATURESUPPORT_H
#define GNN_LSP_FEATURESUPPORT_H

#include "Server.h"

#include "gnn/lang/Builtins.h"

#include <string>
#include <utility>

namespace gnnlsp {

/// The line and character of an LSP position (unsigned integers).
std::pair<size_t, size_t> lineAndCharacter(const json &position);
/// The SourceLoc of an LSP position in `doc`'s main file.
gnn::lang::SourceLoc toLoc(const Document &doc, const json &position);
/// Text from `begin` up to the first `{` outside brackets: a declaration's
/// header as written (`layer GCNConv(in: int, out: int)`).
std::string headerText(const gnn::lang::SourceManager &sources,
                       gnn::lang::SourceLoc begin);
bool isIdentChar(char c);
/// A parameter kind as a signature shows it (`sum|mean|max|min`).
const char *kindName(gnn::lang::ParamKind kind);
/// `aggregate(g: graph, x: tensor, reduce?: sum|mean|max|min, ...)`.
std::string builtinSignature(const gnn::lang::Builtin &b);
/// A builtin named `name`, preferring the one callable in `context`.
const gnn::lang::Builtin *anyBuiltin(const std::string &name,
                                     gnn::lang::BuiltinContext context);

} // namespace gnnlsp

#endif // GNN_LSP_FEATURESUPPORT_H
