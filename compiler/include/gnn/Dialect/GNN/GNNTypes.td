//===- GNNTypes.td - gnn dialect types ---------------------*- tablegen -*-===//
//
// Types of the gnn dialect. There is one: `!gnn.graph`, an opaque handle to a
// graph or to a bipartite message-flow block. Tensors are builtin ranked
// tensors; the type constraints used by the ops are defined here as well.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNNTYPES_TD
#define GNN_DIALECT_GNNTYPES_TD

include "gnn/Dialect/GNN/GNNDialect.td"
include "mlir/IR/AttrTypeBase.td"

class GNN_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<GNN_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def GNN_GraphType : GNN_Type<"Graph", "graph"> {
  let summary = "a graph or a bipartite message-flow block";
  let description = [{
    A graph whose edges go from source nodes to destination nodes. In
    full-graph training the sources and destinations are the same node set; a
    sampled message-flow block is bipartite, and its destination nodes are the
    first rows of its source nodes. Node, edge and feature counts are run-time
    properties, so the type has no parameters.

    ```mlir
    func.func @forward(%g: !gnn.graph, %x: tensor<?x16xf32>)
    ```
  }];
}

/// Ranked tensors of f32: every feature, weight and activation.
def GNN_F32Tensor : RankedTensorOf<[F32]>;
/// A rank-0 f32 tensor: scalars (constants, losses).
def GNN_F32Scalar : 0DTensorOf<[F32]>;
/// Per-node class labels.
def GNN_LabelTensor : 1DTensorOf<[I64]>;
/// Per-node boolean masks (for example the training split).
def GNN_MaskTensor : 1DTensorOf<[I1]>;

#endif // GNN_DIALECT_GNNTYPES_TD
