//===- GNNDialect.td - gnn dialect definition -------------*- tablegen -*-===//
//
// The `gnn` dialect: graph primitives (gather, scatter, aggregate, edge
// softmax, message-flow blocks) plus the dense f32 tensor math a GNN layer
// needs. This file defines the dialect record and the base classes every op
// derives from, so that the traits all ops share are stated in one place.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNNDIALECT_TD
#define GNN_DIALECT_GNNDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def GNN_Dialect : Dialect {
  let name = "gnn";
  let cppNamespace = "::gnn";
  let summary = "Graph neural network primitives and dense tensor math";
  let description = [{
    The `gnn` dialect is what `gnnc`'s MLIRGen produces from a `.gnn` program:
    one `func.func` per model forward, `gnn.parameter` symbols for the trainable
    tensors, graph primitives over `!gnn.graph` values and elementwise, matrix
    and reduction ops over builtin ranked tensors of `f32`. Dataset sizes are
    run-time values, so tensor dims are often dynamic (`?`); verifiers treat a
    static dim as compatible with a dynamic one.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let useFoldAPI = kEmitFoldAdaptorFolder;
  // gnn.constant folds to its value; canonicalization re-creates it from there.
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
  private:
    /// Registers the dialect's types (GNNTypes.cpp).
    void registerTypes();
    /// Registers the dialect's attributes (GNNAttrs.cpp).
    void registerAttributes();
  }];
}

/// Every gnn op's result shape follows its rule in ShapeRules.h, which the
/// trait verifies (after the op's type constraints, before its verify()).
def GNN_ResultShapeRule : NativeOpTrait<"ResultShapeRule"> {
  let cppNamespace = "::mlir::OpTrait::gnn";
}

/// Every gnn op. Ops that are pure value computations derive from
/// GNN_PureOp instead; the few that are not (symbol declarations, random
/// dropout) derive from this class directly.
class GNN_Op<string mnemonic, list<Trait> traits = []>
    : Op<GNN_Dialect, mnemonic, !listconcat(traits, [GNN_ResultShapeRule])>;

/// A side-effect-free gnn op: CSE and DCE may merge or erase it.
class GNN_PureOp<string mnemonic, list<Trait> traits = []>
    : GNN_Op<mnemonic, !listconcat([Pure], traits)>;

#endif // GNN_DIALECT_GNNDIALECT_TD
