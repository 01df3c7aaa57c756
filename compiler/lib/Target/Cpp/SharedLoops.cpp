//===- SharedLoops.cpp - loop nests written once per unit -----------------===//
//
// A loop nest's free names are found on its text, as a lambda's captures
// would be: every identifier that the nest neither declares (`const T a0 =`,
// `for (int64_t i0 = ...`, `const int64_t e = i0, u = ...`) nor names as a
// keyword, a type, a member (`g.numDst`), a qualified name (`std::max`) or a
// called function. A name taken for free that is not, or the reverse, does
// not compile, so a mistake here cannot go unnoticed.
//
//===----------------------------------------------------------------------===//

#include "SharedLoops.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace gnn::cpp;
using llvm::StringRef;

namespace {

bool isIdentStart(char c) { return llvm::isAlpha(c) || c == '_'; }
bool isIdentChar(char c) { return llvm::isAlnum(c) || c == '_'; }

/// Names a loop nest may contain that are not variables.
const llvm::StringSet<> &keywords() {
  static const llvm::StringSet<> set = [] {
    llvm::StringSet<> s;
    for (const char *k : {"for", "if", "else", "while", "do", "break",
                          "continue", "return", "const", "true", "false",
                          "nullptr", "sizeof", "void", "static_cast", "std"})
      s.insert(k);
    return s;
  }();
  return set;
}

/// Types a declaration in a loop nest starts with.
bool isTypeName(StringRef name) {
  static const StringRef types[] = {"T",        "int64_t", "int",   "auto",
                                    "bool",     "double",  "float", "size_t",
                                    "uint64_t", "int32_t"};
  return llvm::is_contained(types, name);
}

/// Words of an OpenMP pragma line, not names.
bool isPragmaWord(StringRef name) {
  static const StringRef words[] = {"pragma",  "omp",    "parallel",
                                    "for",     "simd",   "schedule",
                                    "dynamic", "static", "if"};
  return llvm::is_contained(words, name);
}

struct Token {
  enum Kind { Identifier, Number, Punct } kind;
  size_t begin, end;
  /// The token is on a `#pragma` line.
  bool pragma;
};

std::vector<Token> tokenize(StringRef text) {
  std::vector<Token> tokens;
  bool pragma = false, lineStart = true;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '\n') {
      pragma = false;
      lineStart = true;
      ++i;
      continue;
    }
    if (llvm::isSpace(c)) {
      ++i;
      continue;
    }
    if (lineStart && c == '#')
      pragma = true;
    lineStart = false;
    size_t begin = i;
    if (isIdentStart(c)) {
      while (i < text.size() && isIdentChar(text[i]))
        ++i;
      tokens.push_back({Token::Identifier, begin, i, pragma});
    } else if (llvm::isDigit(c) || (c == '.' && i + 1 < text.size() &&
                                    llvm::isDigit(text[i + 1]))) {
      // 1e-08, 0.5f, 16384: an exponent's sign belongs to the number.
      while (i < text.size() && (isIdentChar(text[i]) || text[i] == '.' ||
                                 ((text[i] == '-' || text[i] == '+') &&
                                  (text[i - 1] == 'e' || text[i - 1] == 'E'))))
        ++i;
      tokens.push_back({Token::Number, begin, i, pragma});
    } else {
      // `::` and `->` as one token; every other punctuation char alone.
      StringRef rest = text.substr(i);
      i += rest.startswith("::") || rest.startswith("->") ? 2 : 1;
      tokens.push_back({Token::Punct, begin, i, pragma});
    }
  }
  return tokens;
}

/// `text` with its free names replaced by p0, p1, ... in order of first
/// use; `freeNames` gets them in that order.
std::string canonicalize(StringRef text,
                         llvm::SmallVectorImpl<std::string> &freeNames) {
  std::vector<Token> tokens = tokenize(text);
  auto spell = [&](size_t k) {
    return text.slice(tokens[k].begin, tokens[k].end);
  };
  auto isPunct = [&](size_t k, StringRef p) {
    return k < tokens.size() && tokens[k].kind == Token::Punct && spell(k) == p;
  };

  // The names the nest declares: the first declarator after a type (past
  // `*`, `&`, `const`), and every one after a comma at the declaration's
  // own bracket depth, up to its `;` or the bracket that closes it.
  llvm::StringSet<> declared;
  int depth = 0, declDepth = -1;
  for (size_t k = 0; k < tokens.size(); ++k) {
    const Token &t = tokens[k];
    if (t.kind == Token::Punct) {
      StringRef p = spell(k);
      if (p == "(" || p == "[" || p == "{")
        ++depth;
      else if (p == ")" || p == "]" || p == "}") {
        if (--depth < declDepth)
          declDepth = -1;
      } else if (p == ";" && depth == declDepth)
        declDepth = -1;
      continue;
    }
    if (t.kind != Token::Identifier || t.pragma)
      continue;
    size_t next = k + 1;
    if (isTypeName(spell(k))) {
      while (isPunct(next, "*") || isPunct(next, "&") ||
             (next < tokens.size() && spell(next) == "const"))
        ++next;
      if (next < tokens.size() && tokens[next].kind == Token::Identifier &&
          !isTypeName(spell(next))) {
        declared.insert(spell(next));
        declDepth = depth;
        k = next;
      }
      continue;
    }
    if (declDepth == depth && k > 0 && isPunct(k - 1, ",") &&
        !isPunct(next, "("))
      declared.insert(spell(k));
  }

  std::string result;
  size_t copied = 0;
  for (size_t k = 0; k < tokens.size(); ++k) {
    const Token &t = tokens[k];
    if (t.kind != Token::Identifier)
      continue;
    StringRef name = spell(k);
    bool qualified = k > 0 && (isPunct(k - 1, ".") || isPunct(k - 1, "->") ||
                               isPunct(k - 1, "::"));
    bool scope = isPunct(k + 1, "::");
    bool called = isPunct(k + 1, "(");
    if (qualified || scope || called || declared.contains(name) ||
        keywords().contains(name) || isTypeName(name) ||
        (t.pragma && isPragmaWord(name)))
      continue;
    auto *it = llvm::find(freeNames, name);
    size_t index = it - freeNames.begin();
    if (it == freeNames.end())
      freeNames.push_back(name.str());
    result += text.slice(copied, t.begin).str() + "p" + std::to_string(index);
    copied = t.end;
  }
  result += text.substr(copied).str();
  return result;
}

} // namespace

void SharedLoopNests::count(StringRef text) {
  llvm::SmallVector<std::string> freeNames;
  auto [it, inserted] = nests.try_emplace(canonicalize(text, freeNames));
  if (inserted)
    order.push_back(it->first());
  Nest &nest = it->second;
  ++nest.occurrences;
  if (nest.entryPoint != entryPoint) {
    nest.entryPoint = entryPoint;
    nest.inEntryPoint = 0;
  }
  nest.mostInOneEntryPoint =
      std::max(nest.mostInOneEntryPoint, ++nest.inEntryPoint);
  nest.numParams = freeNames.size();
}

void SharedLoopNests::finishCounting() {
  isCounting = false;
  int index = 0;
  for (StringRef canonical : order) {
    Nest &nest = nests.find(canonical)->second;
    if (nest.mostInOneEntryPoint > 1)
      nest.index = index++;
  }
}

void SharedLoopNests::write(mlir::raw_indented_ostream &os,
                            StringRef text) const {
  llvm::SmallVector<std::string> freeNames;
  auto it = nests.find(canonicalize(text, freeNames));
  if (isCounting || it == nests.end() || it->second.index < 0) {
    os << text;
    return;
  }
  os << "shared_loops::loop_" << it->second.index << "<T>("
     << llvm::join(freeNames, ", ") << ");\n";
}

void SharedLoopNests::emitDefinitions(mlir::raw_indented_ostream &os) const {
  bool any = llvm::any_of(
      nests, [](const auto &entry) { return entry.second.index >= 0; });
  if (!any)
    return;
  os << "// Loop nests that an entry point repeats (a deep model's layers), "
        "written once.\n"
     << "namespace shared_loops {\n\n";
  for (StringRef canonical : order) {
    const Nest &nest = nests.find(canonical)->second;
    if (nest.index < 0)
      continue;
    std::string typeParams = "typename T", params;
    for (int k = 0; k < nest.numParams; ++k) {
      std::string n = std::to_string(k);
      typeParams += ", typename P" + n;
      params += (k ? ", P" : "P") + n + " &&p" + n;
    }
    os << "// " << nest.occurrences << " sites.\n"
       << "template <" << typeParams << ">\n"
       << "void loop_" << nest.index << "(" << params << ") {\n";
    os.indent();
    os << canonical;
    os.unindent();
    os << "}\n\n";
  }
  os << "} // namespace shared_loops\n\n";
}
