//===- Parser.cpp - ANTLR parse tree to AST -------------------------------===//
//
// Runs the ANTLR-generated lexer and parser and converts the parse tree into
// the AST. This is the only file that sees ANTLR (and its exceptions): lexer
// error tokens are reported and dropped before parsing, syntax errors are
// rephrased into our diagnostic format by one error listener, and every
// parse-tree accessor is null-checked because error recovery builds partial
// trees.
//
//===----------------------------------------------------------------------===//
#include "gnn/lang/Parser.h"

#include "GnnLexer.h"
#include "GnnParser.h"
#include "antlr4-runtime.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <set>

using namespace gnn::lang;
using antlr4::tree::TerminalNode;
using G = gnn_antlr::GnnParser;

namespace {

/// Converts ANTLR's syntax errors into diagnostics. Only the first error of a
/// line is reported: recovery inside one statement tends to cascade.
class SyntaxErrorListener : public antlr4::BaseErrorListener {
public:
  SyntaxErrorListener(uint32_t fileId, DiagnosticEngine &diags,
                      const std::map<size_t, size_t> &lexErrorColumns,
                      const std::set<size_t> &afterLexError)
      : fileId(fileId), diags(diags), lexErrorColumns(lexErrorColumns),
        afterLexError(afterLexError) {}

  void syntaxError(antlr4::Recognizer *, antlr4::Token *offending, size_t line,
                   size_t column, const std::string &msg,
                   std::exception_ptr) override {
    // A lexer error already explains the syntax errors it causes: the one at
    // the next token, and later ones on its line.
    auto lexError = lexErrorColumns.find(line);
    if ((lexError != lexErrorColumns.end() && column >= lexError->second) ||
        (offending && afterLexError.count(offending->getTokenIndex())))
      return;
    if (line == lastLine)
      return;
    lastLine = line;
    diags.error(SourceLoc{fileId, static_cast<uint32_t>(line),
                          static_cast<uint32_t>(column + 1)},
                rephrase(msg, offending));
  }

private:
  /// ANTLR's wording names grammar tokens; ours names what a user wrote.
  static std::string rephrase(const std::string &msg,
                              antlr4::Token *offending) {
    std::string text = msg;
    static const std::vector<std::pair<std::regex, std::string>> names = {
        {std::regex("\\bID\\b"), "identifier"},
        {std::regex("\\bINT\\b"), "integer"},
        {std::regex("\\bFLOAT\\b"), "number"},
        {std::regex("\\bSTRING\\b"), "string"},
        {std::regex("<EOF>"), "end of file"},
    };
    for (const auto &[re, name] : names)
      text = std::regex_replace(text, re, name);
    std::smatch m;
    static const std::regex mismatched(
        "^mismatched input '(.*)' expecting (.*)$");
    static const std::regex extraneous(
        "^extraneous input '(.*)' expecting (.*)$");
    static const std::regex missing("^missing (.*) at '(.*)'$");
    static const std::regex noViable("^no viable alternative at input '(.*)'$");
    if (std::regex_match(text, m, mismatched))
      return "expected " + m[2].str() + ", found '" + m[1].str() + "'";
    if (std::regex_match(text, m, extraneous))
      return "unexpected '" + m[1].str() + "', expected " + m[2].str();
    if (std::regex_match(text, m, missing))
      return "expected " + m[1].str() + " before '" + m[2].str() + "'";
    if (std::regex_match(text, m, noViable)) {
      std::string tok = offending ? offending->getText() : m[1].str();
      if (tok == "<EOF>")
        return "unexpected end of file";
      return "unexpected '" + tok + "'";
    }
    return text;
  }

  uint32_t fileId;
  DiagnosticEngine &diags;
  const std::map<size_t, size_t> &lexErrorColumns;
  const std::set<size_t> &afterLexError;
  size_t lastLine = 0;
};

/// Builds the AST from a (possibly partial) parse tree.
class ASTBuilder {
public:
  ASTBuilder(uint32_t fileId, DiagnosticEngine &diags)
      : fileId(fileId), diags(diags) {}

  std::unique_ptr<Program> build(G::ProgramContext *ctx) {
    auto program = std::make_unique<Program>();
    program->fileId = fileId;
    if (!ctx)
      return program;
    for (G::ItemContext *item : ctx->item()) {
      if (!item)
        continue;
      if (auto *d = item->importDecl())
        buildImport(d, *program);
      else if (auto *d = item->datasetDecl())
        buildDataset(d, *program);
      else if (auto *d = item->layerDecl())
        buildModule(false, d, d->ID(), d->paramList(), d->member(), *program);
      else if (auto *d = item->modelDecl())
        buildModule(true, d, d->ID(), d->paramList(), d->member(), *program);
      else if (auto *d = item->trainDecl())
        buildTrain(d, *program);
    }
    return program;
  }

private:
  SourceLoc loc(antlr4::Token *token) const {
    if (!token)
      return {};
    return {fileId, static_cast<uint32_t>(token->getLine()),
            static_cast<uint32_t>(token->getCharPositionInLine() + 1)};
  }
  SourceLoc loc(antlr4::ParserRuleContext *ctx) const {
    return ctx ? loc(ctx->getStart()) : SourceLoc{};
  }
  SourceLoc loc(TerminalNode *node) const {
    return node ? loc(node->getSymbol()) : SourceLoc{};
  }
  /// One past the last character of `ctx` (its stop token), for editor
  /// queries; invalid when recovery left no stop token.
  SourceLoc endLoc(antlr4::ParserRuleContext *ctx) const {
    antlr4::Token *stop = ctx ? ctx->getStop() : nullptr;
    if (!stop || stop->getType() == antlr4::Token::EOF ||
        stop->getTokenIndex() == static_cast<size_t>(-1))
      return {};
    SourceLoc end = loc(stop);
    // Token text is UTF-8; columns count code points, as ANTLR's do.
    for (unsigned char c : stop->getText())
      end.column += (c & 0xC0) != 0x80;
    return end;
  }
  /// The text of a terminal, or empty when recovery left it missing.
  static std::string text(TerminalNode *node) {
    if (!node || !node->getSymbol() ||
        node->getSymbol()->getTokenIndex() == static_cast<size_t>(-1))
      return {};
    std::string s = node->getText();
    return s.rfind("<missing", 0) == 0 ? std::string() : s;
  }

  void buildImport(G::ImportDeclContext *ctx, Program &program) {
    ImportDecl decl;
    decl.loc = loc(ctx);
    if (auto *q = ctx->qualifiedName()) {
      for (TerminalNode *id : q->ID())
        if (std::string s = text(id); !s.empty())
          decl.path.push_back(s);
    } else if (TerminalNode *s = ctx->STRING()) {
      decl.isPath = true;
      decl.path.push_back(unquote(s));
    }
    if (!decl.path.empty())
      program.imports.push_back(std::move(decl));
  }

  void buildDataset(G::DatasetDeclContext *ctx, Program &program) {
    DatasetDecl decl;
    decl.name = text(ctx->ID());
    decl.loc = loc(ctx->ID());
    decl.beginLoc = loc(ctx);
    decl.endLoc = endLoc(ctx);
    decl.source = buildExpr(ctx->expr());
    if (decl.name.empty())
      return;
    if (auto *body = ctx->datasetBody()) {
      for (G::DatasetMemberContext *m : body->datasetMember()) {
        if (auto *n = dynamic_cast<G::NodeTypeDeclContext *>(m)) {
          for (TerminalNode *id : n->ID())
            if (std::string s = text(id); !s.empty())
              decl.nodeTypes.push_back({s, loc(id)});
        } else if (auto *r = dynamic_cast<G::RelationDeclContext *>(m)) {
          if (r->ID().size() != 3)
            continue;
          RelationDecl rel{text(r->ID(0)), loc(r->ID(0)), text(r->ID(1)),
                           text(r->ID(2)), loc(r->ID(1)), loc(r->ID(2))};
          if (!rel.name.empty() && !rel.srcType.empty() && !rel.dstType.empty())
            decl.relations.push_back(std::move(rel));
        }
      }
    }
    program.datasets.push_back(std::move(decl));
  }

  void buildModule(bool isModel, antlr4::ParserRuleContext *ctx,
                   TerminalNode *id, G::ParamListContext *params,
                   const std::vector<G::MemberContext *> &members,
                   Program &program) {
    auto decl = std::make_unique<ModuleDecl>();
    decl->isModel = isModel;
    decl->name = text(id);
    decl->loc = loc(id);
    decl->beginLoc = loc(ctx);
    decl->endLoc = endLoc(ctx);
    if (decl->name.empty())
      return;
    decl->params = buildParams(params);
    for (G::MemberContext *m : members) {
      if (auto *w = dynamic_cast<G::WeightDeclContext *>(m)) {
        std::optional<TypeRef> type = buildType(w->type());
        if (text(w->ID()).empty() || !type)
          continue;
        decl->weights.push_back({text(w->ID()), loc(w->ID()), std::move(*type),
                                 buildExpr(w->expr())});
      } else if (auto *s = dynamic_cast<G::SubLayerDeclContext *>(m)) {
        if (text(s->ID()).empty())
          continue;
        decl->subLayers.push_back(
            {text(s->ID()), loc(s->ID()), buildExpr(s->expr())});
      } else if (auto *f = dynamic_cast<G::ForwardDeclContext *>(m)) {
        if (decl->forward) {
          diags.error(loc(f), std::string(decl->kindName()) + " '" +
                                  decl->name + "' has more than one forward");
          diags.note(decl->forward->loc, "previous forward is here");
          continue;
        }
        ForwardDecl fwd;
        fwd.loc = loc(f);
        fwd.endLoc = endLoc(f);
        fwd.params = buildParams(f->paramList());
        fwd.result = buildType(f->type());
        if (auto *b = f->block())
          for (G::StmtContext *s : b->stmt())
            if (std::optional<Stmt> stmt = buildStmt(s))
              fwd.body.push_back(std::move(*stmt));
        decl->forward = std::move(fwd);
      }
    }
    program.modules.push_back(std::move(decl));
  }

  std::optional<Stmt> buildStmt(G::StmtContext *ctx) {
    if (auto *a = dynamic_cast<G::AssignStmtContext *>(ctx)) {
      Stmt stmt{Stmt::Kind::Assign, loc(a), text(a->ID()), buildType(a->type()),
                buildExpr(a->expr())};
      // A value that failed to build (already diagnosed) stays null: Sema
      // gives the name an error type, so its uses are not reported again.
      if (stmt.name.empty())
        return std::nullopt;
      return stmt;
    }
    if (auto *r = dynamic_cast<G::ReturnStmtContext *>(ctx)) {
      return Stmt{
          Stmt::Kind::Return, loc(r), {}, std::nullopt, buildExpr(r->expr())};
    }
    if (auto *f = dynamic_cast<G::ForStmtContext *>(ctx)) {
      std::optional<LoopRange> range =
          buildLoopRange(f->ID(0), f->ID(1), f->expr());
      if (!range)
        return std::nullopt;
      Stmt stmt{Stmt::Kind::For, loc(f), {}, std::nullopt, nullptr};
      stmt.range = std::move(*range);
      stmt.endLoc = endLoc(f);
      if (auto *b = f->block())
        for (G::StmtContext *s : b->stmt())
          if (std::optional<Stmt> inner = buildStmt(s))
            stmt.body.push_back(std::move(*inner));
      return stmt;
    }
    return std::nullopt;
  }

  /// `VAR in range(end)` or `VAR in range(begin, end)`; reports any other
  /// form (the word `in` is an identifier elsewhere: layers name widths so).
  std::optional<LoopRange> buildLoopRange(TerminalNode *var, TerminalNode *in,
                                          G::ExprContext *iterable) {
    if (text(var).empty() || !in || !iterable)
      return std::nullopt;
    if (text(in) != "in") {
      diags.error(loc(in), "expected 'in' after the loop variable '" +
                               text(var) + "', got '" + text(in) + "'");
      return std::nullopt;
    }
    ExprPtr value = buildExpr(iterable);
    auto *call = dyn_cast<CallExpr>(value.get());
    auto *callee = call ? dyn_cast<NameExpr>(call->callee.get()) : nullptr;
    bool positional = call && std::all_of(call->args.begin(), call->args.end(),
                                          [](const Arg &a) {
                                            return a.name.empty() && a.value;
                                          });
    if (!callee || callee->name != "range" || !positional ||
        call->args.empty() || call->args.size() > 2) {
      if (value)
        diags.error(value->loc, "a for loop iterates over range(n) or "
                                "range(begin, end) with integers known at "
                                "compile time");
      return std::nullopt;
    }
    LoopRange range{text(var), loc(var), nullptr, nullptr};
    if (call->args.size() == 2)
      range.begin = std::move(call->args[0].value);
    range.end = std::move(call->args.back().value);
    return range;
  }

  std::vector<FormalParam> buildParams(G::ParamListContext *ctx) {
    std::vector<FormalParam> params;
    if (!ctx)
      return params;
    for (G::FormalParamContext *p : ctx->formalParam()) {
      if (!p || text(p->ID()).empty())
        continue;
      params.push_back({text(p->ID()), loc(p->ID()), buildType(p->type()),
                        buildExpr(p->expr())});
    }
    return params;
  }

  std::optional<TypeRef> buildType(G::TypeContext *ctx) {
    if (!ctx)
      return std::nullopt;
    TypeRef type;
    type.loc = loc(ctx);
    if (auto *n = dynamic_cast<G::NamedTypeContext *>(ctx)) {
      type.kind = TypeRef::Kind::Named;
      type.name = text(n->ID());
      if (type.name.empty())
        return std::nullopt;
      return type;
    }
    if (auto *t = dynamic_cast<G::TensorTypeContext *>(ctx)) {
      type.kind = TypeRef::Kind::Tensor;
      for (G::ExprContext *e : t->expr()) {
        ExprPtr dim = buildExpr(e);
        if (!dim)
          return std::nullopt;
        type.dims.push_back(std::move(dim));
      }
      return type;
    }
    return std::nullopt;
  }

  void buildTrain(G::TrainDeclContext *ctx, Program &program) {
    TrainDecl decl;
    decl.loc = loc(ctx);
    decl.endLoc = endLoc(ctx);
    std::vector<TerminalNode *> ids = ctx->ID();
    if (ids.size() != 2 || text(ids[0]).empty() || text(ids[1]).empty())
      return;
    decl.model = text(ids[0]);
    decl.modelLoc = loc(ids[0]);
    decl.dataset = text(ids[1]);
    decl.datasetLoc = loc(ids[1]);
    if (auto *args = ctx->argList())
      decl.modelArgs = buildArgs(args);
    for (G::TrainSettingContext *s : ctx->trainSetting()) {
      std::vector<TerminalNode *> sids = s->ID();
      if (sids.empty() || text(sids[0]).empty())
        continue;
      TrainSetting setting{text(sids[0]), loc(sids[0]), buildExpr(s->expr(0)),
                           nullptr};
      if (!setting.value)
        continue;
      expandLiteralComprehensions(setting.value);
      if (s->EVERY()) {
        setting.every = buildExpr(s->expr(1));
        if (sids.size() > 1 && text(sids[1]) != "epochs")
          diags.error(loc(sids[1]), "expected 'epochs' after the evaluation "
                                    "interval, found '" +
                                        text(sids[1]) + "'");
      }
      decl.settings.push_back(std::move(setting));
    }
    program.trains.push_back(std::move(decl));
  }

  /// Arguments whose value failed to build are dropped and `*broken` is set.
  std::vector<Arg> buildArgs(G::ArgListContext *ctx, bool *broken = nullptr) {
    std::vector<Arg> args;
    if (!ctx)
      return args;
    for (G::ArgContext *a : ctx->arg()) {
      if (!a)
        continue;
      Arg arg;
      if (a->ID()) {
        arg.name = text(a->ID());
        arg.nameLoc = loc(a->ID());
      }
      arg.value = buildExpr(a->expr());
      if (!arg.value) {
        if (broken)
          *broken = true;
        continue;
      }
      args.push_back(std::move(arg));
    }
    return args;
  }

  std::string unquote(TerminalNode *node) {
    std::string raw = text(node);
    std::string out;
    for (size_t i = 1; i + 1 < raw.size(); ++i) {
      char c = raw[i];
      if (c == '\\' && i + 2 < raw.size()) {
        char e = raw[++i];
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        out += c;
      }
    }
    return out;
  }

  /// Depth guard: every nested expression passes through here.
  ExprPtr buildExpr(G::ExprContext *ctx) {
    if (!ctx)
      return nullptr;
    if (depth >= kMaxNestingDepth) {
      if (!reportedDepth)
        diags.error(loc(ctx), "expression nested more than " +
                                  std::to_string(kMaxNestingDepth) +
                                  " levels deep");
      reportedDepth = true;
      return nullptr;
    }
    ++depth;
    ExprPtr result = buildExprImpl(ctx);
    --depth;
    // A parenthesized expression keeps the inner extent (set first).
    if (result && !result->endLoc.isValid())
      result->endLoc = endLoc(ctx);
    return result;
  }

  ExprPtr buildExprImpl(G::ExprContext *ctx) {
    SourceLoc l = loc(ctx);
    if (auto *e = dynamic_cast<G::IntLiteralContext *>(ctx)) {
      std::string s = text(e->INT());
      errno = 0;
      char *end = nullptr;
      long long v = std::strtoll(s.c_str(), &end, 10);
      if (s.empty())
        return nullptr;
      if (errno == ERANGE) {
        diags.error(l, "integer literal '" + s + "' is too large");
        return nullptr;
      }
      return std::make_unique<IntExpr>(l, v);
    }
    if (auto *e = dynamic_cast<G::FloatLiteralContext *>(ctx)) {
      std::string s = text(e->FLOAT());
      if (s.empty())
        return nullptr;
      double v = std::strtod(s.c_str(), nullptr);
      if (!std::isfinite(v)) {
        diags.error(l, "number '" + s + "' is out of range");
        return nullptr;
      }
      return std::make_unique<FloatExpr>(l, v);
    }
    if (auto *e = dynamic_cast<G::StringLiteralContext *>(ctx))
      return std::make_unique<StringExpr>(l, unquote(e->STRING()));
    if (auto *e = dynamic_cast<G::BoolLiteralContext *>(ctx))
      return std::make_unique<BoolExpr>(l, e->TRUE() != nullptr);
    if (auto *e = dynamic_cast<G::NameExprContext *>(ctx)) {
      // Keywords that are also ordinary words (`train` in a balance list).
      antlr4::Token *start = e->getStart();
      std::string name = start ? start->getText() : "";
      // Recovery can leave another token (`@` in `x @ @ w`) as the start.
      if (!start ||
          (start->getType() != G::ID && start->getType() != G::TRAIN &&
           start->getType() != G::NODE && start->getType() != G::RELATION) ||
          name.rfind("<missing", 0) == 0)
        name.clear();
      if (name.empty())
        return nullptr;
      return std::make_unique<NameExpr>(l, name);
    }
    if (auto *e = dynamic_cast<G::ParenExprContext *>(ctx))
      return buildExpr(e->expr());
    if (auto *e = dynamic_cast<G::MemberExprContext *>(ctx)) {
      ExprPtr base = buildExpr(e->expr());
      std::string member = text(e->ID());
      if (!base || member.empty())
        return nullptr;
      return std::make_unique<MemberExpr>(l, std::move(base), member,
                                          loc(e->ID()));
    }
    if (auto *e = dynamic_cast<G::CallExprContext *>(ctx)) {
      ExprPtr callee = buildExpr(e->expr());
      if (!callee)
        return nullptr;
      // A call missing an argument would be reported again as an arity error.
      bool broken = false;
      std::vector<Arg> args = buildArgs(e->argList(), &broken);
      if (broken)
        return nullptr;
      return std::make_unique<CallExpr>(l, std::move(callee), std::move(args));
    }
    if (auto *e = dynamic_cast<G::IndexExprContext *>(ctx)) {
      std::vector<G::ExprContext *> parts = e->expr();
      if (parts.size() < 2)
        return nullptr;
      ExprPtr base = buildExpr(parts[0]);
      std::vector<ExprPtr> indices;
      for (size_t i = 1; i < parts.size(); ++i)
        if (ExprPtr index = buildExpr(parts[i]))
          indices.push_back(std::move(index));
      if (!base || indices.size() + 1 != parts.size())
        return nullptr;
      return std::make_unique<IndexExpr>(l, std::move(base),
                                         std::move(indices));
    }
    if (auto *e = dynamic_cast<G::ComprehensionExprContext *>(ctx)) {
      ExprPtr element = buildExpr(e->expr(0));
      std::optional<LoopRange> range =
          buildLoopRange(e->ID(0), e->ID(1), e->expr(1));
      if (!element || !range)
        return nullptr;
      return std::make_unique<ComprehensionExpr>(l, std::move(element),
                                                 std::move(*range));
    }
    if (auto *e = dynamic_cast<G::ListExprContext *>(ctx)) {
      std::vector<ExprPtr> elements;
      for (G::ExprContext *part : e->expr())
        if (ExprPtr element = buildExpr(part))
          elements.push_back(std::move(element));
      return std::make_unique<ListExpr>(l, std::move(elements));
    }
    if (auto *e = dynamic_cast<G::NegExprContext *>(ctx)) {
      ExprPtr operand = buildExpr(e->expr());
      if (!operand)
        return nullptr;
      return std::make_unique<NegExpr>(l, std::move(operand));
    }
    if (auto *e = dynamic_cast<G::MulExprContext *>(ctx))
      return buildBinary(l, e->op, e->expr(0), e->expr(1));
    if (auto *e = dynamic_cast<G::AddExprContext *>(ctx))
      return buildBinary(l, e->op, e->expr(0), e->expr(1));
    return nullptr;
  }

  ExprPtr buildBinary(SourceLoc l, antlr4::Token *op, G::ExprContext *lhsCtx,
                      G::ExprContext *rhsCtx) {
    ExprPtr lhs = buildExpr(lhsCtx);
    ExprPtr rhs = buildExpr(rhsCtx);
    if (!lhs || !rhs || !op)
      return nullptr;
    BinaryOp kind;
    switch (op->getType()) {
    case G::PLUS:
      kind = BinaryOp::Add;
      break;
    case G::MINUS:
      kind = BinaryOp::Sub;
      break;
    case G::STAR:
      kind = BinaryOp::Mul;
      break;
    case G::SLASH:
      kind = BinaryOp::Div;
      break;
    case G::AT:
      kind = BinaryOp::MatMul;
      break;
    default:
      return nullptr;
    }
    return std::make_unique<BinaryExpr>(l, kind, std::move(lhs), std::move(rhs),
                                        loc(op));
  }

  uint32_t fileId;
  DiagnosticEngine &diags;
  unsigned depth = 0;
  bool reportedDepth = false;
};

/// Reports lexer error tokens, drops them, and rejects nesting the
/// recursive-descent parser could not survive. Returns false to skip parsing.
bool screenTokens(std::vector<std::unique_ptr<antlr4::Token>> &tokens,
                  uint32_t fileId, DiagnosticEngine &diags,
                  std::map<size_t, size_t> &errorColumns,
                  std::set<size_t> &afterError) {
  std::vector<std::unique_ptr<antlr4::Token>> kept;
  unsigned depth = 0, minusRun = 0;
  size_t lastErrorLine = 0;
  bool afterLexError = false;
  for (auto &token : tokens) {
    SourceLoc l{fileId, static_cast<uint32_t>(token->getLine()),
                static_cast<uint32_t>(token->getCharPositionInLine() + 1)};
    std::string message;
    switch (token->getType()) {
    case gnn_antlr::GnnLexer::ERROR_CHAR: {
      std::string c = token->getText();
      unsigned char byte = c.empty() ? 0 : static_cast<unsigned char>(c[0]);
      if (byte < 0x20 || byte >= 0x7f) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", byte);
        message = std::string("unexpected byte ") + hex;
      } else {
        message = "unexpected character '" + c + "'";
      }
      break;
    }
    case gnn_antlr::GnnLexer::UNTERMINATED_STRING:
      message = "unterminated string literal";
      break;
    case gnn_antlr::GnnLexer::UNTERMINATED_COMMENT:
      message = "unterminated /* comment";
      break;
    default:
      break;
    }
    if (!message.empty()) {
      if (token->getLine() != lastErrorLine)
        diags.error(l, message);
      lastErrorLine = token->getLine();
      errorColumns.emplace(token->getLine(), token->getCharPositionInLine());
      afterLexError = true;
      // An unterminated string still stands for a string, so the parser does
      // not report the missing quote again as a syntax error.
      auto *writable = dynamic_cast<antlr4::WritableToken *>(token.get());
      if (token->getType() != gnn_antlr::GnnLexer::UNTERMINATED_STRING ||
          !writable)
        continue;
      writable->setType(gnn_antlr::GnnLexer::STRING);
      writable->setText(token->getText() + "\"");
    } else if (afterLexError) {
      // Token indices in the parser's stream are positions in `kept`.
      if (token->getChannel() == antlr4::Token::DEFAULT_CHANNEL) {
        afterError.insert(kept.size());
        afterLexError = false;
      }
    }
    switch (token->getType()) {
    case gnn_antlr::GnnLexer::LPAREN:
    case gnn_antlr::GnnLexer::LBRACK:
    case gnn_antlr::GnnLexer::LBRACE:
      ++depth;
      break;
    case gnn_antlr::GnnLexer::RPAREN:
    case gnn_antlr::GnnLexer::RBRACK:
    case gnn_antlr::GnnLexer::RBRACE:
      depth = depth ? depth - 1 : 0;
      break;
    default:
      break;
    }
    minusRun =
        token->getType() == gnn_antlr::GnnLexer::MINUS ? minusRun + 1 : 0;
    if (depth > kMaxNestingDepth || minusRun > kMaxNestingDepth) {
      diags.error(l, "nesting deeper than " + std::to_string(kMaxNestingDepth) +
                         " levels is not supported");
      return false;
    }
    kept.push_back(std::move(token));
  }
  if (afterLexError)
    afterError.insert(kept.size()); // The EOF token the parser appends.
  tokens = std::move(kept);
  return true;
}

/// The first byte of `text` that is not well-formed UTF-8 (or is NUL), as a
/// located error; ANTLR's input stream would throw on it and lose the
/// location. Columns count code points, as ANTLR's do. Returns false after
/// reporting.
bool checkEncoding(const std::string &text, uint32_t fileId,
                   DiagnosticEngine &diags) {
  uint32_t line = 1, column = 1;
  const auto *bytes = reinterpret_cast<const unsigned char *>(text.data());
  const size_t size = text.size();
  for (size_t i = 0; i < size;) {
    const unsigned char lead = bytes[i];
    size_t length = 0;
    uint32_t min = 0, codePoint = 0;
    if (lead == 0) {
      diags.error(SourceLoc{fileId, line, column},
                  "NUL byte in the source: not a .gnn program (it must be "
                  "UTF-8 text)");
      return false;
    }
    if (lead < 0x80) {
      length = 1;
      codePoint = lead;
    } else if ((lead & 0xE0) == 0xC0) {
      length = 2, min = 0x80, codePoint = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3, min = 0x800, codePoint = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4, min = 0x10000, codePoint = lead & 0x07;
    }
    bool valid = length != 0 && i + length <= size;
    for (size_t k = 1; valid && k < length; ++k) {
      valid = (bytes[i + k] & 0xC0) == 0x80;
      codePoint = (codePoint << 6) | (bytes[i + k] & 0x3F);
    }
    // Overlong forms, UTF-16 surrogates and values past U+10FFFF are not
    // UTF-8 either.
    valid = valid && codePoint >= min && codePoint <= 0x10FFFF &&
            !(codePoint >= 0xD800 && codePoint <= 0xDFFF);
    if (!valid) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", lead);
      diags.error(SourceLoc{fileId, line, column},
                  std::string("invalid UTF-8: byte ") + hex +
                      " (the source must be UTF-8 text)");
      return false;
    }
    if (lead == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += length;
  }
  return true;
}

} // namespace

std::unique_ptr<Program> gnn::lang::parseProgram(uint32_t fileId,
                                                 const SourceManager &sources,
                                                 DiagnosticEngine &diags) {
  if (!checkEncoding(sources.text(fileId), fileId, diags)) {
    auto empty = std::make_unique<Program>();
    empty->fileId = fileId;
    return empty;
  }
  try {
    antlr4::ANTLRInputStream input(sources.text(fileId));
    gnn_antlr::GnnLexer lexer(&input);
    lexer.removeErrorListeners();
    std::vector<std::unique_ptr<antlr4::Token>> tokens = lexer.getAllTokens();
    std::map<size_t, size_t> lexErrorColumns;
    std::set<size_t> afterLexError;
    if (!screenTokens(tokens, fileId, diags, lexErrorColumns, afterLexError)) {
      auto empty = std::make_unique<Program>();
      empty->fileId = fileId;
      return empty;
    }
    // An empty file is an empty program; ANTLR's ListTokenSource cannot make
    // the EOF token of an empty list.
    if (tokens.empty()) {
      auto empty = std::make_unique<Program>();
      empty->fileId = fileId;
      return empty;
    }
    antlr4::ListTokenSource source(std::move(tokens));
    antlr4::CommonTokenStream stream(&source);
    G parser(&stream);
    parser.removeErrorListeners();
    SyntaxErrorListener listener(fileId, diags, lexErrorColumns, afterLexError);
    parser.addErrorListener(&listener);
    G::ProgramContext *tree = parser.program();
    ASTBuilder builder(fileId, diags);
    return builder.build(tree);
  } catch (const std::exception &e) {
    diags.error(SourceLoc{fileId, 1, 1},
                std::string("internal parser failure: ") + e.what());
  } catch (...) {
    diags.error(SourceLoc{fileId, 1, 1}, "internal parser failure");
  }
  auto empty = std::make_unique<Program>();
  empty->fileId = fileId;
  return empty;
}
