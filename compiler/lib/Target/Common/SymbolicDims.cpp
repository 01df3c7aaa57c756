//===- SymbolicDims.cpp - tensor dims as C++ expressions ------------------===//
//
// Folding is textual: a dim is either a literal, which folds, or an opaque
// expression, which is kept as written. Products and sums are parenthesized
// so that the result can be used as an operand of either.
//
//===----------------------------------------------------------------------===//

#include "gnn/Target/Common/SymbolicDims.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace gnn::target;

bool gnn::target::isLiteral(llvm::StringRef s, int64_t *value) {
  int64_t v;
  if (s.getAsInteger(10, v))
    return false;
  if (value)
    *value = v;
  return true;
}

std::string gnn::target::product(llvm::ArrayRef<std::string> dims) {
  int64_t constant = 1;
  llvm::SmallVector<std::string> symbolic;
  for (const std::string &d : dims) {
    int64_t v;
    if (isLiteral(d, &v))
      constant *= v;
    else
      symbolic.push_back(d);
  }
  if (constant == 0)
    return "0";
  if (constant != 1 || symbolic.empty())
    symbolic.insert(symbolic.begin(), std::to_string(constant));
  if (symbolic.size() == 1)
    return symbolic.front();
  return "(" + llvm::join(symbolic, " * ") + ")";
}

std::string gnn::target::sum(llvm::ArrayRef<std::string> dims) {
  int64_t constant = 0;
  llvm::SmallVector<std::string> symbolic;
  for (const std::string &d : dims) {
    int64_t v;
    if (isLiteral(d, &v))
      constant += v;
    else
      symbolic.push_back(d);
  }
  if (constant || symbolic.empty())
    symbolic.push_back(std::to_string(constant));
  if (symbolic.size() == 1)
    return symbolic.front();
  return "(" + llvm::join(symbolic, " + ") + ")";
}

Dims gnn::target::broadcastDims(const Dims &a, const Dims &b) {
  size_t rank = std::max(a.size(), b.size());
  Dims d(rank);
  for (size_t i = 0; i < rank; ++i) {
    size_t ia = i + a.size() - rank, ib = i + b.size() - rank;
    bool hasA = i + a.size() >= rank, hasB = i + b.size() >= rank;
    if (!hasA || (hasB && a[ia] == "1"))
      d[i] = b[ib];
    else
      d[i] = a[ia];
  }
  return d;
}

llvm::SmallVector<std::pair<std::string, std::string>>
gnn::target::quotients(llvm::StringRef dim) {
  auto isToken = [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '.';
  };
  // The operand ending just before `end` / starting at `begin`: a balanced
  // parenthesized expression or a token.
  auto before = [&](size_t end) {
    size_t begin = end;
    if (begin > 0 && dim[begin - 1] == ')') {
      for (int depth = 0; begin > 0;) {
        char c = dim[--begin];
        depth += c == ')' ? 1 : c == '(' ? -1 : 0;
        if (depth == 0)
          break;
      }
    } else {
      while (begin > 0 && isToken(dim[begin - 1]))
        --begin;
    }
    return dim.slice(begin, end).str();
  };
  auto after = [&](size_t begin) {
    size_t end = begin;
    if (end < dim.size() && dim[end] == '(') {
      for (int depth = 0; end < dim.size();) {
        char c = dim[end++];
        depth += c == '(' ? 1 : c == ')' ? -1 : 0;
        if (depth == 0)
          break;
      }
    } else {
      while (end < dim.size() && isToken(dim[end]))
        ++end;
    }
    return dim.slice(begin, end).str();
  };
  llvm::SmallVector<std::pair<std::string, std::string>> found;
  for (size_t at = dim.find('/'); at != llvm::StringRef::npos;
       at = dim.find('/', at + 1))
    found.emplace_back(before(at), after(at + 1));
  return found;
}
