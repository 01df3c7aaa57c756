//===- GNNInterfaces.h - op interfaces and traits of gnn ---------*- C++ -*-===//
//
// Declares what GNNInterfaces.td describes: the DifferentiableOpInterface
// with the AdjointBuilder its rules talk to, the GraphOpInterface with the
// row sets of a graph, and the FusibleElementwise, RowMap, Hoistable and
// ResultShapeRule traits.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNN_GNNINTERFACES_H
#define GNN_DIALECT_GNN_GNNINTERFACES_H

#include "gnn/Dialect/GNN/GNNTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

namespace gnn {

/// The reverse sweep as an op's adjoint rule sees it (implemented by
/// gnn-autodiff): where to build, which operands need an adjoint, and where
/// a contribution goes.
class AdjointBuilder {
public:
  virtual ~AdjointBuilder() = default;
  /// The builder, positioned where the rule's ops go.
  virtual mlir::OpBuilder &builder() = 0;
  /// The location for the rule's ops: the op's, without its variable name
  /// (adjoints are named `d_<name>` when accumulated).
  virtual mlir::Location loc() const = 0;
  /// Whether `value` depends on a parameter (only those get adjoints).
  virtual bool isActive(mlir::Value value) const = 0;
  /// Adds `contribution` to the adjoint of `value` (nothing if inactive).
  virtual void accumulate(mlir::Value value, mlir::Value contribution) = 0;
  /// `grad`, the adjoint of a broadcast result, summed back to `operand`'s
  /// shape.
  virtual mlir::Value unbroadcast(mlir::Value grad, mlir::Value operand) = 0;
};

/// The rows of a value computed over a graph.
enum class GraphRows {
  SrcNodes, ///< one per source node (destinations first, then the rest)
  DstNodes, ///< one per destination node
  Edges,    ///< one per edge
};

namespace shape {
/// Verifies `op` against its rule in ShapeRules.h (defined there).
mlir::LogicalResult verifyResultShape(mlir::Operation *op);
} // namespace shape

} // namespace gnn

/// The gnn traits live beside MLIR's (as other dialects' do), so that they
/// read `OpTrait::gnn::RowMap` wherever both namespaces are in use.
namespace mlir::OpTrait::gnn {

template <typename ConcreteType>
class FusibleElementwise : public TraitBase<ConcreteType, FusibleElementwise> {
};

template <typename ConcreteType>
class Hoistable : public TraitBase<ConcreteType, Hoistable> {};

template <typename ConcreteType>
class RowMap : public TraitBase<ConcreteType, RowMap> {
public:
};

/// Every gnn op: its operands and results obey its shape rule
/// (gnn/Dialect/GNN/ShapeRules.h; success for an op without one).
template <typename ConcreteType>
class ResultShapeRule : public TraitBase<ConcreteType, ResultShapeRule> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return ::gnn::shape::verifyResultShape(op);
  }
};

} // namespace mlir::OpTrait::gnn

#include "gnn/Dialect/GNN/GNNInterfaces.h.inc"

#endif // GNN_DIALECT_GNN_GNNINTERFACES_H
