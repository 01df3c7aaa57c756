//===- LinkFactors.h - A link score as a product of node rows ---*- C++ -*-===//
//
// A link model's score is often trilinear: sum(a[src] * r[rel] * b[dst], 1)
// (DistMult; a dot product without r). Two passes use the factors a, r and
// b: gnn-rank-factors returns them so that a ranking scores a block of
// candidates as one matrix product, and gnn-autodiff builds 1vsAll logits
// (`negatives = all`) as (a[src] * r[rel]) b^T. The match is on the forward
// as MLIRGen's link head leaves it:
//
//   %s = gnn.reduce sum %m axis = 1   (%m a product of the three gathers)
//   %c = gnn.reshape %s               (optional)
//   %z = gnn.mul %c, %zero
//   %l = gnn.concat %z, %c axis = 1
//   return %l
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNN_TRANSFORMS_LINKFACTORS_H
#define GNN_DIALECT_GNN_TRANSFORMS_LINKFACTORS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>

namespace gnn {

/// The factors of a trilinear link score, in the forward that computes it.
struct LinkFactors {
  /// The node tables a and b and the relation table r (null for a dot
  /// product). A rank's pairs read remote sources through the pairs' own
  /// halo: `src` is then the rows exchanged.
  mlir::Value src, relation, dst;
  /// The per-pair rows the score multiplies: a[src], r[rel] (or null) and
  /// b[dst].
  mlir::Value srcRows, relationRows, dstRows;
};

/// The factors of `forward`'s score if it is trilinear (or a dot product)
/// over one pairs graph, with every factor a table that does not depend on
/// the pairs; otherwise nothing.
std::optional<LinkFactors> matchLinkFactors(mlir::func::FuncOp forward);

} // namespace gnn

#endif // GNN_DIALECT_GNN_TRANSFORMS_LINKFACTORS_H
