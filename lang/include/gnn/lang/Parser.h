//===- Parser.h - Parsing .gnn text into an AST -----------------*- C++ -*-===//
//
// The exception-free entry point to the ANTLR-generated parser. Syntax errors
// become located diagnostics; the parser recovers and returns whatever it could
// build, so later stages see a partial but well-formed AST.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_LANG_PARSER_H
#define GNN_LANG_PARSER_H

#include "gnn/lang/AST.h"
#include "gnn/lang/Diagnostics.h"

#include <memory>

namespace gnn::lang {

/// Parses the file `fileId` of `sources`. Never throws; never returns null.
std::unique_ptr<Program> parseProgram(uint32_t fileId,
                                      const SourceManager &sources,
                                      DiagnosticEngine &diags);

/// Nesting deeper than this (brackets, unary minus, expression chains) is
/// rejected with a diagnostic instead of risking the stack.
constexpr unsigned kMaxNestingDepth = 200;

} // namespace gnn::lang

#endif // GNN_LANG_PARSER_H
