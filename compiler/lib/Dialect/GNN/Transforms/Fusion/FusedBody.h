//===- FusedBody.h - building the bodies of fused ops -----------*- C++ -*-===//
//
// Shared by the fusion passes: a fused op's body is a block of elementwise
// gnn ops on rank-0 tensors, one block argument per operand. These helpers
// build such a body from ops of the enclosing function and rearrange the
// block arguments when one fused op absorbs another.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNN_TRANSFORMS_FUSEDBODY_H
#define GNN_DIALECT_GNN_TRANSFORMS_FUSEDBODY_H

#include "gnn/Dialect/GNN/GNNOps.h"

#include "mlir/IR/Builders.h"

namespace gnn {

/// The rank-0 f32 tensor type body values have.
mlir::RankedTensorType scalarTensorType(mlir::MLIRContext *context);

/// Fills the empty `region` with one block: an argument per value of
/// `inputs`, a rank-0 clone of each op of `ops` (in order, operands mapped
/// to the arguments or to earlier clones), and a yield of the clones of
/// `yielded`.
void buildFusedBody(mlir::Region &region, mlir::ValueRange inputs,
                    llvm::ArrayRef<mlir::Operation *> ops,
                    mlir::ValueRange yielded);

/// Fills the empty `to` with a copy of the body `from`, whose argument `i`
/// becomes argument `argIndex[i]` of `numArgs` new ones.
void cloneBodyWithArguments(mlir::Region &from, mlir::Region &to,
                            llvm::ArrayRef<unsigned> argIndex,
                            unsigned numArgs);

/// Replaces the single elementwise op `op` by an equivalent one-op gnn.map,
/// so that the edge and epilogue fusions need only handle maps.
MapOp wrapInMap(mlir::Operation *op);

} // namespace gnn

#endif // GNN_DIALECT_GNN_TRANSFORMS_FUSEDBODY_H
