//===- Type.h - Semantic types and symbolic dimensions ----------*- C++ -*-===//
//
// Sema's view of values. Tensor shapes are lists of symbolic dimensions:
// dataset sizes (`cora.features`), layer parameters (`in`, `hidden`), graph
// node sets
// (`g.src`, `g.dst`) and free names in forward signatures are symbols; a Dim is
// a polynomial with integer coefficients over them, kept in a canonical form so
// that `heads * out` and `out * heads` compare equal. Substituting a layer's
// arguments into its signature is how calls are checked.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_LANG_TYPE_H
#define GNN_LANG_TYPE_H

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gnn::lang {

/// A tensor dimension: sum of coefficient * product-of-symbols terms.
class Dim {
public:
  Dim() = default;
  static Dim constant(int64_t value);
  static Dim symbol(const std::string &name);

  bool isConstant() const;
  /// The value of a constant dimension (0 for the empty polynomial).
  int64_t constantValue() const;
  /// True when the dimension is a single symbol with coefficient 1.
  std::optional<std::string> asSymbol() const;

  Dim operator+(const Dim &other) const;
  Dim operator-(const Dim &other) const;
  Dim operator*(const Dim &other) const;
  /// `*this / divisor` when it is an integer for every value of the symbols
  /// the caller promises divisible (`in / blocks`): a polynomial when the
  /// divisor divides every term, otherwise an opaque quotient symbol spelled
  /// `(in/blocks)` that substitution folds again and that multiplying back
  /// by the divisor cancels (`blocks * (in/blocks)` is `in`). Null when the
  /// divisor is zero or both are constants that do not divide. Equal values
  /// may still differ in form: `(in/blocks) * out` is not `in * (out/blocks)`.
  std::optional<Dim> divide(const Dim &divisor) const;
  /// The constants of an opaque quotient whose divisor does not divide its
  /// dividend once symbols are bound (`(18/4)`), for "not divisible" errors.
  std::optional<std::pair<int64_t, int64_t>> indivisibleQuotient() const;
  bool operator==(const Dim &other) const { return terms == other.terms; }
  bool operator!=(const Dim &other) const { return !(*this == other); }

  /// Replaces symbols by dimensions (unmapped symbols stay).
  Dim substitute(const std::map<std::string, Dim> &bindings) const;
  /// Every symbol the dimension mentions.
  std::vector<std::string> symbols() const;

  /// Human-readable: `16`, `cora.features`, `heads*out + 1`.
  std::string str() const;

private:
  /// Monomial (sorted symbol names, repeated for powers) -> coefficient.
  /// Zero coefficients are never stored; the constant term has an empty key.
  std::map<std::vector<std::string>, int64_t> terms;
};

enum class TypeKind {
  Error, ///< Already diagnosed; suppresses follow-on errors.
  Int,
  Float,
  Bool,
  String,
  Graph, ///< A graph or a message-flow block.
  Tensor,
  List,
  Dataset,
  Module, ///< An instance of a layer (callable through its forward).
  Symbol, ///< A builtin name used as a value: sum, mean, src, glorot, valid...
  Function, ///< A builtin function or a layer/model constructor, uncalled.
};

enum class ElementType { F32, I64 };

/// The node and edge sets of a graph value, as dimensions.
struct GraphShape {
  Dim src, dst, edges;
  /// The graphs of a batch of graphs (graph-level training): the rows of a
  /// readout, `g.graphs`.
  Dim graphs;
  /// The node pairs a link-prediction step scores: the edges of
  /// `pairs(g)`, `g.pairs`.
  Dim pairs;
  /// True for a model's whole graph `g` (src == dst); blocks `g[i]` are not.
  bool isLayered = false;
  std::string name; // The value's spelling, used to name block levels.
};

struct Type {
  TypeKind kind = TypeKind::Error;
  // Tensor
  std::vector<Dim> shape;
  ElementType element = ElementType::F32;
  // Graph
  std::shared_ptr<GraphShape> graph;
  // List: element type (Error when empty / mixed).
  std::shared_ptr<Type> listElement;
  // Dataset, Module, Symbol, Function: what it names.
  std::string name;
  // Int: its value as a dimension when known at compile time, symbolically
  // (`cora.features`, `hidden * 2`); Float: its value when it is a literal.
  std::optional<Dim> intValue;
  std::optional<double> floatValue;

  static Type error() { return Type(); }
  static Type scalar(TypeKind kind) {
    Type t;
    t.kind = kind;
    return t;
  }
  static Type tensor(std::vector<Dim> shape,
                     ElementType element = ElementType::F32) {
    Type t;
    t.kind = TypeKind::Tensor;
    t.shape = std::move(shape);
    t.element = element;
    return t;
  }
  static Type named(TypeKind kind, std::string name) {
    Type t;
    t.kind = kind;
    t.name = std::move(name);
    return t;
  }

  bool isError() const { return kind == TypeKind::Error; }
  bool isTensor() const { return kind == TypeKind::Tensor; }
  /// Int and float scalars act as rank-0 tensors in arithmetic.
  bool isNumeric() const {
    return kind == TypeKind::Int || kind == TypeKind::Float || isTensor();
  }
  size_t rank() const { return shape.size(); }

  /// `[cora.nodes, 16]`, `int`, `graph`, `list[float]`, `layer GCNConv`.
  std::string str() const;
};

} // namespace gnn::lang

#endif // GNN_LANG_TYPE_H
