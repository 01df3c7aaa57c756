//===- GNNVisitor.h - The gnn ops by family, one list ------------*- C++ -*-===//
//
// Every op of the gnn dialect in exactly one family (the static_assert in
// lib/Dialect/GNN/IR/GNNVisitor.cpp checks the lists against ODS's op list,
// so a new op without a family does not compile), and a visitor that
// dispatches an op to its family's method, as CIRCT's dialect visitors do.
// A visitor derives from GNNVisitor<Self, Result> and defines every family's
// visit method (a missing one does not compile); the storage ops come typed,
// one overload each. The emitters (Target/Cpp/EmitFunction.cpp, and the CUDA
// target through it) and gnn-sample-blocks dispatch with it; each family's
// code then switches over its own ops.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_DIALECT_GNN_GNNVISITOR_H
#define GNN_DIALECT_GNN_GNNVISITOR_H

#include "gnn/Dialect/GNN/GNNOps.h"

#include "llvm/ADT/TypeSwitch.h"

/// Parameters, their gradients and constants: declarations of the entry
/// point rather than computations.
#define GNN_STORAGE_OPS                                                        \
  ::gnn::ParamOp, ::gnn::InputGradOp, ::gnn::ParamGradOp, ::gnn::ConstantOp

/// Pure functions of one element per operand, alone or fused (gnn.map).
#define GNN_ELEMENTWISE_OPS                                                    \
  ::gnn::AddOp, ::gnn::SubOp, ::gnn::MulOp, ::gnn::DivOp, ::gnn::MaximumOp,    \
      ::gnn::NegOp, ::gnn::ExpOp, ::gnn::LogOp, ::gnn::SqrtOp, ::gnn::RsqrtOp, \
      ::gnn::ReluOp, ::gnn::SigmoidOp, ::gnn::TanhOp, ::gnn::AbsOp,            \
      ::gnn::LeakyReluOp, ::gnn::EluOp, ::gnn::MaximumGradOp,                  \
      ::gnn::UnaryGradOp, ::gnn::MapOp

/// Node rows to edges and back, edge softmax, and the fused gnn.edge_map.
#define GNN_EDGE_OPS                                                           \
  ::gnn::GatherOp, ::gnn::GatherGradOp, ::gnn::ScatterOp,                      \
      ::gnn::ScatterGradOp, ::gnn::EdgeSoftmaxOp, ::gnn::EdgeSoftmaxGradOp,    \
      ::gnn::EdgeMapOp, ::gnn::GatherRelationOp, ::gnn::GatherRelationGradOp

/// Products, with or without a fused epilogue.
#define GNN_MATMUL_OPS ::gnn::MatmulOp, ::gnn::MatmulMapOp

/// Aggregations over a graph, their adjoints, degrees and halo exchanges.
#define GNN_GRAPH_OPS                                                          \
  ::gnn::AggregateOp, ::gnn::AggregateGradOp, ::gnn::AggregateWeightGradOp,    \
      ::gnn::AggregateRelationsOp, ::gnn::AggregateRelationsGradOp,            \
      ::gnn::AggregateRelationRowsOp, ::gnn::AggregateRelationRowsGradOp,      \
      ::gnn::AggregateRelationsWeightGradOp, ::gnn::DegreeOp,                  \
      ::gnn::NodeTypeOp, ::gnn::DstGradOp, ::gnn::HaloExchangeOp,              \
      ::gnn::HaloExchangeGradOp, ::gnn::HaloAggregateOp,                       \
      ::gnn::HaloAggregateGradOp, ::gnn::HaloAggregateWeightGradOp,            \
      ::gnn::ScaledAggregateOp

/// Axis ops, reshaping of blocks, dropout and the loss.
#define GNN_TENSOR_OPS                                                         \
  ::gnn::SoftmaxOp, ::gnn::LogSoftmaxOp, ::gnn::SoftmaxGradOp,                 \
      ::gnn::LogSoftmaxGradOp, ::gnn::BatchNormOp, ::gnn::BatchNormGradOp,     \
      ::gnn::BatchNormRunningOp, ::gnn::ReduceOp, ::gnn::ReduceGradOp,         \
      ::gnn::ConcatOp, ::gnn::SliceOp, ::gnn::BlockDiagonalOp,                 \
      ::gnn::DiagonalBlocksOp, ::gnn::UnbroadcastOp, ::gnn::DropoutOp,         \
      ::gnn::CrossEntropyOp, ::gnn::CrossEntropyGradOp, ::gnn::NormPenaltyOp,  \
      ::gnn::NormPenaltyGradOp

/// What names values or structures the program rather than computing:
/// graphs (block, relation, readout, pairs), views (dst, reshape), module parameters and
/// the terminator of fused bodies.
#define GNN_STRUCTURE_OPS                                                      \
  ::gnn::BlockOp, ::gnn::RelationOp, ::gnn::ReadoutOp, ::gnn::PairsOp,        \
      ::gnn::DstOp, ::gnn::ReshapeOp, ::gnn::ParameterOp, ::gnn::YieldOp

/// Every family, for the coverage check.
#define GNN_ALL_OPS                                                            \
  GNN_STORAGE_OPS, GNN_ELEMENTWISE_OPS, GNN_EDGE_OPS, GNN_MATMUL_OPS,          \
      GNN_GRAPH_OPS, GNN_TENSOR_OPS, GNN_STRUCTURE_OPS

namespace gnn {

template <typename ConcreteType, typename ResultType = void,
          typename... ExtraArgs>
class GNNVisitor {
public:
  /// Calls the family method of `op`'s family; visitInvalidOp for an op of
  /// another dialect.
  ResultType dispatchGNNVisitor(mlir::Operation *op, ExtraArgs... args) {
    auto *self = static_cast<ConcreteType *>(this);
    return llvm::TypeSwitch<mlir::Operation *, ResultType>(op)
        .template Case<GNN_STORAGE_OPS>([&](auto typed) -> ResultType {
          return self->visitStorageOp(typed, args...);
        })
        .template Case<GNN_ELEMENTWISE_OPS>([&](auto) -> ResultType {
          return self->visitElementwiseOp(op, args...);
        })
        .template Case<GNN_EDGE_OPS>([&](auto) -> ResultType {
          return self->visitEdgeOp(op, args...);
        })
        .template Case<GNN_MATMUL_OPS>([&](auto) -> ResultType {
          return self->visitMatmulOp(op, args...);
        })
        .template Case<GNN_GRAPH_OPS>([&](auto) -> ResultType {
          return self->visitGraphOp(op, args...);
        })
        .template Case<GNN_TENSOR_OPS>([&](auto) -> ResultType {
          return self->visitTensorOp(op, args...);
        })
        .template Case<GNN_STRUCTURE_OPS>([&](auto) -> ResultType {
          return self->visitStructureOp(op, args...);
        })
        .Default([&](mlir::Operation *other) -> ResultType {
          return self->visitInvalidOp(other, args...);
        });
  }
};

} // namespace gnn

#endif // GNN_DIALECT_GNN_GNNVISITOR_H
