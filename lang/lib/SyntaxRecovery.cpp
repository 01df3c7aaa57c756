//===- SyntaxRecovery.cpp - One syntax error per broken statement ---------===//
//
// The statement-level recovery strategy of the .gnn parser (see the header).
// Statement-level rules are named by rule index; everything else works on
// tokens (brackets, lines, columns), so a new statement rule needs no change
// here as long as it is an alternative of one of these rules.
//
//===----------------------------------------------------------------------===//
#include "SyntaxRecovery.h"

#include "GnnParser.h"

using namespace gnn::lang;
using G = gnn_antlr::GnnParser;
using antlr4::Token;
using antlr4::atn::ATNState;

/// Rules whose contexts are one statement each: the unit an error breaks.
static bool isStatementRule(size_t rule) {
  return rule == G::RuleItem || rule == G::RuleMember || rule == G::RuleStmt ||
         rule == G::RuleTrainSetting || rule == G::RuleDatasetMember;
}

/// Rules holding a list of statements: tokens between two of their statements
/// belong to neither.
static bool isStatementListRule(size_t rule) {
  return rule == G::RuleProgram || rule == G::RuleLayerDecl ||
         rule == G::RuleModelDecl || rule == G::RuleBlock ||
         rule == G::RuleTrainDecl || rule == G::RuleDatasetBody;
}

static bool isOpener(size_t type) {
  return type == G::LPAREN || type == G::LBRACK || type == G::LBRACE;
}
static bool isCloser(size_t type) {
  return type == G::RPAREN || type == G::RBRACK || type == G::RBRACE;
}

/// The column of the first token on `token`'s line (default channel).
static size_t lineIndent(antlr4::TokenStream *tokens, Token *token) {
  size_t column = token->getCharPositionInLine();
  for (size_t i = token->getTokenIndex(); i-- > 0;) {
    Token *t = tokens->get(i);
    if (t->getLine() != token->getLine())
      break;
    if (t->getChannel() == Token::DEFAULT_CHANNEL)
      column = t->getCharPositionInLine();
  }
  return column;
}

const antlr4::misc::IntervalSet &
StatementRecovery::statementStarts(antlr4::Parser *parser) {
  if (starts.isEmpty()) {
    const antlr4::atn::ATN &atn = parser->getATN();
    for (size_t rule = 0; rule < atn.ruleToStartState.size(); ++rule)
      if (isStatementRule(rule))
        starts.addAll(atn.nextTokens(atn.ruleToStartState[rule]));
    starts.remove(Token::EPSILON);
  }
  return starts;
}

bool StatementRecovery::brokenBefore(const antlr4::ParserRuleContext *ctx,
                                     size_t index) const {
  auto it = brokenAt.find(ctx);
  return it != brokenAt.end() && it->second <= index;
}

std::vector<Token *> StatementRecovery::skippedDefinitions(
    const antlr4::ParserRuleContext *ctx) const {
  auto it = skippedNames.find(ctx);
  return it == skippedNames.end() ? std::vector<Token *>() : it->second;
}

void StatementRecovery::markBroken(antlr4::Parser *parser) {
  if (betweenStatements)
    return;
  for (auto *ctx = parser->getContext(); ctx;
       ctx = dynamic_cast<antlr4::ParserRuleContext *>(ctx->parent)) {
    if (!isStatementRule(ctx->getRuleIndex()))
      continue;
    brokenAt.emplace(ctx, parser->getCurrentToken()->getTokenIndex());
    lastBroken = ctx;
    return;
  }
}

void StatementRecovery::markUnfinished(antlr4::Parser *parser) {
  // Tokens right after a statement, on its last line and with no `;`
  // between, are the rest of it: `y = x +` followed by `z = y` reads as
  // `y = x + z`, then fails at the second `=`.
  antlr4::ParserRuleContext *list = parser->getContext();
  antlr4::ParserRuleContext *last = nullptr;
  for (auto it = list->children.rbegin(); it != list->children.rend() && !last;
       ++it)
    if (auto *ctx = dynamic_cast<antlr4::ParserRuleContext *>(*it))
      last = ctx;
  if (last && last->getRuleIndex() == G::RuleItem && !last->children.empty())
    last = dynamic_cast<antlr4::ParserRuleContext *>(last->children.back());
  Token *offending = parser->getCurrentToken();
  if (!last || !last->getStop() || !last->getStart() ||
      last->getStop()->getType() == G::SEMI ||
      last->getStop()->getTokenIndex() + 1 != offending->getTokenIndex() ||
      last->getStop()->getLine() != offending->getLine())
    return;
  // Its statement context is the one the builder asks about.
  while (last && !isStatementRule(last->getRuleIndex()))
    last = dynamic_cast<antlr4::ParserRuleContext *>(last->parent);
  if (!last)
    return;
  brokenAt.emplace(last, offending->getTokenIndex());
  lastBroken = last;
  // Definitions it swallowed (`z` above) are poisoned too.
  antlr4::TokenStream *tokens = parser->getTokenStream();
  Token *prev = last->getStart();
  for (size_t i = last->getStart()->getTokenIndex() + 1;
       i < offending->getTokenIndex(); ++i) {
    Token *t = tokens->get(i);
    if (t->getChannel() != Token::DEFAULT_CHANNEL)
      continue;
    if (t->getLine() > prev->getLine() && t->getType() == G::ID &&
        tokens->get(i + 1)->getType() == G::ASSIGN)
      skippedNames[last].push_back(t);
    prev = t;
  }
}

void StatementRecovery::reportError(antlr4::Parser *parser,
                                    const antlr4::RecognitionException &e) {
  markBroken(parser);
  DefaultErrorStrategy::reportError(parser, e);
}

void StatementRecovery::reportUnwantedToken(antlr4::Parser *parser) {
  markBroken(parser);
  DefaultErrorStrategy::reportUnwantedToken(parser);
}

void StatementRecovery::reportMissingToken(antlr4::Parser *parser) {
  markBroken(parser);
  DefaultErrorStrategy::reportMissingToken(parser);
}

void StatementRecovery::endErrorCondition(antlr4::Parser *parser) {
  DefaultErrorStrategy::endErrorCondition(parser);
  resyncIndex = static_cast<size_t>(-1);
  lastBroken = nullptr;
}

bool StatementRecovery::looksExtra(antlr4::Parser *parser) {
  antlr4::TokenStream *tokens = parser->getTokenStream();
  if (!getExpectedTokens(parser).contains(tokens->LA(2)))
    return false;
  // The first token of a line that an enclosing rule can go on with is not
  // extra: in `v = x +` followed by `return x`, the operand is missing.
  Token *current = tokens->LT(1);
  Token *prev = tokens->index() > 0 ? tokens->LT(-1) : nullptr;
  return !prev ||
         !(current->getLine() > prev->getLine() ||
           prev->getType() == G::SEMI) ||
         !getErrorRecoverySet(parser).contains(current->getType());
}

antlr4::Token *StatementRecovery::singleTokenDeletion(antlr4::Parser *) {
  return nullptr; // See recoverInline.
}

antlr4::Token *StatementRecovery::recoverInline(antlr4::Parser *parser) {
  // Name the extra or missing token as ANTLR's single-token repairs would,
  // but repair nothing: the statement is left out of the AST anyway, and a
  // repaired statement runs on into the next lines (`while True:` read as
  // `while: break = ...`). The rule fails and recover() skips to the next
  // statement.
  if (!inErrorRecoveryMode(parser)) {
    if (looksExtra(parser))
      reportUnwantedToken(parser);
    else
      DefaultErrorStrategy::singleTokenInsertion(parser); // Reports only.
  }
  throw antlr4::InputMismatchException(parser);
}

void StatementRecovery::recover(antlr4::Parser *parser, std::exception_ptr) {
  antlr4::TokenStream *tokens = parser->getTokenStream();
  size_t index = tokens->index();
  if (lastErrorIndex == static_cast<int>(index) &&
      lastErrorStates.contains(parser->getState())) {
    // The same rule failed at the same token again: consume one token so
    // that parsing ends (ANTLR's own failsafe).
    parser->consume();
  } else if (index == resyncIndex) {
    // An enclosing rule failing at the boundary the skip found.
    lastErrorIndex = static_cast<int>(index);
    lastErrorStates.add(parser->getState());
    return;
  }
  lastErrorIndex = static_cast<int>(tokens->index());
  lastErrorStates.add(parser->getState());
  skipToBoundary(parser, getErrorRecoverySet(parser));
  resyncIndex = tokens->index();
}

void StatementRecovery::sync(antlr4::Parser *parser) {
  // A skip that stopped at a line beginning a statement this list cannot
  // hold (`for` among a model's members) leaves a mistake of its own.
  bool newStatement =
      isStatementListRule(parser->getContext()->getRuleIndex()) &&
      parser->getTokenStream()->index() == resyncIndex;
  if (inErrorRecoveryMode(parser) && !newStatement)
    return;
  const antlr4::atn::ATN &atn = parser->getATN();
  ATNState *state = atn.states[parser->getState()];
  size_t la = parser->getTokenStream()->LA(1);
  const antlr4::misc::IntervalSet &next = atn.nextTokens(state);
  if (next.contains(Token::EPSILON) || next.contains(la))
    return;
  size_t kind = state->getStateType();
  bool loop = kind == ATNState::STAR_LOOP_ENTRY ||
              kind == ATNState::STAR_LOOP_BACK ||
              kind == ATNState::PLUS_LOOP_BACK;
  if (!loop) {
    if (kind != ATNState::BLOCK_START && kind != ATNState::STAR_BLOCK_START &&
        kind != ATNState::PLUS_BLOCK_START)
      return;
    if (looksExtra(parser))
      reportUnwantedToken(parser);
    throw antlr4::InputMismatchException(parser);
  }
  // Stay in the loop: skip what cannot start an iteration (or follow the
  // loop) up to a boundary, instead of abandoning the enclosing rule.
  if (inErrorRecoveryMode(parser))
    endErrorCondition(parser);
  betweenStatements = isStatementListRule(parser->getContext()->getRuleIndex());
  if (betweenStatements)
    markUnfinished(parser);
  reportUnwantedToken(parser);
  betweenStatements = false;
  antlr4::misc::IntervalSet stops = parser->getExpectedTokens();
  stops.addAll(getErrorRecoverySet(parser));
  skipToBoundary(parser, stops);
  resyncIndex = parser->getTokenStream()->index();
}

void StatementRecovery::skipToBoundary(antlr4::Parser *parser,
                                       const antlr4::misc::IntervalSet &stops) {
  antlr4::TokenStream *tokens = parser->getTokenStream();
  constexpr size_t kNone = static_cast<size_t>(-1);
  unsigned depth = 0;
  // Lines indented deeper than this column are the body of a skipped
  // Python-style block header (`for i in range(10):`).
  size_t bodyIndent = kNone;
  bool inBody = false, first = true;
  // A line may also begin a statement only another context holds (a loop
  // among members): it is where the next mistake, if any, is reported.
  const antlr4::misc::IntervalSet &starts = statementStarts(parser);
  Token *prev = tokens->index() > 0 ? tokens->LT(-1) : nullptr;
  for (;;) {
    Token *t = tokens->LT(1);
    size_t type = t->getType();
    if (type == Token::EOF)
      return;
    bool lineStart =
        !prev || t->getLine() > prev->getLine() || prev->getType() == G::SEMI;
    if (lineStart) {
      inBody = bodyIndent != kNone && t->getLine() > prev->getLine() &&
               t->getCharPositionInLine() > bodyIndent;
      if (!inBody)
        bodyIndent = kNone;
    }
    if (depth == 0 && !inBody && stops.contains(type) &&
        (isCloser(type) || type == G::SEMI || lineStart))
      return;
    if (depth == 0 && !inBody && lineStart && !first && starts.contains(type))
      return;
    first = false;
    if (lineStart && type == G::ID && tokens->LA(2) == G::ASSIGN)
      skippedNames[lastBroken].push_back(t);
    if (isOpener(type))
      ++depth;
    else if (isCloser(type) && depth > 0)
      --depth;
    parser->consume();
    Token *next = tokens->LT(1);
    if (type == G::COLON && depth == 0 && bodyIndent == kNone &&
        (next->getType() == Token::EOF || next->getLine() > t->getLine()))
      bodyIndent = lineIndent(tokens, t);
    prev = t;
  }
}
