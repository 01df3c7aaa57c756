//===- Features.cpp - Hover, definition, symbols
//---------------------------===//
//
// The language features, answered from the document's last analysis. Hover
// and definition find the AST nodes under the cursor (gnn/lang/ASTQuery.h)
// and read what Sema recorded: each expression's inferred type, the module
// and builtin tables. Completion is in Completion.cpp.
//
//===----------------------------------------------------------------------===//
#include "FeatureSupport.h"
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

namespace gnnlsp {

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
  case ParamKind::Metric:
    return "valid_loss|valid_acc";
  case ParamKind::ParamSelector:
    return "layer|\"pattern\"";
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

/// The last definition of local `name` in `body` before statement `at` (all
/// of `body` when null): an assignment, or the variable of a loop around
/// `at`; a loop wholly before `at` keeps its own names.
static SourceLoc localDefinition(const std::string &name,
                                 const std::vector<Stmt> &body,
                                 const Stmt *at) {
  SourceLoc found;
  for (const Stmt &s : body) {
    if (at && (&s == at || isBefore(at->loc, s.loc)))
      break;
    if (s.kind == Stmt::Kind::Assign && s.name == name)
      found = s.loc;
    if (!at || s.kind != Stmt::Kind::For || !isBefore(at->loc, s.endLoc))
      continue;
    // `at` is in this loop's body.
    if (s.range.var == name)
      found = s.range.varLoc;
    if (SourceLoc inner = localDefinition(name, s.body, at); inner.isValid())
      found = inner;
    break;
  }
  return found;
}

/// Resolves `name` as Sema's checkName does: locals assigned before the
/// statement, forward parameters, module parameters, weights and sub-layers,
/// then datasets and modules of every loaded file.
Resolved resolveName(const std::string &name, const ASTPath &path,
                     const SemaResult &sema) {
  Resolved r;
  if (const ModuleDecl *m = path.module) {
    if (path.forward) {
      r.loc = localDefinition(name, path.forward->body, path.stmt);
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

} // namespace gnnlsp

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
