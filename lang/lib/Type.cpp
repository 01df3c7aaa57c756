//===- Type.cpp - Semantic types and symbolic dimensions ------------------===//
//
// Dim arithmetic keeps polynomials canonical (sorted monomials, no zero
// coefficients) so structural equality is semantic equality.
//
//===----------------------------------------------------------------------===//
#include "gnn/lang/Type.h"

#include <algorithm>
#include <iterator>
#include <mutex>
#include <set>
#include <sstream>

using namespace gnn::lang;

namespace {

/// An opaque quotient symbol's dividend and divisor. The symbol's spelling is
/// made from the two, so the table only remembers what a name already says;
/// it is shared (and locked) because Dims outlive any one Sema.
struct Quotient {
  Dim dividend, divisor;
};

std::mutex quotientsLock;
std::map<std::string, Quotient> &quotients() {
  static std::map<std::string, Quotient> table;
  return table;
}

std::optional<Quotient> lookupQuotient(const std::string &symbol) {
  if (symbol.empty() || symbol.front() != '(')
    return std::nullopt;
  std::lock_guard<std::mutex> lock(quotientsLock);
  auto it = quotients().find(symbol);
  if (it == quotients().end())
    return std::nullopt;
  return it->second;
}

/// The symbol standing for `dividend / divisor`: `(in/blocks)`,
/// `((in + 1)/blocks)`; parenthesized so that it reads (and translates to
/// C++) as one factor.
Dim quotientSymbol(const Dim &dividend, const Dim &divisor) {
  auto operand = [](const Dim &d) {
    return d.isConstant() || d.asSymbol() ? d.str() : "(" + d.str() + ")";
  };
  std::string name = "(" + operand(dividend) + "/" + operand(divisor) + ")";
  std::lock_guard<std::mutex> lock(quotientsLock);
  quotients().emplace(name, Quotient{dividend, divisor});
  return Dim::symbol(name);
}

/// `mono` without the factors of `factor` (both sorted multisets), or null
/// when `factor` is not a sub-multiset of `mono`.
std::optional<std::vector<std::string>>
withoutFactor(const std::vector<std::string> &mono,
              const std::vector<std::string> &factor) {
  if (!std::includes(mono.begin(), mono.end(), factor.begin(), factor.end()))
    return std::nullopt;
  std::vector<std::string> rest;
  std::set_difference(mono.begin(), mono.end(), factor.begin(), factor.end(),
                      std::back_inserter(rest));
  return rest;
}

} // namespace

Dim Dim::constant(int64_t value) {
  Dim d;
  if (value != 0)
    d.terms[{}] = value;
  return d;
}

Dim Dim::symbol(const std::string &name) {
  Dim d;
  d.terms[{name}] = 1;
  return d;
}

bool Dim::isConstant() const {
  return terms.empty() || (terms.size() == 1 && terms.begin()->first.empty());
}

int64_t Dim::constantValue() const {
  auto it = terms.find({});
  return it == terms.end() ? 0 : it->second;
}

std::optional<std::string> Dim::asSymbol() const {
  if (terms.size() == 1 && terms.begin()->first.size() == 1 &&
      terms.begin()->second == 1)
    return terms.begin()->first.front();
  return std::nullopt;
}

Dim Dim::operator+(const Dim &other) const {
  Dim r = *this;
  for (const auto &[mono, coeff] : other.terms) {
    int64_t c = (r.terms[mono] += coeff);
    if (c == 0)
      r.terms.erase(mono);
  }
  return r;
}

Dim Dim::operator-(const Dim &other) const {
  return *this + other * Dim::constant(-1);
}

Dim Dim::operator*(const Dim &other) const {
  Dim r;
  bool hasQuotient = false;
  for (const auto &[m1, c1] : terms)
    for (const auto &[m2, c2] : other.terms) {
      std::vector<std::string> mono = m1;
      mono.insert(mono.end(), m2.begin(), m2.end());
      std::sort(mono.begin(), mono.end());
      for (const std::string &s : mono)
        hasQuotient = hasQuotient || s.front() == '(';
      int64_t c = (r.terms[mono] += c1 * c2);
      if (c == 0)
        r.terms.erase(mono);
    }
  if (!hasQuotient)
    return r;
  // A term holding a quotient and its whole divisor is the dividend times the
  // rest: `blocks * (in/blocks)` is `in`. Each step removes one quotient.
  Dim cancelled;
  for (const auto &[mono, coeff] : r.terms) {
    Dim term;
    term.terms[mono] = coeff;
    for (size_t i = 0; i < mono.size(); ++i) {
      std::optional<Quotient> q = lookupQuotient(mono[i]);
      if (!q || q->divisor.terms.size() != 1)
        continue;
      const auto &[divisorMono, divisorCoeff] = *q->divisor.terms.begin();
      std::vector<std::string> others = mono;
      others.erase(others.begin() + i);
      std::optional<std::vector<std::string>> rest =
          withoutFactor(others, divisorMono);
      if (!rest || coeff % divisorCoeff != 0)
        continue;
      Dim factor;
      factor.terms[*rest] = coeff / divisorCoeff;
      term = factor * q->dividend;
      break;
    }
    cancelled = cancelled + term;
  }
  return cancelled;
}

std::optional<Dim> Dim::divide(const Dim &divisor) const {
  if (divisor.terms.empty())
    return std::nullopt;
  if (isConstant() && divisor.isConstant()) {
    if (constantValue() % divisor.constantValue() != 0)
      return std::nullopt;
    return Dim::constant(constantValue() / divisor.constantValue());
  }
  // A single-term divisor that divides every term: an exact polynomial.
  if (divisor.terms.size() == 1) {
    const auto &[divisorMono, divisorCoeff] = *divisor.terms.begin();
    Dim q;
    bool exact = true;
    for (const auto &[mono, coeff] : terms) {
      std::optional<std::vector<std::string>> rest =
          withoutFactor(mono, divisorMono);
      if (!rest || coeff % divisorCoeff != 0) {
        exact = false;
        break;
      }
      q.terms[*rest] = coeff / divisorCoeff;
    }
    if (exact)
      return q;
  }
  return quotientSymbol(*this, divisor);
}

std::optional<std::pair<int64_t, int64_t>> Dim::indivisibleQuotient() const {
  for (const std::string &s : symbols())
    if (std::optional<Quotient> q = lookupQuotient(s)) {
      if (q->dividend.isConstant() && q->divisor.isConstant())
        return std::make_pair(q->dividend.constantValue(),
                              q->divisor.constantValue());
      if (auto inner = q->dividend.indivisibleQuotient())
        return inner;
      if (auto inner = q->divisor.indivisibleQuotient())
        return inner;
    }
  return std::nullopt;
}

Dim Dim::substitute(const std::map<std::string, Dim> &bindings) const {
  Dim r;
  for (const auto &[mono, coeff] : terms) {
    Dim term = Dim::constant(coeff);
    for (const std::string &s : mono) {
      auto it = bindings.find(s);
      if (it != bindings.end()) {
        term = term * it->second;
        continue;
      }
      // A quotient is divided again once its operands are bound; one whose
      // constants do not divide stays a symbol, which errors report.
      std::optional<Quotient> q = lookupQuotient(s);
      if (!q) {
        term = term * Dim::symbol(s);
        continue;
      }
      Dim dividend = q->dividend.substitute(bindings);
      Dim divisor = q->divisor.substitute(bindings);
      std::optional<Dim> folded = dividend.divide(divisor);
      term = term * (folded ? *folded : quotientSymbol(dividend, divisor));
    }
    r = r + term;
  }
  return r;
}

std::vector<std::string> Dim::symbols() const {
  std::set<std::string> names;
  for (const auto &[mono, coeff] : terms)
    names.insert(mono.begin(), mono.end());
  return {names.begin(), names.end()};
}

std::string Dim::str() const {
  if (terms.empty())
    return "0";
  std::ostringstream os;
  bool first = true;
  // Symbolic terms first, constant last: `in + 1` rather than `1 + in`.
  auto emit = [&](const std::vector<std::string> &mono, int64_t coeff) {
    int64_t mag = coeff < 0 ? -coeff : coeff;
    if (first)
      os << (coeff < 0 ? "-" : "");
    else
      os << (coeff < 0 ? " - " : " + ");
    first = false;
    bool needStar = false;
    if (mag != 1 || mono.empty()) {
      os << mag;
      needStar = true;
    }
    for (const std::string &s : mono) {
      os << (needStar ? "*" : "") << s;
      needStar = true;
    }
  };
  for (const auto &[mono, coeff] : terms)
    if (!mono.empty())
      emit(mono, coeff);
  if (auto it = terms.find({}); it != terms.end())
    emit({}, it->second);
  return os.str();
}

std::string Type::str() const {
  switch (kind) {
  case TypeKind::Error:
    return "<error>";
  case TypeKind::Int:
    return "int";
  case TypeKind::Float:
    return "float";
  case TypeKind::Bool:
    return "bool";
  case TypeKind::String:
    return "string";
  case TypeKind::Graph:
    return "graph";
  case TypeKind::Tensor: {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i)
      s += (i ? ", " : "") + shape[i].str();
    s += "]";
    if (element == ElementType::I64)
      s += " of int";
    return s;
  }
  case TypeKind::List:
    return "list[" + (listElement ? listElement->str() : std::string("?")) +
           "]";
  case TypeKind::Dataset:
    return "dataset " + name;
  case TypeKind::Module:
    return "layer " + name;
  case TypeKind::Symbol:
    return name == "reduce" ? "reduce" : "'" + name + "'";
  case TypeKind::Function:
    return "function " + name;
  }
  return "<error>";
}
