//===- GNNInterfaces.td - what passes need to know of an op -*- tablegen -*-===//
//
// The properties of gnn ops that more than one pass relies on, stated once
// on the op instead of in a list inside each pass:
//   - DifferentiableOpInterface: the op's adjoint (gnn-autodiff), with every
//     op's rule in GNNAdjoints.cpp;
//   - GraphOpInterface: the op reads a graph operand and its result lives on
//     that graph's source nodes, destination nodes or edges (gnn-distribute
//     and gnn-sample-blocks place values by it);
//   - FusibleElementwise: a pure function of one element of each operand, so
//     fusion may move it into a gnn.map / edge_map / matmul_map body;
//   - RowMap: moves rows between a graph's node and edge sets and keeps the
//     feature dims (one shape rule, rowMap in ShapeRules.h);
//   - Hoistable: a deterministic function of its operands that the targets
//     can compute once, ahead of the steps, while its operands do not change
//     (gnn-hoist-invariants, StepInvariance.h).
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNNINTERFACES_TD
#define GNN_DIALECT_GNNINTERFACES_TD

include "mlir/IR/OpBase.td"

def GNN_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::gnn";
  let description = [{
    An op that reverse-mode differentiation can go through. Given the adjoint
    `dy` of the op's single result, `buildAdjoint` emits the ops computing
    the contribution to each *active* operand (one that depends on a
    parameter) and hands it to `adjoints.accumulate`. An op without this
    interface that lies between a parameter and the loss is an error naming
    the op, never a silently wrong gradient.
  }];
  let methods = [
    InterfaceMethod<[{
        Emits, at the builder's insertion point, the contributions of `dy`
        (the adjoint of this op's result) to the adjoints of its active
        operands. Fails, with a diagnostic, when the op cannot be
        differentiated as written.
      }],
      "::mlir::LogicalResult", "buildAdjoint",
      (ins "::gnn::AdjointBuilder &":$adjoints, "::mlir::Value":$dy)>
  ];
}

def GNN_GraphOpInterface : OpInterface<"GraphOpInterface"> {
  let cppNamespace = "::gnn";
  let description = [{
    An op over one graph operand whose (single) result has one row per
    source node, per destination node or per edge of that graph.
  }];
  let methods = [
    InterfaceMethod<"The graph operand.", "::mlir::OpOperand &",
      "getGraphOperand", (ins), [{}], [{
        for (::mlir::OpOperand &operand : $_op->getOpOperands())
          if (::llvm::isa<::gnn::GraphType>(operand.get().getType()))
            return operand;
        ::llvm_unreachable("a GraphOpInterface op without a graph operand");
      }]>,
    InterfaceMethod<"The rows the result has: one per source node, "
                    "destination node or edge of the graph operand.",
      "::gnn::GraphRows", "getResultRows">
  ];
}

/// A pure function of one element of each operand (broadcasting binary ops,
/// unary activations and their adjoints): fusion may put it in a body.
def GNN_FusibleElementwise : NativeOpTrait<"FusibleElementwise"> {
  let cppNamespace = "::mlir::OpTrait::gnn";
}

/// `[N, F...] -> [M, F...]` between a graph's node and edge sets: the same
/// rank (at least 1) and feature dims in and out (ShapeRules.h's rowMap
/// rule, which the ResultShapeRule trait verifies).
def GNN_RowMap : NativeOpTrait<"RowMap"> {
  let cppNamespace = "::mlir::OpTrait::gnn";
}

/// Results that depend on the operands alone (no random stream, no state), of
/// an op the targets know how to run in a program's invariant section: with
/// invariant operands, gnn-hoist-invariants computes it once per run.
def GNN_Hoistable : NativeOpTrait<"Hoistable"> {
  let cppNamespace = "::mlir::OpTrait::gnn";
}

#endif // GNN_DIALECT_GNNINTERFACES_TD
