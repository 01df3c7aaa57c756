//===- Completion.cpp - Completion while the user types ------------------===//
//
// Completion runs while the user types, when the text rarely parses: it
// reads its context (the call the cursor is in, the block it is in, the
// token before it) from a light scan of the text before the cursor, and
// takes names from the partial AST and Sema's tables. A train block's keys
// and their values come from the train-setting records
// (gnnrt/train/TrainSettings.def, through gnn::lang::trainSettings()).
//
//===----------------------------------------------------------------------===//
#include "FeatureSupport.h"
#include "Server.h"

#include "gnn/lang/Builtins.h"

#include <cctype>
#include <filesystem>
#include <optional>

using namespace gnnlsp;
using namespace gnn::lang;

namespace {

/// LSP CompletionItemKind values used here.
enum ItemKind {
  KFunction = 3,
  KField = 5,
  KVariable = 6,
  KClass = 7,
  KModule = 9,
  KProperty = 10,
  KKeyword = 14,
  KEnumMember = 20,
};

struct Token {
  enum Kind { Ident, Number, String, Punct } kind;
  std::string text;
  size_t offset;
};

/// Tokens of text[0, end), comments skipped. `open` is set when `end` lies
/// inside a string or comment (no completion there).
std::vector<Token> scanTokens(const std::string &text, size_t end, bool &open) {
  std::vector<Token> out;
  open = false;
  size_t i = 0;
  while (i < end) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (text.compare(i, 2, "//") == 0) {
      size_t nl = text.find('\n', i);
      if (nl == std::string::npos || nl >= end) {
        open = true;
        return out;
      }
      i = nl;
    } else if (text.compare(i, 2, "/*") == 0) {
      size_t close = text.find("*/", i + 2);
      if (close == std::string::npos || close + 2 > end) {
        open = true;
        return out;
      }
      i = close + 2;
    } else if (c == '"') {
      size_t j = i + 1;
      while (j < end && text[j] != '"' && text[j] != '\n')
        j += text[j] == '\\' ? 2 : 1;
      if (j >= end) {
        open = true;
        return out;
      }
      out.push_back({Token::String, text.substr(i, j + 1 - i), i});
      i = j + 1;
    } else if (isIdentChar(c)) {
      size_t j = i;
      while (j < end && isIdentChar(text[j]))
        ++j;
      Token::Kind kind = std::isdigit(static_cast<unsigned char>(c))
                             ? Token::Number
                             : Token::Ident;
      out.push_back({kind, text.substr(i, j - i), i});
      i = j;
    } else {
      size_t n = text.compare(i, 2, "->") == 0 ? 2 : 1;
      out.push_back({Token::Punct, text.substr(i, n), i});
      i += n;
    }
  }
  return out;
}

class Items {
public:
  explicit Items(std::string prefix) : prefix(std::move(prefix)) {}
  void add(const std::string &label, int kind, const std::string &detail = {},
           const std::string &insert = {}) {
    if (label.compare(0, prefix.size(), prefix) != 0 ||
        !seen.insert(label).second)
      return;
    json item = {{"label", label}, {"kind", kind}};
    if (!detail.empty())
      item["detail"] = detail;
    if (!insert.empty())
      item["insertText"] = insert;
    items.push_back(std::move(item));
  }
  json list() const { return {{"isIncomplete", false}, {"items", items}}; }

private:
  std::string prefix;
  std::set<std::string> seen;
  json items = json::array();
};

/// The choices a train setting's value takes: Sema checks the same names.
std::vector<std::string> settingValues(const std::string &key) {
  const TrainSettingInfo *setting = lookupTrainSetting(key);
  if (!setting)
    return {};
  if (setting->kind == TrainValueKind::Splits)
    return builtinSymbols(SymbolCategory::Split);
  return setting->choices;
}

/// What the text before the cursor says about where it is.
struct Context {
  std::vector<Token> toks;
  /// The innermost unclosed bracket, and the innermost unclosed brace.
  std::optional<size_t> paren, brace;
  /// The keyword that opened the innermost block ("" at the top level).
  std::string block;

  /// The text of the token `fromEnd` places before the cursor (1: the last).
  std::string tok(size_t fromEnd) const {
    return fromEnd <= toks.size() ? toks[toks.size() - fromEnd].text
                                  : std::string();
  }

  void findBrackets() {
    std::vector<char> closers;
    for (size_t i = toks.size(); i-- > 0;) {
      const std::string &t = toks[i].text;
      if (toks[i].kind != Token::Punct)
        continue;
      if (t == ")" || t == "]" || t == "}") {
        closers.push_back(t[0]);
      } else if (t == "(" || t == "[" || t == "{") {
        if (!closers.empty()) {
          closers.pop_back();
          continue;
        }
        if (t == "{") {
          brace = i;
          break;
        }
        if (!paren)
          paren = i;
      }
    }
    if (brace)
      for (size_t i = *brace; i-- > 0;) {
        const std::string &t = toks[i].text;
        if (t == "layer" || t == "model" || t == "train" || t == "forward" ||
            t == "dataset") {
          block = t;
          break;
        }
      }
  }

  /// Inside a call's parentheses at an argument's start.
  bool atArgument() const {
    return paren && toks[*paren].text == "(" && *paren > 0 &&
           toks[*paren - 1].kind == Token::Ident &&
           (tok(1) == "(" || tok(1) == ",");
  }
};

/// The completion of one request: the document's analysis and the items.
class Completer {
public:
  Completer(Document &doc, const Context &ctx, SourceLoc cursorLoc,
            Items &items)
      : ctx(ctx), items(items), program(doc.program()), cursorLoc(cursorLoc),
        sema(doc.compilation ? &doc.compilation->sema() : nullptr),
        sources(doc.compilation ? &doc.compilation->sources() : nullptr) {}

  /// The layers and models (of the import `alias`, or all).
  void addModules(const std::string &alias) {
    if (!sema)
      return;
    for (const auto &[name, m] : sema->modules) {
      const std::string &file = sources->name(m->loc.fileId);
      if (!alias.empty() && file.find("/" + alias + "/") == std::string::npos &&
          file.find("/" + alias + ".gnn") == std::string::npos)
        continue;
      items.add(name, KClass, headerText(*sources, m->beginLoc));
    }
  }

  /// After `x.`: an import alias's layers, a dataset's or a graph's sizes.
  void member() {
    std::string base = ctx.tok(2);
    bool alias = false;
    if (program)
      for (const ImportDecl &d : program->imports)
        alias |= !d.isPath && !d.path.empty() && d.path.front() == base;
    if (alias)
      addModules(base);
    else if (sema && sema->datasets.count(base))
      for (const char *a : {"features", "classes", "nodes"})
        items.add(a, KProperty, "int");
    else
      for (const char *a : {"src", "dst", "edges"})
        items.add(a, KProperty, "int");
  }

  /// Named arguments of the call the cursor is in, those not given yet.
  void arguments() {
    const std::vector<Token> &toks = ctx.toks;
    const size_t paren = *ctx.paren;
    const std::string callee = toks[paren - 1].text;
    // Arguments already given: by name, or by position before any name.
    std::set<std::string> given;
    size_t positional = 0;
    bool named = false;
    int depth = 0;
    for (size_t i = paren + 1; i < toks.size(); ++i) {
      const std::string &t = toks[i].text;
      depth += t == "(" || t == "[" ? 1 : t == ")" || t == "]" ? -1 : 0;
      if (depth == 0 && i + 1 < toks.size() && toks[i].kind == Token::Ident &&
          toks[i + 1].text == "=") {
        given.insert(t);
        named = true;
      }
      if (depth == 0 && t == "," && !named)
        ++positional;
    }
    auto addParams = [&](const std::vector<FormalParam> &params,
                         const std::string &owner) {
      for (size_t i = positional; i < params.size(); ++i)
        if (!given.count(params[i].name))
          items.add(params[i].name, KField, "argument of " + owner,
                    params[i].name + " = ");
    };
    const ModuleDecl *module = nullptr;
    if (sema)
      if (auto it = sema->modules.find(callee); it != sema->modules.end())
        module = it->second;
    const std::string &block = ctx.block;
    bool isTrain = paren >= 2 && toks[paren - 2].text == "train";
    BuiltinContext context = block == "train"     ? BuiltinContext::TrainSetting
                             : block == "forward" ? BuiltinContext::Forward
                             : block.empty() ? BuiltinContext::DatasetSource
                                             : BuiltinContext::Initializer;
    if (module && (isTrain || block == "layer" || block == "model")) {
      addParams(module->params, callee);
    } else if (const Builtin *b = anyBuiltin(callee, context)) {
      for (size_t i = positional; i < b->params.size(); ++i)
        if (const BuiltinParam &p = b->params[i]; !given.count(p.name))
          items.add(p.name, KField,
                    std::string(kindName(p.kind)) + " (argument of " + b->name +
                        ")",
                    std::string(p.name) + " = ");
    } else if (program && sema) {
      // Calling a sub-layer: its forward's parameters.
      ASTPath path = findPath(*program, cursorLoc);
      if (path.module)
        for (const SubLayerDecl &s : path.module->subLayers)
          if (s.name == callee)
            if (auto info = sema->moduleInfo.find(path.module);
                info != sema->moduleInfo.end())
              if (auto sub = info->second.subLayers.find(callee);
                  sub != info->second.subLayers.end() && sub->second.layer &&
                  sub->second.layer->forward)
                addParams(sub->second.layer->forward->params, callee);
    }
  }

  /// Outside every block: keywords, a dataset's source, import names.
  void topLevel(const std::vector<std::string> &importPaths) {
    if (ctx.tok(1) == "import") {
      std::error_code ec;
      for (const std::string &dir : importPaths)
        for (const auto &entry : std::filesystem::directory_iterator(dir, ec))
          items.add(entry.path().stem().string(), KModule, "module");
      return;
    }
    if (ctx.tok(1) == "=" && ctx.tok(3) == "dataset" && !ctx.paren) {
      for (const Builtin &b : builtins())
        if (b.context == BuiltinContext::DatasetSource)
          items.add(b.name, KFunction, builtinSignature(b));
      return;
    }
    if (!ctx.paren)
      for (const char *k : {"import", "dataset", "layer", "model", "train"})
        items.add(k, KKeyword);
  }

  /// In a train block: after `key =` the key's choices, else the keys.
  void trainBlock() {
    if (ctx.tok(1) == "=") {
      for (const std::string &v : settingValues(ctx.tok(2))) {
        const Builtin *b = lookupBuiltin(v, BuiltinContext::TrainSetting);
        items.add(v, b ? KFunction : KEnumMember,
                  b ? builtinSignature(*b) : std::string());
      }
      return;
    }
    for (const std::string &k : trainSettingKeys())
      items.add(k, KProperty, "train setting", k + " = ");
  }

  /// In a layer's or model's body: initializers, sub-layers, datasets.
  void moduleBody() {
    if (ctx.tok(1) == "=") {
      addModules("");
      for (const std::string &s : builtinSymbols(SymbolCategory::Initializer))
        items.add(s, KEnumMember, "initializer");
      for (const Builtin &b : builtins())
        if (b.context == BuiltinContext::Initializer)
          items.add(b.name, KFunction, builtinSignature(b));
    } else if (!ctx.paren) {
      items.add("param", KKeyword);
      items.add("forward", KKeyword);
    }
    if (sema)
      for (const auto &[name, d] : sema->datasets)
        items.add(name, KVariable, "dataset");
  }

  /// Inside a forward (or a dataset body): the values in scope, builtins.
  void values() {
    if (program && sema) {
      ASTPath path = findPath(*program, cursorLoc);
      if (const ModuleDecl *m = path.module) {
        if (m->forward)
          for (const FormalParam &p : m->forward->params)
            items.add(p.name, KVariable, "forward parameter");
        if (m->forward)
          addLocals(m->forward->body);
        for (const FormalParam &p : m->params)
          items.add(p.name, KVariable, "parameter");
        for (const WeightDecl &w : m->weights)
          items.add(w.name, KVariable, "param");
        for (const SubLayerDecl &s : m->subLayers)
          items.add(s.name, KVariable, "sub-layer");
      }
      for (const auto &[name, d] : sema->datasets)
        items.add(name, KVariable, "dataset");
    }
    if (!ctx.paren) {
      items.add("return", KKeyword);
      items.add("for", KKeyword, "for i in range(n) { ... }");
    }
    for (const Builtin &b : builtins())
      if (b.context == BuiltinContext::Forward)
        items.add(b.name, KFunction, builtinSignature(b));
    for (SymbolCategory cat : {SymbolCategory::Reduce, SymbolCategory::Side})
      for (const std::string &s : builtinSymbols(cat))
        items.add(s, KEnumMember,
                  cat == SymbolCategory::Reduce ? "reduce" : "side");
  }

private:
  /// The locals assigned before the cursor's line, and the variables of the
  /// loops around it.
  void addLocals(const std::vector<Stmt> &body) {
    for (const Stmt &s : body) {
      if (s.loc.line >= cursorLoc.line)
        break;
      if (s.kind == Stmt::Kind::Assign)
        items.add(s.name, KVariable,
                  s.value && !s.value->type.isError() ? s.value->type.str()
                                                      : std::string("local"));
      if (s.kind != Stmt::Kind::For)
        continue;
      if (s.endLoc.line >= cursorLoc.line) {
        items.add(s.range.var, KVariable, "loop variable");
        addLocals(s.body);
      }
    }
  }

  const Context &ctx;
  Items &items;
  const Program *program;
  const SourceLoc cursorLoc;
  const SemaResult *sema;
  const SourceManager *sources;
};

} // namespace

json Server::completion(Document &doc, const json &position) {
  TextLines lines(doc.text);
  auto [line, character] = lineAndCharacter(position);
  size_t cursor = lines.offsetOf(line, character);
  bool open = false;
  Context ctx;
  ctx.toks = scanTokens(doc.text, cursor, open);
  std::vector<Token> &toks = ctx.toks;
  std::string prefix;
  if (!open && !toks.empty() && toks.back().kind == Token::Ident &&
      toks.back().offset + toks.back().text.size() == cursor) {
    prefix = toks.back().text;
    toks.pop_back();
  }
  Items items(prefix);
  if (open)
    return items.list();
  Completer complete(doc, ctx, toLoc(doc, position), items);

  if (ctx.tok(1) == "." && toks.size() >= 2 &&
      toks[toks.size() - 2].kind == Token::Ident) {
    complete.member();
    return items.list();
  }
  ctx.findBrackets();
  if (ctx.atArgument()) {
    complete.arguments();
    if (ctx.block != "forward")
      return items.list();
  }
  if (ctx.block.empty())
    complete.topLevel(importPaths);
  else if (ctx.block == "train" && !ctx.paren)
    complete.trainBlock();
  else if (ctx.block == "layer" || ctx.block == "model")
    complete.moduleBody();
  else
    complete.values();
  return items.list();
}
