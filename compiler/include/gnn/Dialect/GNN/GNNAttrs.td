//===- GNNAttrs.td - gnn dialect enum attributes -----------*- tablegen -*-===//
//
// Enum attributes of the gnn dialect: the reduction of a scatter, aggregate
// or reduce, the edge endpoint a gather or degree refers to, the initializer
// of a parameter, how a partitioned aggregation fetches remote rows, and the
// elementwise function a unary_grad differentiates. Each prints as its bare
// keyword (`sum`, `src`, `glorot`, `sequential`, `relu`) inside an op's
// assembly.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNNATTRS_TD
#define GNN_DIALECT_GNNATTRS_TD

include "gnn/Dialect/GNN/GNNDialect.td"
include "mlir/IR/EnumAttr.td"

class GNN_I32Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::gnn";
  // The dialect attribute below wraps the enum; no IntegerAttr subclass.
  let genSpecializedAttr = 0;
}

class GNN_EnumAttr<EnumAttrInfo info, string mnemonic>
    : EnumAttr<GNN_Dialect, info, mnemonic> {
  // The printer emits a space before the keyword, so ops write "`` $attr" in
  // their formats to avoid a double space.
  let assemblyFormat = "$value";
}

def GNN_ReduceKind : GNN_I32Enum<"ReduceKind", "reduction over rows or edges", [
  I32EnumAttrCase<"sum", 0>,
  I32EnumAttrCase<"mean", 1>,
  I32EnumAttrCase<"max", 2>,
  I32EnumAttrCase<"min", 3>
]>;
def GNN_ReduceKindAttr : GNN_EnumAttr<GNN_ReduceKind, "reduce_kind">;

def GNN_EdgeSide : GNN_I32Enum<"EdgeSide", "endpoint of an edge", [
  I32EnumAttrCase<"src", 0>,
  I32EnumAttrCase<"dst", 1>
]>;
def GNN_EdgeSideAttr : GNN_EnumAttr<GNN_EdgeSide, "edge_side">;

def GNN_InitKind : GNN_I32Enum<"InitKind", "initializer of a parameter", [
  I32EnumAttrCase<"zeros", 0>,
  I32EnumAttrCase<"ones", 1>,
  I32EnumAttrCase<"glorot", 2>,
  I32EnumAttrCase<"kaiming", 3>,
  I32EnumAttrCase<"uniform", 4>,
  I32EnumAttrCase<"normal", 5>,
  I32EnumAttrCase<"constant", 6>
]>;
def GNN_InitKindAttr : GNN_EnumAttr<GNN_InitKind, "init_kind">;

/// How gnn.halo_aggregate (and its adjoint) brings remote rows in: the
/// train block's `aggregation` setting.
def GNN_HaloMode : GNN_I32Enum<"HaloMode", "how remote rows of a partitioned aggregation arrive", [
  // The runtime picks one_shot when the halo buffer fits its memory budget.
  I32EnumAttrCase<"automatic", 0, "auto">,
  // The whole halo at once, overlapped with the owned rows' reduction.
  I32EnumAttrCase<"one_shot", 1>,
  // SAR: one remote part at a time, reduced and dropped before the next.
  I32EnumAttrCase<"sequential", 2>
]>;
def GNN_HaloModeAttr : GNN_EnumAttr<GNN_HaloMode, "halo_mode">;

/// The elementwise function whose derivative a gnn.unary_grad applies: the
/// mnemonic of a gnn unary or alpha-unary op.
def GNN_UnaryKind : GNN_I32Enum<"UnaryKind", "differentiated elementwise function", [
  I32EnumAttrCase<"neg", 0>,
  I32EnumAttrCase<"exp", 1>,
  I32EnumAttrCase<"log", 2>,
  I32EnumAttrCase<"sqrt", 3>,
  I32EnumAttrCase<"rsqrt", 4>,
  I32EnumAttrCase<"relu", 5>,
  I32EnumAttrCase<"sigmoid", 6>,
  I32EnumAttrCase<"tanh", 7>,
  I32EnumAttrCase<"abs", 8>,
  I32EnumAttrCase<"leaky_relu", 9>,
  I32EnumAttrCase<"elu", 10>
]>;
def GNN_UnaryKindAttr : GNN_EnumAttr<GNN_UnaryKind, "unary_kind">;

include "gnn/Dialect/GNN/GNNTrainAttrs.td"

#endif // GNN_DIALECT_GNNATTRS_TD
