//===- GNNOps.td - gnn dialect operations ------------------*- tablegen -*-===//
//
// Operations of the gnn dialect, grouped by concern: parameters (module-level
// trainable tensors and reads of them), graph primitives (node <-> edge data
// movement, fused aggregation, edge softmax, degrees, blocks and relations)
// and dense f32 tensor math (matmul, broadcasting elementwise ops, unary
// activations, softmax, dropout, concat/reshape/reduce, the loss). Shape
// invariants that go beyond the type constraints are checked by the C++
// verifiers in GNNOps.cpp; a static dim always matches a dynamic one.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNNOPS_TD
#define GNN_DIALECT_GNNOPS_TD

include "gnn/Dialect/GNN/GNNDialect.td"
include "gnn/Dialect/GNN/GNNTypes.td"
include "gnn/Dialect/GNN/GNNAttrs.td"
include "gnn/Dialect/GNN/GNNInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

/// A non-negative integer attribute (axes, layer indices).
def GNN_IndexAttr : ConfinedAttr<I64Attr, [IntNonNegative]>;

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

def GNN_ParameterOp : GNN_Op<"parameter", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "declares a trainable tensor";
  let description = [{
    Declares a trainable parameter of the module: its type, how it is
    initialized and, for each dim, the symbolic size it was written with in the
    source (`dims`), so that the runtime can resolve dataset-dependent sizes
    such as `cora.features`. A `dims` entry that is an integer literal must
    equal the static size of that dim.

    `init_args` carries the initializer's numeric arguments: `constant` takes
    exactly one (the value); `uniform` (low, high) and `normal` (mean, stddev)
    take none (their defaults) or two; the others take none.

    ```mlir
    gnn.parameter @GCN.c1.w : tensor<?x16xf32> init glorot dims ["cora.features", "16"]
    gnn.parameter @GCN.c1.b : tensor<16xf32> init constant args [1.000000e-01] dims ["16"]
    ```

    A `buffer` is not trained: batch normalization's running statistics,
    which train steps move (`gnn.batch_norm_running`) and evaluation reads.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttr:$type,
                       GNN_InitKindAttr:$init,
                       OptionalAttr<F64ArrayAttr>:$init_args,
                       StrArrayAttr:$dims,
                       UnitAttr:$buffer);
  let assemblyFormat = [{
    $sym_name `:` $type `init` `` $init (`args` $init_args^)? `dims` $dims
    (`buffer` $buffer^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The declared tensor type (verified to be a ranked f32 tensor).
    ::mlir::RankedTensorType getTensorType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getType());
    }
  }];
}

def GNN_ParamOp : GNN_PureOp<"param",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>,
     DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "reads a trainable parameter";
  let description = [{
    The current value of the `gnn.parameter` named by `name`. The result type
    must be compatible with the declared one (it may be more or less static).

    ```mlir
    %w = gnn.param @GCN.c1.w : tensor<?x16xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$name);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Graph primitives
//===----------------------------------------------------------------------===//

def GNN_GatherOp : GNN_PureOp<"gather",
    [GNN_Hoistable, GNN_RowMap, DeclareOpInterfaceMethods<GNN_GraphOpInterface>,
     DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "copies node rows onto edges";
  let description = [{
    For each of the graph's E edges, the row of `input` at the edge's `src` or
    `dst` endpoint: `[N, F...] -> [E, F...]`. The feature dims are unchanged.

    ```mlir
    %e = gnn.gather src %g, %x : tensor<?x16xf32> -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_EdgeSideAttr:$side, GNN_GraphType:$graph,
                       GNN_F32Tensor:$input);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $side $graph `,` $input attr-dict `:` type($input) `->` type($result)
  }];
}

def GNN_GatherRelationOp : GNN_PureOp<"gather_relation",
    [DeclareOpInterfaceMethods<GNN_GraphOpInterface>,
     DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "copies rows of a per-relation table onto typed edges";
  let description = [{
    For each of the graph's E edges, the row of `table` at the edge's
    relation id (GraphView::edgeType): `[R, F...] -> [E, F...]`. On the
    pairs of a knowledge graph (`gather(p, r, rel)`) each pair reads its
    relation's vector, so DistMult is
    `sum(gather(p, z, src) * gather(p, r, rel) * gather(p, z, dst), 1)`.

    ```mlir
    %re = gnn.gather_relation %p, %r : tensor<11x16xf32> -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$table);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    $graph `,` $table attr-dict `:` type($table) `->` type($result)
  }];
}

def GNN_ScatterOp : GNN_PureOp<"scatter",
    [GNN_Hoistable, GNN_RowMap, DeclareOpInterfaceMethods<GNN_GraphOpInterface>,
     DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "reduces edge rows into destination-node rows";
  let description = [{
    For each destination node, the `reduce` of the rows of `input` on its
    incoming edges: `[E, F...] -> [Ndst, F...]`. A node without incoming edges
    gets zeros (for every reduction).

    ```mlir
    %h = gnn.scatter sum %g, %m : tensor<?x16xf32> -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_ReduceKindAttr:$reduce, GNN_GraphType:$graph,
                       GNN_F32Tensor:$input);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $reduce $graph `,` $input attr-dict `:` type($input) `->` type($result)
  }];
}

def GNN_AggregateOp : GNN_PureOp<"aggregate",
    [GNN_Hoistable, GNN_RowMap, DeclareOpInterfaceMethods<GNN_GraphOpInterface>,
     DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "fused gather(src) + scatter (SpMM)";
  let description = [{
    `scatter(reduce, g, gather(src, g, input) * weight)` without materializing
    the `[E, F...]` messages: `[Nsrc, F...] -> [Ndst, F...]`.

    The optional `weight` scales each message. It is `[E]` (one scalar per
    edge) or `[E, d1..dk]` where `d1..dk` are a prefix of the input's feature
    dims (per-head weights: input `[N, H, F]` with weight `[E, H]`), and is
    broadcast over the remaining feature dims. With `self_loops`, each
    destination node also receives its own source row (destinations come first
    among the sources) with weight 1.

    ```mlir
    %h = gnn.aggregate sum %g, %x : tensor<?x16xf32> -> tensor<?x16xf32>
    %a = gnn.aggregate sum %g, %x weight %w {self_loops = true} : tensor<?x8x16xf32>, tensor<?x8xf32> -> tensor<?x8x16xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$input,
                       Optional<GNN_F32Tensor>:$weight,
                       GNN_ReduceKindAttr:$reduce,
                       DefaultValuedAttr<BoolAttr, "false">:$self_loops);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $reduce $graph `,` $input (`weight` $weight^)? attr-dict
    `:` type($input) (`,` type($weight)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def GNN_AggregateRelationsOp : GNN_PureOp<"aggregate_relations",
    [DeclareOpInterfaceMethods<GNN_GraphOpInterface>,
     DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "relation-batched aggregation and transform (R-GCN)";
  let description = [{
    For a graph whose edges carry relation ids (a heterogeneous graph's
    homogeneous view): every destination sums, over the relations `r` of its
    in-edges, the `reduce` (sum or mean) of its relation-`r` source rows times
    that relation's matrix `weight[r]`:
    `[Nsrc, In] x [R, In, Out] -> [Ndst, Out]`. One kernel covers all
    relations, with no `[N, R, In]` intermediate.

    ```mlir
    %h = gnn.aggregate_relations mean %g, %x, %w : tensor<?x16xf32>, tensor<?x16x4xf32> -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$input,
                       GNN_F32Tensor:$weight, GNN_ReduceKindAttr:$reduce);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $reduce $graph `,` $input `,` $weight attr-dict `:` type($input) `,`
    type($weight) `->` type($result)
  }];
  let hasVerifier = 1;
}

def GNN_AggregateRelationRowsOp : GNN_PureOp<"aggregate_relation_rows",
    [DeclareOpInterfaceMethods<GNN_GraphOpInterface>,
     DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "R-GCN's featureless input layer: rows of per-relation tables";
  let description = [{
    `aggregate_relations` of one-hot node inputs without materializing them:
    every destination sums, over the relations `r` of its in-edges, the
    `reduce` (sum or mean) of rows `table[r][id(j)]` of its relation-`r`
    sources `j`, where `id(j)` is the source's whole-graph node id:
    `[R, Nodes, Out] -> [Ndst, Out]`.

    ```mlir
    %h = gnn.aggregate_relation_rows mean %g, %w : tensor<?x?x16xf32> -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$table,
                       GNN_ReduceKindAttr:$reduce);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $reduce $graph `,` $table attr-dict `:` type($table) `->` type($result)
  }];
  let hasVerifier = 1;
}

def GNN_EdgeSoftmaxOp : GNN_PureOp<"edge_softmax",
    [GNN_Hoistable, AllTypesMatch<["scores", "result"]>, DeclareOpInterfaceMethods<GNN_GraphOpInterface>,
     DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "softmax of edge scores over each destination's in-edges";
  let description = [{
    Normalizes `scores` (`[E, H...]`, one score per edge and head) with a
    softmax over the incoming edges of each destination node, independently
    for every trailing index.

    ```mlir
    %a = gnn.edge_softmax %g, %s : tensor<?x8xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$scores);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = "$graph `,` $scores attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def GNN_DegreeOp : GNN_PureOp<"degree", [GNN_Hoistable, DeclareOpInterfaceMethods<GNN_GraphOpInterface>]> {
  let summary = "node degrees as a column";
  let description = [{
    With `side = dst`, the in-degree of each destination node; with
    `side = src`, the out-degree of each source node. The result is an f32
    column `[N, 1]`, ready to broadcast against `[N, F]` features.

    ```mlir
    %d = gnn.degree dst %g : tensor<?x1xf32>
    ```
  }];
  let arguments = (ins GNN_EdgeSideAttr:$side, GNN_GraphType:$graph);
  let results = (outs 2DTensorOf<[F32]>:$result);
  let assemblyFormat = "`` $side $graph attr-dict `:` type($result)";
}

def GNN_DstOp : GNN_PureOp<"dst",
    [GNN_Hoistable, GNN_RowMap, DeclareOpInterfaceMethods<GNN_GraphOpInterface>,
     DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "rows of the destination nodes of a block";
  let description = [{
    The first `Ndst` rows of a source-node tensor: in a message-flow block the
    destination nodes come first among the sources. `[Nsrc, F...] ->
    [Ndst, F...]`; on a full graph it is the identity.

    ```mlir
    %xd = gnn.dst %g, %x : tensor<?x16xf32> -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$input);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    $graph `,` $input attr-dict `:` type($input) `->` type($result)
  }];
}

def GNN_HaloExchangeOp : GNN_PureOp<"halo_exchange",
    [GNN_Hoistable, GNN_RowMap, DeclareOpInterfaceMethods<GNN_GraphOpInterface>,
     DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "destination rows widened to all sources of a partition";
  let description = [{
    `[Ndst, F...] -> [Nsrc, F...]`: on a rank holding one partition, its
    owned (destination) rows followed by the rows of its halo nodes, fetched
    from the ranks that own them. gnn-distribute inserts it wherever a value
    computed per destination feeds an op that reads source rows (the next
    layer's aggregation). In a single process it is a copy.

    ```mlir
    %hs = gnn.halo_exchange %g, %h : tensor<?x16xf32> -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$input);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    $graph `,` $input attr-dict `:` type($input) `->` type($result)
  }];
}

def GNN_HaloAggregateOp : GNN_PureOp<"halo_aggregate",
    [GNN_Hoistable, GNN_RowMap, DeclareOpInterfaceMethods<GNN_GraphOpInterface>,
     DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "aggregation over a partition, one remote part at a time";
  let description = [{
    `aggregate(g, halo_exchange(g, input))` for a sum or mean, with the
    exchange overlapped with the reduction of the owned rows. `mode` says how
    remote rows arrive: `one_shot` (the whole halo at once), `sequential`
    (SAR: one remote part at a time, each reduced and dropped before the
    next arrives, so the halo is never held whole) or `auto`, the default
    (the runtime picks one-shot when the halo buffer fits its memory
    budget). `input` and the result have a row per owned (destination)
    node. In a single process it is `aggregate(g, input)`.

    An optional `weight` per edge (`[E, ...]`, as aggregate's: GAT's
    attention) needs `mode = sequential`: its adjoints fetch the remote rows
    again rather than keep them (SAR's rematerialization,
    `aggregation = sequential_remat`).

    ```mlir
    %h = gnn.halo_aggregate sum %g, %x {mode = #gnn<halo_mode sequential>, self_loops = true} : tensor<?x16xf32> -> tensor<?x16xf32>
    %a = gnn.halo_aggregate sum %g, %z weight %w {mode = #gnn<halo_mode sequential>} : tensor<?x4x8xf32>, tensor<?x4xf32> -> tensor<?x4x8xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$input,
                       Optional<GNN_F32Tensor>:$weight,
                       GNN_ReduceKindAttr:$reduce,
                       DefaultValuedAttr<BoolAttr, "false">:$self_loops,
                       DefaultValuedAttr<GNN_HaloModeAttr,
                                         "::gnn::HaloMode::automatic">:$mode);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $reduce $graph `,` $input (`weight` $weight^)? attr-dict `:`
    type($input) (`,` type($weight)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def GNN_NodeTypeOp : GNN_PureOp<"node_type", [DeclareOpInterfaceMethods<GNN_GraphOpInterface>]> {
  let summary = "which source nodes have one node type, as a column";
  let description = [{
    1 for each source node of `graph` of node type `name` (of the
    heterogeneous dataset's types), 0 for the others: an f32 column `[N, 1]`
    that selects one type's rows of a source-node tensor by broadcasting
    (a per-type input transform, a type's own bias). Constant: no gradient.

    ```mlir
    %p = gnn.node_type "paper" %g : tensor<?x1xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, StrAttr:$name);
  let results = (outs 2DTensorOf<[F32]>:$result);
  let assemblyFormat = "$name $graph attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def GNN_RelationOp : GNN_PureOp<"relation"> {
  let summary = "the subgraph of one typed relation";
  let description = [{
    The edges of relation `name` of a heterogeneous graph, as a graph from
    that relation's source node type to its destination node type.

    ```mlir
    %r = gnn.relation %g "cites"
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, StrAttr:$name);
  let results = (outs GNN_GraphType:$result);
  let assemblyFormat = "$graph $name attr-dict";
}

def GNN_ReadoutOp : GNN_PureOp<"readout"> {
  let summary = "the readout graph of a batch of graphs";
  let description = [{
    Graph-level training (`batches = graphs(...)`) packs a batch of small
    graphs into one block-diagonal graph. Its readout graph has one edge
    from each node of `graph` to the node that stands for its graph in the
    batch: an aggregation over it pools each graph's rows into one
    (`sum`, `mean`, `max`), a gather over it broadcasts a graph's row back
    to its nodes, and an edge softmax over it normalizes over each graph's
    nodes (an attention readout). Its sources are `graph`'s destinations.

    ```mlir
    %r = gnn.readout %g
    %pooled = gnn.aggregate sum %r, %h : tensor<?x64xf32> -> tensor<?x64xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph);
  let results = (outs GNN_GraphType:$result);
  let assemblyFormat = "$graph attr-dict";
}

def GNN_PairsOp : GNN_PureOp<"pairs"> {
  let summary = "the node pairs a link-prediction step scores";
  let description = [{
    Link prediction scores pairs of nodes: a step's positive links and
    their negatives, or an evaluated split's. They are a graph over
    `graph`'s nodes with one edge per pair, so gathering both ends of each
    edge gives a row per pair to score (a dot product, DistMult, an MLP).

    ```mlir
    %p = gnn.pairs %g
    %zs = gnn.gather src %p, %z : tensor<?x16xf32> -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph);
  let results = (outs GNN_GraphType:$result);
  let assemblyFormat = "$graph attr-dict";
}

def GNN_BlockOp : GNN_PureOp<"block"> {
  let summary = "the message-flow block of one layer";
  let description = [{
    The bipartite block that layer `layer` (0 = the input layer) aggregates
    over in sampled training; in full-graph training the graph itself.

    ```mlir
    %b0 = gnn.block %g layer = 0
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_IndexAttr:$layer);
  let results = (outs GNN_GraphType:$result);
  let assemblyFormat = "$graph `layer` `=` $layer attr-dict";
}

//===----------------------------------------------------------------------===//
// Dense tensor math
//===----------------------------------------------------------------------===//

def GNN_MatmulOp : GNN_PureOp<"matmul", [GNN_Hoistable, DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "matrix product";
  let description = [{
    `[M, K] x [K, N] -> [M, N]`. With `transpose_lhs` (`transpose_rhs`) the
    left (right) operand is read transposed, as BLAS does; autodiff emits
    these for the adjoints instead of materializing transposes.

    ```mlir
    %y = gnn.matmul %x, %w : tensor<?x16xf32>, tensor<16x7xf32> -> tensor<?x7xf32>
    ```
  }];
  let arguments = (ins GNN_F32Tensor:$lhs, GNN_F32Tensor:$rhs,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_lhs,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_rhs);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

/// Elementwise binary ops with numpy broadcasting (their shape rule is in
/// ShapeRules.h).
class GNN_BinaryOp<string mnemonic, string expr, list<Trait> traits = []>
    : GNN_PureOp<mnemonic, !listconcat([GNN_FusibleElementwise,
        DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>], traits)> {
  let summary = "elementwise `" # expr # "` with broadcasting";
  let description = [{
    Computes `}] # expr # [{` elementwise. Shapes broadcast numpy-style:
    aligned at the trailing dim, a size-1 (or missing) dim stretches to the
    other side's size. The result shape is the broadcast shape.

    ```mlir
    %z = gnn.}] # mnemonic # [{ %x, %y : tensor<?x16xf32>, tensor<16xf32> -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_F32Tensor:$lhs, GNN_F32Tensor:$rhs);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

def GNN_AddOp : GNN_BinaryOp<"add", "lhs + rhs", [Commutative]>;
def GNN_SubOp : GNN_BinaryOp<"sub", "lhs - rhs">;
def GNN_MulOp : GNN_BinaryOp<"mul", "lhs * rhs", [Commutative]>;
def GNN_DivOp : GNN_BinaryOp<"div", "lhs / rhs">;
def GNN_MaximumOp : GNN_BinaryOp<"maximum", "max(lhs, rhs)", [Commutative]>;

/// Elementwise unary ops; the result type is the operand type.
class GNN_UnaryOp<string mnemonic, string expr, list<Trait> traits = []>
    : GNN_PureOp<mnemonic, !listconcat([SameOperandsAndResultType,
        GNN_FusibleElementwise, DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>], traits)> {
  let summary = "elementwise `" # expr # "`";
  let description = [{
    Computes `}] # expr # [{` for every element.

    ```mlir
    %y = gnn.}] # mnemonic # [{ %x : tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_F32Tensor:$input);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def GNN_NegOp : GNN_UnaryOp<"neg", "-x">;
def GNN_ExpOp : GNN_UnaryOp<"exp", "exp(x)">;
def GNN_LogOp : GNN_UnaryOp<"log", "log(x)">;
def GNN_SqrtOp : GNN_UnaryOp<"sqrt", "sqrt(x)">;
def GNN_RsqrtOp : GNN_UnaryOp<"rsqrt", "1 / sqrt(x)">;
def GNN_ReluOp : GNN_UnaryOp<"relu", "max(x, 0)">;
def GNN_SigmoidOp : GNN_UnaryOp<"sigmoid", "1 / (1 + exp(-x))">;
def GNN_TanhOp : GNN_UnaryOp<"tanh", "tanh(x)">;
def GNN_AbsOp : GNN_UnaryOp<"abs", "|x|">;

/// Unary activations with a slope/scale parameter `alpha`.
class GNN_AlphaUnaryOp<string mnemonic, string expr>
    : GNN_PureOp<mnemonic, [SameOperandsAndResultType, GNN_FusibleElementwise,
        DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "elementwise `" # expr # "`";
  let description = [{
    Computes `}] # expr # [{` for every element.

    ```mlir
    %y = gnn.}] # mnemonic # [{ %x alpha = 2.000000e-01 : tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_F32Tensor:$input, F64Attr:$alpha);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = "$input `alpha` `=` $alpha attr-dict `:` type($result)";
}

def GNN_LeakyReluOp : GNN_AlphaUnaryOp<"leaky_relu", "x > 0 ? x : alpha * x">;
def GNN_EluOp : GNN_AlphaUnaryOp<"elu", "x > 0 ? x : alpha * (exp(x) - 1)">;

/// Normalizations along one axis.
class GNN_AxisSoftmaxOp<string mnemonic, string expr>
    : GNN_PureOp<mnemonic, [SameOperandsAndResultType,
        DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = expr # " along one axis";
  let description = [{
    Computes }] # expr # [{ of `input` along `axis` (`0 <= axis < rank`).

    ```mlir
    %p = gnn.}] # mnemonic # [{ %x axis = 1 : tensor<?x7xf32>
    ```
  }];
  let arguments = (ins GNN_F32Tensor:$input, GNN_IndexAttr:$axis);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = "$input `axis` `=` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::verify() {
      return ::gnn::verifyAxis(getOperation(), getAxis(),
                               getInput().getType().getRank());
    }
  }];
}

def GNN_SoftmaxOp : GNN_AxisSoftmaxOp<"softmax", "the softmax">;
def GNN_LogSoftmaxOp : GNN_AxisSoftmaxOp<"log_softmax", "the log-softmax">;

def GNN_BatchNormOp : GNN_PureOp<"batch_norm", [AllTypesMatch<["input", "result"]>,
    DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "standardizes each column over the rows (batch normalization)";
  let description = [{
    `(x - mean) / sqrt(var + eps)` for every element, with each column's
    mean and biased variance over the rows at hand (axis 0; the other dims
    are the columns). One kernel: the composition from `mean` and
    elementwise ops made a dozen passes over the rows, this makes three
    (and its adjoint four). The learned scale and shift stay elementwise
    ops after it, fused with what follows. `eps >= 0`.

    With `running` (the running mean and variance, parameters that are
    buffers, shaped like one row) and `momentum` in (0, 1]: a train step
    normalizes with the batch's statistics and moves the running ones
    towards them (`gnn.batch_norm_running`, built by the adjoint), and
    evaluation normalizes with the running ones, as PyTorch's BatchNorm
    with `track_running_stats`.

    ```mlir
    %y = gnn.batch_norm %x eps = 1.000000e-05 : tensor<?x64xf32>
    %z = gnn.batch_norm %x running %m, %v : tensor<64xf32>, tensor<64xf32> eps = 1.000000e-05 momentum = 1.000000e-01 : tensor<?x64xf32>
    ```
  }];
  let arguments = (ins GNN_F32Tensor:$input, Variadic<GNN_F32Tensor>:$running,
                       F64Attr:$eps, OptionalAttr<F64Attr>:$momentum);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    $input (`running` $running^ `:` type($running))? `eps` `=` $eps
    (`momentum` `=` $momentum^)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether it keeps running statistics (`running` given).
    bool hasRunningStatistics() { return !getRunning().empty(); }
  }];
}

// Not Pure: each dropout draws its own random mask, so two dropouts of the
// same value must not be merged by CSE.
def GNN_DropoutOp : GNN_Op<"dropout", [SameOperandsAndResultType,
    DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "inverted dropout";
  let description = [{
    In training, zeroes each element with probability `p` and multiplies the
    kept ones by `1 / (1 - p)`; in evaluation it is the identity.
    `0 <= p < 1`. The mask is a counter-based random function of the run's
    seed, the training step and `stream`: two dropouts with the same stream
    in one step apply the same mask, which is how autodiff expresses
    dropout's adjoint without storing the mask.

    ```mlir
    %y = gnn.dropout %x p = 5.000000e-01 : tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_F32Tensor:$input, F64Attr:$p,
                       OptionalAttr<I64Attr>:$stream);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = "$input `p` `=` $p attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def GNN_ConstantOp : GNN_PureOp<"constant", [GNN_Hoistable, ConstantLike]> {
  let summary = "a scalar constant";
  let description = [{
    A rank-0 f32 tensor holding `value`; scalars broadcast against any tensor
    in the elementwise ops.

    ```mlir
    %one = gnn.constant 1.000000e+00 : tensor<f32>
    ```
  }];
  let arguments = (ins F64Attr:$value);
  let results = (outs GNN_F32Scalar:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
  let builders = [
    OpBuilder<(ins "double":$value), [{
      build($_builder, $_state,
            ::mlir::RankedTensorType::get({}, $_builder.getF32Type()),
            $_builder.getF64FloatAttr(value));
    }]>
  ];
  let hasFolder = 1;
}

def GNN_ConcatOp : GNN_PureOp<"concat", [DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "concatenation along one axis";
  let description = [{
    Joins one or more tensors of equal rank along `axis`; all other dims must
    agree. The result's `axis` dim is the sum of the inputs'.

    ```mlir
    %c = gnn.concat %a, %b axis = 1 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins Variadic<GNN_F32Tensor>:$inputs, GNN_IndexAttr:$axis);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    $inputs `axis` `=` $axis attr-dict `:` type($inputs) `->` type($result)
  }];
}

def GNN_ReshapeOp : GNN_PureOp<"reshape", [GNN_Hoistable, DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "reinterprets the shape (row-major)";
  let description = [{
    The same elements in row-major order under a new shape. A dynamic
    leading result dim is the input's rows (the language's reshapes keep
    them, and the targets size by it); one other dynamic dim is what the
    rest leaves. Where the element counts are known they must be equal.

    ```mlir
    %h = gnn.reshape %x : tensor<?x64xf32> -> tensor<?x8x8xf32>
    ```
  }];
  let arguments = (ins GNN_F32Tensor:$input);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def GNN_BlockDiagonalOp : GNN_PureOp<"block_diagonal", [DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "block-diagonal matrices from their blocks (R-GCN eq. 4)";
  let description = [{
    `[R, B, I, O] -> [R, B*I, B*O]`: matrix `r` of the result has the blocks
    `input[r, 0..B)` on its diagonal, block `b` at rows `[b*I, (b+1)*I)` and
    columns `[b*O, (b+1)*O)`, and zeros elsewhere.

    ```mlir
    %w = gnn.block_diagonal %q : tensor<?x4x4x2xf32> -> tensor<?x16x8xf32>
    ```
  }];
  let arguments = (ins 4DTensorOf<[F32]>:$input);
  let results = (outs 3DTensorOf<[F32]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def GNN_ReduceOp : GNN_PureOp<"reduce", [DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "reduction along one axis";
  let description = [{
    Reduces `input` along `axis` with `kind`; the axis is removed from the
    shape.

    ```mlir
    %m = gnn.reduce mean %x axis = 1 : tensor<?x8x16xf32> -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_ReduceKindAttr:$kind, GNN_F32Tensor:$input,
                       GNN_IndexAttr:$axis);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $kind $input `axis` `=` $axis attr-dict `:` type($input) `->` type($result)
  }];
}

def GNN_CrossEntropyOp : GNN_PureOp<"cross_entropy", [DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "mean softmax cross-entropy loss";
  let description = [{
    `mean_i(-log_softmax(logits)[i, labels[i]])` over the rows `i` selected by
    `mask` (all rows without one). Rows whose label is negative (unlabeled)
    are skipped. `logits` is `[N, C]`, `labels` and `mask` are `[N]`.

    ```mlir
    %l = gnn.cross_entropy %logits, %labels : tensor<?x7xf32>, tensor<?xi64> -> tensor<f32>
    %m = gnn.cross_entropy %logits, %labels mask %train : tensor<?x7xf32>, tensor<?xi64>, tensor<?xi1> -> tensor<f32>
    ```
  }];
  let arguments = (ins 2DTensorOf<[F32]>:$logits, GNN_LabelTensor:$labels,
                       Optional<GNN_MaskTensor>:$mask);
  let results = (outs GNN_F32Scalar:$result);
  let assemblyFormat = [{
    $logits `,` $labels (`mask` $mask^)? attr-dict
    `:` type($logits) `,` type($labels) (`,` type($mask)^)? `->` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$logits, "::mlir::Value":$labels,
                   "::mlir::Value":$mask), [{
      build($_builder, $_state,
            ::mlir::RankedTensorType::get({}, $_builder.getF32Type()),
            logits, labels, mask);
    }]>
  ];
  let hasVerifier = 1;
}

def GNN_NormPenaltyOp : GNN_PureOp<"norm_penalty", [DeclareOpInterfaceMethods<GNN_DifferentiableOpInterface>]> {
  let summary = "a loss plus a norm penalty of the rows a link score reads";
  let description = [{
    `loss + weight * sum(|rows|^power) / N` for `rows` of `[N, D]` (power 2:
    the squared L2 norm, 3: Lacroix et al.'s N3), so each row is penalized
    once per pair that reads it (the "weighted" penalty of LibKGE). The
    trainer's loss scale (a rank's share of the step) applies to the penalty
    as to the cross-entropy. gnn-autodiff adds one per factor of a link score
    when the train block sets `penalty`.

    ```mlir
    %l = gnn.norm_penalty %loss, %rows power = 3 weight = 1.000000e-01 : tensor<f32>, tensor<?x200xf32> -> tensor<f32>
    ```
  }];
  let arguments = (ins GNN_F32Scalar:$loss, 2DTensorOf<[F32]>:$rows,
                       ConfinedAttr<I64Attr, [IntMinValue<2>, IntMaxValue<3>]>:$power,
                       F64Attr:$weight);
  let results = (outs GNN_F32Scalar:$result);
  let assemblyFormat = [{
    $loss `,` $rows `power` `=` $power `weight` `=` $weight attr-dict
    `:` type($loss) `,` type($rows) `->` type($result)
  }];
  let hasVerifier = 1;
}

include "gnn/Dialect/GNN/GNNGradOps.td"
include "gnn/Dialect/GNN/GNNFusedOps.td"

#endif // GNN_DIALECT_GNNOPS_TD
