//===- Type.cpp - Semantic types and symbolic dimensions ------------------===//
//
// Dim arithmetic keeps polynomials canonical (sorted monomials, no zero
// coefficients) so structural equality is semantic equality.
//
//===----------------------------------------------------------------------===//
#include "gnn/lang/Type.h"

#include <algorithm>
#include <set>
#include <sstream>

using namespace gnn::lang;

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
  for (const auto &[m1, c1] : terms)
    for (const auto &[m2, c2] : other.terms) {
      std::vector<std::string> mono = m1;
      mono.insert(mono.end(), m2.begin(), m2.end());
      std::sort(mono.begin(), mono.end());
      int64_t c = (r.terms[mono] += c1 * c2);
      if (c == 0)
        r.terms.erase(mono);
    }
  return r;
}

Dim Dim::substitute(const std::map<std::string, Dim> &bindings) const {
  Dim r;
  for (const auto &[mono, coeff] : terms) {
    Dim term = Dim::constant(coeff);
    for (const std::string &s : mono) {
      auto it = bindings.find(s);
      term = term * (it == bindings.end() ? Dim::symbol(s) : it->second);
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
