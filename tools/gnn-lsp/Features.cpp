//===- Features.cpp - Hover, definition, completion, symbols --------------===//
//
// The language features, answered from the document's last analysis. Hover
// and definition find the AST nodes under the cursor (gnn/lang/ASTQuery.h)
// and read what Sema recorded: each expression's inferred type, the module
// and builtin tables. Completion runs while the user types, when the text
// rarely parses: it reads its context (the call the cursor is in, the block
// it is in, the token before it) from a light scan of the text before the
// cursor, and takes names from the partial AST and Sema's tables.
//
//===----------------------------------------------------------------------===//
#include "Server.h"

#include "gnn/lang/Builtins.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

using namespace gnnlsp;
using namespace gnn::lang;

//===----------------------------------------------------------------------===//
// Text helpers
//===----------------------------------------------------------------------===//

namespace {

/// The line and character of an LSP position (unsigned integers).
std::pair<size_t, size_t> lineAndCharacter(const json &position) {
  const json &line = position.at("line"), &character = position.at("character");
  if (!line.is_number_unsigned() || !character.is_number_unsigned())
    throw RequestError{InvalidParams, "a position's line and character must "
                                      "be non-negative integers"};
  return {line.get<size_t>(), character.get<size_t>()};
}

/// The SourceLoc of an LSP position in `doc`'s main file.
SourceLoc toLoc(const Document &doc, const json &position) {
  auto [line, character] = lineAndCharacter(position);
  TextLines lines(doc.text);
  std::string_view text = lines.line(line);
  size_t byte = utf16ToByte(text, character);
  uint32_t file = doc.program() ? doc.program()->fileId : 1;
  return {file, static_cast<uint32_t>(line + 1),
          static_cast<uint32_t>(byteToCodepoint(text, byte) + 1)};
}

/// Byte offset of `loc` in its file's text.
size_t offsetOf(const SourceManager &sources, SourceLoc loc) {
  const std::string &text = sources.text(loc.fileId);
  std::string_view line = sources.lineText(loc.fileId, loc.line);
  if (line.data() < text.data() || line.data() > text.data() + text.size())
    return text.size();
  size_t base = static_cast<size_t>(line.data() - text.data());
  return base + codepointToByte(line, loc.column ? loc.column - 1 : 0);
}

/// Whitespace runs (newlines included) become one space.
std::string collapse(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ')
        out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out;
}

/// The source text of [begin, end), collapsed and cut to `limit` bytes.
std::string sourceText(const SourceManager &sources, SourceLoc begin,
                       SourceLoc end, size_t limit = 80) {
  if (!begin.isValid() || !end.isValid() || end.fileId != begin.fileId)
    return {};
  size_t b = offsetOf(sources, begin), e = offsetOf(sources, end);
  if (e <= b)
    return {};
  std::string s =
      collapse(std::string_view(sources.text(begin.fileId)).substr(b, e - b));
  if (s.size() > limit)
    s = s.substr(0, limit - 3) + "...";
  return s;
}

/// Text from `begin` up to the first `{` outside brackets: a declaration's
/// header as written (`layer GCNConv(in: int, out: int)`).
std::string headerText(const SourceManager &sources, SourceLoc begin) {
  if (!begin.isValid())
    return {};
  const std::string &text = sources.text(begin.fileId);
  size_t b = offsetOf(sources, begin), e = b;
  int depth = 0;
  for (; e < text.size(); ++e) {
    char c = text[e];
    if (c == '(' || c == '[')
      ++depth;
    else if ((c == ')' || c == ']') && depth > 0)
      --depth;
    else if ((c == '{' || c == '}') && depth == 0)
      break;
    if (e - b > 400)
      break;
  }
  return collapse(std::string_view(text).substr(b, e - b));
}

/// The `//` comment lines right above line `line` (1-based), joined.
std::string docComment(const SourceManager &sources, uint32_t fileId,
                       uint32_t line) {
  std::vector<std::string> lines;
  for (uint32_t l = line; l > 1 && lines.size() < 12; --l) {
    std::string_view text = sources.lineText(fileId, l - 1);
    size_t first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos ||
        text.substr(first, 2) != std::string_view("//"))
      break;
    std::string_view body = text.substr(first + 2);
    if (!body.empty() && body.front() == ' ')
      body.remove_prefix(1);
    lines.emplace_back(body);
  }
  std::string out;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    out += (out.empty() ? "" : " ") + *it;
  return out;
}

bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// The identifier under (or just before) `loc`, and where it starts.
std::string wordAt(const SourceManager &sources, SourceLoc loc,
                   SourceLoc *start = nullptr) {
  std::string_view line = sources.lineText(loc.fileId, loc.line);
  size_t at = codepointToByte(line, loc.column ? loc.column - 1 : 0);
  size_t b = at, e = at;
  while (b > 0 && isIdentChar(line[b - 1]))
    --b;
  while (e < line.size() && isIdentChar(line[e]))
    ++e;
  if (b == e || std::isdigit(static_cast<unsigned char>(line[b])))
    return {};
  if (start)
    *start = {loc.fileId, loc.line,
              static_cast<uint32_t>(byteToCodepoint(line, b) + 1)};
  return std::string(line.substr(b, e - b));
}

bool onName(SourceLoc cursor, SourceLoc nameLoc, const std::string &name) {
  return nameLoc.isValid() && cursor.fileId == nameLoc.fileId &&
         cursor.line == nameLoc.line && cursor.column >= nameLoc.column &&
         cursor.column <= nameLoc.column + name.size();
}

const char *kindName(ParamKind kind) {
  switch (kind) {
  case ParamKind::Graph:
    return "graph";
  case ParamKind::Tensor:
    return "tensor";
  case ParamKind::TensorList:
    return "list[tensor]";
  case ParamKind::Int:
    return "int";
  case ParamKind::Float:
    return "float";
  case ParamKind::Bool:
    return "bool";
  case ParamKind::String:
    return "string";
  case ParamKind::DimList:
    return "list[int]";
  case ParamKind::Reduce:
    return "sum|mean|max|min";
  case ParamKind::Side:
    return "src|dst";
  case ParamKind::RelationFanouts:
    return "list[relation(name, fanout)]";
  case ParamKind::Any:
    return "any";
  }
  return "any";
}

/// `aggregate(g: graph, x: tensor, reduce?: sum|mean|max|min, ...)`.
std::string builtinSignature(const Builtin &b) {
  std::string s = std::string(b.name) + "(";
  for (size_t i = 0; i < b.params.size(); ++i) {
    const BuiltinParam &p = b.params[i];
    s += (i ? ", " : "") + std::string(p.name) + (p.required ? ": " : "?: ") +
         kindName(p.kind);
  }
  return s + ")";
}

/// A type for display: ints show their symbolic value (`int = g.dst`)
/// unless it is what `spelled` already says.
std::string typeText(const Type &t, const std::string &spelled = {}) {
  std::string s = t.str();
  if (t.kind == TypeKind::Int && t.intValue && t.intValue->str() != spelled)
    s += " = " + t.intValue->str();
  return s;
}

json markdown(const std::string &value) {
  return {{"contents", {{"kind", "markdown"}, {"value", value}}}};
}

std::string codeBlock(const std::string &code) {
  return "```gnn\n" + code + "\n```";
}

/// A layer's or model's header, its forward's (with the types Sema inferred
/// where the forward leaves them out), and its doc comment.
std::string moduleHover(const SourceManager &sources, const ModuleDecl &m,
                        const SemaResult &sema) {
  std::string code = headerText(sources, m.beginLoc);
  if (m.forward)
    code += "\n" + headerText(sources, m.forward->loc);
  auto info = sema.moduleInfo.find(&m);
  bool untyped = m.forward && !m.forward->result;
  if (m.forward)
    for (const FormalParam &p : m.forward->params)
      untyped |= !p.type;
  if (untyped && info != sema.moduleInfo.end() &&
      info->second.forwardParamTypes.size() == m.forward->params.size()) {
    code += "\n// inferred: forward(";
    for (size_t i = 0; i < m.forward->params.size(); ++i)
      code += (i ? ", " : "") + m.forward->params[i].name + ": " +
              info->second.forwardParamTypes[i].str();
    code += ") -> " + info->second.forwardResult.str();
  }
  std::string md = codeBlock(code);
  std::string doc = docComment(sources, m.beginLoc.fileId, m.beginLoc.line);
  if (!doc.empty())
    md += "\n\n" + doc;
  return md;
}

std::string builtinHover(const Builtin &b) {
  return codeBlock(builtinSignature(b)) + "\n\n" + b.summary;
}

json location(const SourceManager &sources, SourceLoc loc) {
  return {{"uri", pathToUri(sources.name(loc.fileId))},
          {"range", tokenRange(sources, loc)}};
}

/// A builtin named `name`, preferring the one callable in `context`.
const Builtin *anyBuiltin(const std::string &name, BuiltinContext context) {
  if (const Builtin *b = lookupBuiltin(name, context))
    return b;
  for (const Builtin &b : builtins())
    if (name == b.name)
      return &b;
  return nullptr;
}

/// A declaration a name resolves to.
struct Resolved {
  SourceLoc loc;
  const ModuleDecl *module = nullptr;   ///< A layer or model.
  const DatasetDecl *dataset = nullptr; ///< A dataset.
};

/// Resolves `name` as Sema's checkName does: locals assigned before the
/// statement, forward parameters, module parameters, weights and sub-layers,
/// then datasets and modules of every loaded file.
Resolved resolveName(const std::string &name, const ASTPath &path,
                     const SemaResult &sema) {
  Resolved r;
  if (const ModuleDecl *m = path.module) {
    if (path.forward) {
      for (const Stmt &s : path.forward->body) {
        if (path.stmt && !isBefore(s.loc, path.stmt->loc))
          break;
        if (s.kind == Stmt::Kind::Assign && s.name == name)
          r.loc = s.loc;
      }
      if (r.loc.isValid())
        return r;
      for (const FormalParam &p : path.forward->params)
        if (p.name == name)
          return {p.loc};
    }
    for (const FormalParam &p : m->params)
      if (p.name == name)
        return {p.loc};
    for (const WeightDecl &w : m->weights)
      if (w.name == name)
        return {w.loc};
    for (const SubLayerDecl &s : m->subLayers)
      if (s.name == name)
        return {s.loc};
  }
  if (auto it = sema.datasets.find(name); it != sema.datasets.end())
    return {it->second->loc, nullptr, it->second};
  if (auto it = sema.modules.find(name); it != sema.modules.end())
    return {it->second->loc, it->second, nullptr};
  return r;
}

} // namespace

//===----------------------------------------------------------------------===//
// Hover
//===----------------------------------------------------------------------===//

json Server::hover(Document &doc, const json &position) {
  const Program *program = doc.program();
  if (!program)
    return nullptr;
  const Compilation &c = *doc.compilation;
  const SourceManager &sources = doc.compilation->sources();
  const SemaResult &sema = c.sema();
  SourceLoc loc = toLoc(doc, position);
  ASTPath path = findPath(*program, loc);

  if (const Expr *e = path.innermost()) {
    const Expr *parent =
        path.exprs.size() >= 2 ? path.exprs[path.exprs.size() - 2] : nullptr;
    auto *call = dyn_cast<CallExpr>(parent);
    bool isCallee = call && call->callee.get() == e;
    std::string result;
    if (isCallee && !call->type.isError())
      result = "\n\nResult: `" + call->type.str() + "`";
    // A callee: the builtin's or the layer's signature.
    if (isCallee) {
      if (auto it = sema.builtinCalls.find(call);
          it != sema.builtinCalls.end() && it->second.builtin)
        return markdown(builtinHover(*it->second.builtin) + result);
    }
    std::string name;
    if (auto *n = dyn_cast<NameExpr>(e))
      name = n->name;
    else if (auto *m = dyn_cast<MemberExpr>(e);
             m && !isBefore(loc, m->memberLoc) && isa<NameExpr>(m->base.get()))
      name = m->member;
    if (!name.empty()) {
      if (path.module) {
        if (auto info = sema.moduleInfo.find(path.module);
            info != sema.moduleInfo.end())
          if (auto sub = info->second.subLayers.find(name);
              sub != info->second.subLayers.end() && sub->second.layer &&
              (isCallee || e->type.kind == TypeKind::Module))
            return markdown(moduleHover(sources, *sub->second.layer, sema) +
                            result);
      }
      if (e->type.kind == TypeKind::Function || isCallee || e->type.isError())
        if (auto it = sema.modules.find(name); it != sema.modules.end())
          return markdown(moduleHover(sources, *it->second, sema) + result);
      if (e->type.kind == TypeKind::Function)
        if (const Builtin *b = anyBuiltin(name, BuiltinContext::Forward))
          return markdown(builtinHover(*b));
      if (e->type.kind == TypeKind::Dataset)
        if (auto it = sema.datasets.find(name); it != sema.datasets.end())
          return markdown(codeBlock("dataset " + name + " = " +
                                    sourceText(sources, it->second->source->loc,
                                               it->second->source->endLoc)));
    }
    if (e->type.isError())
      return nullptr;
    std::string text = sourceText(sources, e->loc, e->endLoc, 60);
    return {{"contents",
             {{"kind", "markdown"},
              {"value", codeBlock(text + ": " + typeText(e->type, text))}}},
            {"range", lspRange(sources, e->loc, e->endLoc)}};
  }

  // Not in an expression: a declared name.
  std::string name = wordAt(sources, loc);
  if (name.empty())
    return nullptr;
  if (const ModuleDecl *m = path.module) {
    const ModuleInfo *info = nullptr;
    if (auto it = sema.moduleInfo.find(m); it != sema.moduleInfo.end())
      info = &it->second;
    if (onName(loc, m->loc, m->name))
      return markdown(moduleHover(sources, *m, sema));
    if (path.stmt && onName(loc, path.stmt->loc, path.stmt->name) &&
        path.stmt->value && !path.stmt->value->type.isError())
      return markdown(
          codeBlock(name + ": " + typeText(path.stmt->value->type)));
    if (path.forward && info)
      for (size_t i = 0; i < path.forward->params.size(); ++i)
        if (onName(loc, path.forward->params[i].loc, name) &&
            path.forward->params[i].name == name &&
            i < info->forwardParamTypes.size())
          return markdown(
              codeBlock(name + ": " + typeText(info->forwardParamTypes[i])));
    if (info)
      for (size_t i = 0; i < m->params.size() && i < info->paramTypes.size();
           ++i)
        if (m->params[i].name == name && onName(loc, m->params[i].loc, name))
          return markdown(codeBlock(name + ": " + info->paramTypes[i].str()));
    for (const WeightDecl &w : m->weights)
      if (w.name == name && onName(loc, w.loc, name) && info)
        if (auto t = info->weightTypes.find(name);
            t != info->weightTypes.end() && !t->second.isError())
          return markdown(codeBlock("param " + name + ": " + t->second.str()));
    return nullptr;
  }
  if (const TrainDecl *t = path.train) {
    if (onName(loc, t->modelLoc, t->model))
      if (auto it = sema.modules.find(t->model); it != sema.modules.end())
        return markdown(moduleHover(sources, *it->second, sema));
    if (onName(loc, t->datasetLoc, t->dataset))
      if (auto it = sema.datasets.find(t->dataset); it != sema.datasets.end())
        return markdown(codeBlock(headerText(sources, it->second->beginLoc)));
    if (path.setting && onName(loc, path.setting->loc, path.setting->key))
      return markdown(codeBlock("train setting " + path.setting->key));
    return nullptr;
  }
  if (const DatasetDecl *d = path.dataset)
    if (onName(loc, d->loc, d->name))
      return markdown(codeBlock(headerText(sources, d->beginLoc)));
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Definition
//===----------------------------------------------------------------------===//

json Server::definition(Document &doc, const json &position) {
  const Program *program = doc.program();
  if (!program)
    return nullptr;
  Compilation &c = *doc.compilation;
  const SourceManager &sources = c.sources();
  SourceLoc loc = toLoc(doc, position);
  ASTPath path = findPath(*program, loc);

  // `import nn`: the files it loads.
  for (const ImportDecl &decl : program->imports)
    if (decl.loc.line == loc.line) {
      json locations = json::array();
      for (const std::string &file :
           c.resolveImport(decl, sources.name(program->fileId)))
        locations.push_back({{"uri", pathToUri(file)},
                             {"range",
                              {{"start", {{"line", 0}, {"character", 0}}},
                               {"end", {{"line", 0}, {"character", 0}}}}}});
      return locations.empty() ? json(nullptr) : locations;
    }

  std::string name;
  if (const Expr *e = path.innermost()) {
    if (auto *n = dyn_cast<NameExpr>(e)) {
      name = n->name;
    } else if (auto *m = dyn_cast<MemberExpr>(e)) {
      // `nn.GCNConv`: the layer; `cora.features`, `g.dst`: no declaration.
      if (isBefore(loc, m->memberLoc))
        return nullptr;
      auto it = c.sema().modules.find(m->member);
      return it == c.sema().modules.end() ? json(nullptr)
                                          : location(sources, it->second->loc);
    }
  } else {
    name = wordAt(sources, loc);
    // A train block names its model and dataset outside any expression.
    if (const TrainDecl *t = path.train) {
      if (!onName(loc, t->modelLoc, t->model) &&
          !onName(loc, t->datasetLoc, t->dataset))
        return nullptr;
    } else if (path.stmt && onName(loc, path.stmt->loc, path.stmt->name)) {
      // An assignment's target defines itself.
      return location(sources, path.stmt->loc);
    }
  }
  if (name.empty())
    return nullptr;
  Resolved r = resolveName(name, path, c.sema());
  return r.loc.isValid() ? location(sources, r.loc) : json(nullptr);
}

//===----------------------------------------------------------------------===//
// Completion
//===----------------------------------------------------------------------===//

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

/// The choices a train setting's value takes (Sema checks the same names).
std::vector<std::string> settingValues(const std::string &key) {
  if (key == "partition")
    return {"metis", "random", "frequency"};
  if (key == "batches")
    return {"full_graph", "neighbor"};
  if (key == "optimizer")
    return {"adam", "adamw", "sgd"};
  if (key == "loss")
    return builtinSymbols(SymbolCategory::Loss);
  if (key == "aggregation")
    return builtinSymbols(SymbolCategory::Aggregation);
  if (key == "evaluate")
    return builtinSymbols(SymbolCategory::Split);
  return {};
}

} // namespace

json Server::completion(Document &doc, const json &position) {
  TextLines lines(doc.text);
  auto [line, character] = lineAndCharacter(position);
  size_t cursor = lines.offsetOf(line, character);
  bool open = false;
  std::vector<Token> toks = scanTokens(doc.text, cursor, open);
  std::string prefix;
  if (!open && !toks.empty() && toks.back().kind == Token::Ident &&
      toks.back().offset + toks.back().text.size() == cursor) {
    prefix = toks.back().text;
    toks.pop_back();
  }
  Items items(prefix);
  if (open)
    return items.list();
  auto tok = [&](size_t fromEnd) -> std::string {
    return fromEnd <= toks.size() ? toks[toks.size() - fromEnd].text
                                  : std::string();
  };
  const Program *program = doc.program();
  const SourceLoc cursorLoc = toLoc(doc, position);
  const SemaResult *sema = doc.compilation ? &doc.compilation->sema() : nullptr;
  const SourceManager *sources =
      doc.compilation ? &doc.compilation->sources() : nullptr;

  auto addModules = [&](const std::string &alias) {
    if (!sema)
      return;
    for (const auto &[name, m] : sema->modules) {
      const std::string &file = sources->name(m->loc.fileId);
      if (!alias.empty() && file.find("/" + alias + "/") == std::string::npos &&
          file.find("/" + alias + ".gnn") == std::string::npos)
        continue;
      items.add(name, KClass, headerText(*sources, m->beginLoc));
    }
  };

  // After `x.`: an import alias's layers, a dataset's or a graph's sizes.
  if (tok(1) == "." && toks.size() >= 2 &&
      toks[toks.size() - 2].kind == Token::Ident) {
    std::string base = tok(2);
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
    return items.list();
  }

  // The innermost unclosed bracket, and the innermost unclosed brace.
  std::optional<size_t> paren, brace;
  {
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
  }
  // The keyword that opened the innermost block.
  std::string block;
  if (brace)
    for (size_t i = *brace; i-- > 0;) {
      const std::string &t = toks[i].text;
      if (t == "layer" || t == "model" || t == "train" || t == "forward" ||
          t == "dataset") {
        block = t;
        break;
      }
    }

  // Inside a call's parentheses at an argument's start: named arguments.
  if (paren && toks[*paren].text == "(" && *paren > 0 &&
      toks[*paren - 1].kind == Token::Ident &&
      (tok(1) == "(" || tok(1) == ",")) {
    const std::string callee = toks[*paren - 1].text;
    // Arguments already given: by name, or by position before any name.
    std::set<std::string> given;
    size_t positional = 0;
    bool named = false;
    int depth = 0;
    for (size_t i = *paren + 1; i < toks.size(); ++i) {
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
    bool isTrain = *paren >= 2 && toks[*paren - 2].text == "train";
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
    if (block != "forward")
      return items.list();
  }

  if (block.empty()) {
    // Top level.
    if (tok(1) == "import") {
      std::error_code ec;
      for (const std::string &dir : importPaths)
        for (const auto &entry : std::filesystem::directory_iterator(dir, ec))
          items.add(entry.path().stem().string(), KModule, "module");
      return items.list();
    }
    if (tok(1) == "=" && tok(3) == "dataset" && !paren) {
      for (const Builtin &b : builtins())
        if (b.context == BuiltinContext::DatasetSource)
          items.add(b.name, KFunction, builtinSignature(b));
      return items.list();
    }
    if (!paren)
      for (const char *k : {"import", "dataset", "layer", "model", "train"})
        items.add(k, KKeyword);
    return items.list();
  }

  if (block == "train" && !paren) {
    if (tok(1) == "=") {
      for (const std::string &v : settingValues(tok(2))) {
        const Builtin *b = lookupBuiltin(v, BuiltinContext::TrainSetting);
        items.add(v, b ? KFunction : KEnumMember,
                  b ? builtinSignature(*b) : std::string());
      }
      return items.list();
    }
    for (const std::string &k : trainSettingKeys())
      items.add(k, KProperty, "train setting", k + " = ");
    return items.list();
  }

  if (block == "layer" || block == "model") {
    if (tok(1) == "=") {
      addModules("");
      for (const std::string &s : builtinSymbols(SymbolCategory::Initializer))
        items.add(s, KEnumMember, "initializer");
      for (const Builtin &b : builtins())
        if (b.context == BuiltinContext::Initializer)
          items.add(b.name, KFunction, builtinSignature(b));
    } else if (!paren) {
      items.add("param", KKeyword);
      items.add("forward", KKeyword);
    }
    if (sema)
      for (const auto &[name, d] : sema->datasets)
        items.add(name, KVariable, "dataset");
    return items.list();
  }

  // Inside a forward (or a dataset body): values.
  if (program && sema) {
    ASTPath path = findPath(*program, cursorLoc);
    if (const ModuleDecl *m = path.module) {
      if (m->forward)
        for (const FormalParam &p : m->forward->params)
          items.add(p.name, KVariable, "forward parameter");
      if (m->forward)
        for (const Stmt &s : m->forward->body)
          if (s.kind == Stmt::Kind::Assign && s.loc.line < cursorLoc.line)
            items.add(s.name, KVariable,
                      s.value && !s.value->type.isError()
                          ? s.value->type.str()
                          : std::string("local"));
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
  if (!paren)
    items.add("return", KKeyword);
  for (const Builtin &b : builtins())
    if (b.context == BuiltinContext::Forward)
      items.add(b.name, KFunction, builtinSignature(b));
  for (SymbolCategory cat : {SymbolCategory::Reduce, SymbolCategory::Side})
    for (const std::string &s : builtinSymbols(cat))
      items.add(s, KEnumMember,
                cat == SymbolCategory::Reduce ? "reduce" : "side");
  return items.list();
}

//===----------------------------------------------------------------------===//
// Document symbols
//===----------------------------------------------------------------------===//

/// LSP SymbolKind values used here.
enum SymbolKind {
  SMethod = 6,
  SProperty = 7,
  SField = 8,
  SClass = 5,
  SStruct = 23,
  SVariable = 13,
  SKey = 20,
  SEvent = 24,
  STypeParameter = 26,
};

static json symbol(const SourceManager &sources, const std::string &name,
                   int kind, const std::string &detail, SourceLoc nameLoc,
                   SourceLoc begin = {}, SourceLoc end = {}) {
  json selection = tokenRange(sources, nameLoc);
  json range = selection;
  if (begin.isValid() && end.isValid() && !isBefore(end, begin))
    range = lspRange(sources, begin, end);
  json s = {{"name", name.empty() ? std::string("?") : name},
            {"kind", kind},
            {"range", range},
            {"selectionRange", selection}};
  if (!detail.empty())
    s["detail"] = detail;
  return s;
}

json Server::documentSymbols(Document &doc) {
  json result = json::array();
  const Program *program = doc.program();
  if (!program)
    return result;
  const SourceManager &sources = doc.compilation->sources();
  std::vector<std::pair<SourceLoc, json>> items;
  for (const DatasetDecl &d : program->datasets)
    items.push_back({d.loc, symbol(sources, d.name, SVariable, "dataset", d.loc,
                                   d.beginLoc, d.endLoc)});
  for (const auto &m : program->modules) {
    json s = symbol(sources, m->name, m->isModel ? SStruct : SClass,
                    m->kindName(), m->loc, m->beginLoc, m->endLoc);
    json children = json::array();
    for (const FormalParam &p : m->params)
      children.push_back(
          symbol(sources, p.name, STypeParameter, "parameter", p.loc));
    for (const WeightDecl &w : m->weights)
      children.push_back(symbol(sources, w.name, SField, "param", w.loc));
    for (const SubLayerDecl &sub : m->subLayers)
      children.push_back(
          symbol(sources, sub.name, SProperty, "sub-layer", sub.loc));
    if (m->forward)
      children.push_back(symbol(
          sources, "forward", SMethod, headerText(sources, m->forward->loc),
          m->forward->loc, m->forward->loc, m->forward->endLoc));
    s["children"] = children;
    items.push_back({m->loc, s});
  }
  for (const TrainDecl &t : program->trains) {
    json s = symbol(sources, "train " + t.model + " on " + t.dataset, SEvent,
                    "train", t.loc, t.loc, t.endLoc);
    json children = json::array();
    for (const TrainSetting &setting : t.settings)
      children.push_back(symbol(
          sources, setting.key, SKey,
          setting.value
              ? sourceText(sources, setting.value->loc, setting.value->endLoc)
              : std::string(),
          setting.loc));
    s["children"] = children;
    items.push_back({t.loc, s});
  }
  std::stable_sort(
      items.begin(), items.end(),
      [](const auto &a, const auto &b) { return isBefore(a.first, b.first); });
  for (auto &[loc, s] : items)
    result.push_back(std::move(s));
  return result;
}
