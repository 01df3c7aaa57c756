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
