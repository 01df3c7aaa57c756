//===- SyntaxRecovery.h - One syntax error per broken statement -*- C++ -*-===//
//
// ANTLR's default recovery resumes at the first token that could follow the
// failing rule, which inside a statement is usually the very next word: a
// Python-style `for i in range(10):` then yields one error per word and the
// AST a statement made of its debris. This strategy resumes at statement and
// block boundaries instead (see StatementRecovery) and records which
// statement-level parse contexts hold an error, so that the AST builder can
// leave them out and poison the names they define. Private to lang/lib.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_LANG_LIB_SYNTAXRECOVERY_H
#define GNN_LANG_LIB_SYNTAXRECOVERY_H

#include "antlr4-runtime.h"

#include <map>
#include <vector>

namespace gnn::lang {

/// Error recovery at statement granularity. After a syntax error the parser
/// skips to the next statement boundary, at the bracket depth of the error:
/// a `;`, the first token of a later line, or the `}` (or `)`, `]`) that
/// closes the enclosing construct; only a token the enclosing rules can
/// continue with ends the skip. A line ending in `:` (a Python-style block
/// header) takes the more-indented lines after it along. Until a token after
/// the boundary is matched, further errors are not reported, so each broken
/// statement yields one diagnostic. Works on tokens and rule contexts only,
/// so new statement forms in the grammar need no change here.
class StatementRecovery : public antlr4::DefaultErrorStrategy {
public:
  /// Statement-level contexts (items, members, statements, train settings,
  /// dataset members) that hold a syntax error, with the token index of the
  /// first one.
  const std::map<const antlr4::ParserRuleContext *, size_t> &broken() const {
    return brokenAt;
  }
  /// Whether `ctx` holds a syntax error at or before token `index`.
  bool brokenBefore(const antlr4::ParserRuleContext *ctx, size_t index) const;
  /// Names assigned (`name = ...` at the start of a line) in lines skipped
  /// while recovering inside `ctx`, such as the body of a Python-style loop.
  std::vector<antlr4::Token *>
  skippedDefinitions(const antlr4::ParserRuleContext *ctx) const;

  void reportError(antlr4::Parser *parser,
                   const antlr4::RecognitionException &e) override;
  void recover(antlr4::Parser *parser, std::exception_ptr e) override;
  void sync(antlr4::Parser *parser) override;

protected:
  void endErrorCondition(antlr4::Parser *parser) override;
  void reportUnwantedToken(antlr4::Parser *parser) override;
  void reportMissingToken(antlr4::Parser *parser) override;
  antlr4::Token *singleTokenDeletion(antlr4::Parser *parser) override;

public:
  antlr4::Token *recoverInline(antlr4::Parser *parser) override;

private:
  /// Marks the innermost statement-level context on the parser's stack.
  void markBroken(antlr4::Parser *parser);
  /// The tokens that can begin a statement of any kind (computed once).
  const antlr4::misc::IntervalSet &statementStarts(antlr4::Parser *parser);
  /// Whether the current token is one too many: the one after it fits.
  bool looksExtra(antlr4::Parser *parser);
  /// Marks the statement before a stray token when the token continues it.
  void markUnfinished(antlr4::Parser *parser);
  /// Consumes tokens up to the next boundary where a token of `stops` comes.
  void skipToBoundary(antlr4::Parser *parser,
                      const antlr4::misc::IntervalSet &stops);

  std::map<const antlr4::ParserRuleContext *, size_t> brokenAt;
  antlr4::misc::IntervalSet starts;
  std::map<const antlr4::ParserRuleContext *, std::vector<antlr4::Token *>>
      skippedNames;
  const antlr4::ParserRuleContext *lastBroken = nullptr;
  /// Where the last skip stopped; recovery of the rules that fail there while
  /// unwinding must not skip past the boundary again.
  size_t resyncIndex = static_cast<size_t>(-1);
  /// Set while syncing a statement list: stray tokens between statements
  /// belong to no statement.
  bool betweenStatements = false;
};

} // namespace gnn::lang

#endif // GNN_LANG_LIB_SYNTAXRECOVERY_H
