//===- Passes.td - gnn dialect passes ----------------------*- tablegen -*-===//
//
// Passes that transform the gnn dialect in place. Declarations only; the
// implementations live in compiler/lib/Dialect/GNN/Transforms. Flags read
// `gnn-<verb>`. No pass names a `constructor`: tblgen emits
// `create<PassName>()` for each.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_PASSES_TD
#define GNN_DIALECT_PASSES_TD

include "mlir/Pass/PassBase.td"

def InferShapes : Pass<"gnn-infer-shapes", "::mlir::func::FuncOp"> {
  let summary = "Refine dynamic result dims of gnn ops from static operand dims";
  let description = [{
    MLIRGen types every dataset-dependent dim as `?`, but many results are
    partly known from their operands: a `gnn.matmul` result has the static
    column count of its right operand, an `aggregate` keeps its input's feature
    dims, a broadcast takes the static dims of either side. This pass walks a
    function in program order and replaces each `?` in a gnn op's result type
    by the static size implied by its (already refined) operands. It never
    changes a static dim, and it leaves a value's type alone where a non-gnn
    user (for example `func.return`) requires the original type, together with
    every value tied to it by a same-type constraint.

    ```mlir
    %c = gnn.matmul %a, %b : tensor<?x16xf32>, tensor<16x7xf32> -> tensor<?x?xf32>
    // becomes
    %c = gnn.matmul %a, %b : tensor<?x16xf32>, tensor<16x7xf32> -> tensor<?x7xf32>
    ```
  }];
}

def Autodiff : Pass<"gnn-autodiff", "::mlir::ModuleOp"> {
  let summary = "Reverse-mode differentiation: a train step for each model";
  let description = [{
    For every `@<Model>.forward(%g, %x)` creates
    `@<Model>.train_step(%g, %x, %labels, %mask) -> tensor<f32>`: the forward
    computation, the softmax cross-entropy loss over the rows selected by
    `%mask`, and the adjoint of every value that depends on a parameter, in
    reverse program order, ending in one `gnn.param_grad` per parameter read.
    A link program trained 1vsAll (`negatives = all`) takes as logits its
    score's factors' product against every node instead, `(a[src] *
    r[rel]) b^T` (LinkFactors.h), the labels being each pair's destination.
    Values that depend on no parameter (the input features, degrees) get no
    adjoint. Forward values the adjoints need are simply reused; memory
    planning decides how long they live. Dropout's adjoint is the same
    dropout (same `stream`) applied to the gradient, so no mask is stored.

    ```mlir
    %y = gnn.matmul %x, %w : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<?x4xf32>
    // adjoint of %w:
    %dw = gnn.matmul %x, %dy {transpose_lhs = true} : ... -> tensor<8x4xf32>
    gnn.param_grad @M.w, %dw : tensor<8x4xf32>
    ```
  }];
}

def Reorder : Pass<"gnn-reorder", "::mlir::func::FuncOp"> {
  let summary = "Aggregate-then-transform or transform-then-aggregate, by size";
  let description = [{
    A linear aggregation (sum or mean, optionally with scalar edge weights
    and self loops) commutes with a right matrix product:
    `aggregate(g, x) @ W == aggregate(g, x @ W)`, and a row scaling commutes
    with both. In a full graph both orders do the same GEMM, but the
    aggregation gathers one row of its input per edge, so it should run on
    the narrower side of `W`. This pass rewrites either form into the other
    when `W` (a parameter read) narrows or widens the rows:

    ```mlir
    %a = gnn.aggregate mean %g, %x : tensor<?x1433xf32> -> tensor<?x1433xf32>
    %y = gnn.matmul %a, %w : tensor<?x1433xf32>, tensor<1433x64xf32> -> tensor<?x64xf32>
    // becomes (the aggregation now gathers 64 floats per edge, not 1433)
    %t = gnn.matmul %x, %w : tensor<?x1433xf32>, tensor<1433x64xf32> -> tensor<?x64xf32>
    %y = gnn.aggregate mean %g, %t : tensor<?x64xf32> -> tensor<?x64xf32>
    ```

    Widths come from the parameter's declared dims. A dataset dim is known
    when the program's dataset is `generate(...)`; otherwise the pass uses
    the estimates `features` and `classes` (gnnc's `--assume`).

    With `hoist-invariants`, an aggregation whose input is the same on every
    step (a full-graph program's features, scaled by degree norms) goes
    first whatever the widths: gnn-hoist-invariants computes it once.
  }];
  let options = [
    Option<"hoistInvariants", "hoist-invariants", "bool", "false",
           "Aggregate step-invariant inputs first (the target computes "
           "them once per run)">,
    Option<"featuresEstimate", "features", "int64_t", "512",
           "Assumed input feature width where the dataset does not fix it">,
    Option<"classesEstimate", "classes", "int64_t", "16",
           "Assumed class count where the dataset does not fix it">,
  ];
}

def HoistInvariants : Pass<"gnn-hoist-invariants", "::mlir::func::FuncOp"> {
  let summary = "Mark what every call computes alike, to be computed once";
  let description = [{
    In a full-graph program every call of an entry point sees the same graph
    and input features. The ops computed from those alone (degrees, their
    norms, an aggregation of the scaled features; not parameters, dropout or
    labels) give the same values on every call. If they include a walk over
    the graph, this pass moves them to the front of the function (after the
    constants), in program order, and marks them `gnn.step_invariant`; the
    C++ target computes them on the first call with given inputs and keeps
    the values later ops read across calls (`Workspace::kept`). gnn-reorder
    (`hoist-invariants`) first puts such aggregations before their
    transforms, so GCN's first layer aggregates its features once per run.

    ```mlir
    %p = gnn.mul %norm, %x : ...
    %a = gnn.aggregate sum %g, %p {self_loops = true} : ...
    %h = gnn.matmul %a, %w : ...
    // becomes
    %p = gnn.mul %norm, %x {gnn.step_invariant} : ...
    %a = gnn.aggregate sum %g, %p {gnn.step_invariant, self_loops = true} : ...
    %h = gnn.matmul %a, %w : ...
    ```
  }];
}

def FuseElementwise : Pass<"gnn-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Fuse chains of elementwise ops into gnn.map loops";
  let description = [{
    Groups elementwise ops of the same result type that feed each other into
    one `gnn.map`, placed right after the group's latest external input. A
    grouped value that is used outside the group (for example a forward
    value the backward reads) becomes an extra result; the others never
    reach memory. A producer joins its consumer's group only when every
    outside use of the merged group comes after that input, so no use moves
    before its definition.
  }];
}

def FuseEdges : Pass<"gnn-fuse-edges", "::mlir::func::FuncOp"> {
  let summary = "Fuse gathers, per-edge expressions and reductions";
  let description = [{
    An elementwise op or `gnn.map` over edge rows whose operands are
    `gnn.gather`s of node rows becomes a `gnn.edge_map` that reads the node
    rows directly, so the `[E, F]` gathered tensors are never materialized;
    a `gnn.scatter` of a single-use `gnn.edge_map` becomes its reduction, so
    the per-edge values are never stored either.
  }];
}

def FuseAggregateScale : Pass<"gnn-fuse-aggregate-scale",
                                "::mlir::func::FuncOp"> {
  let summary = "Aggregate kept row-scaled inputs without storing the product";
  let description = [{
    A step-invariant (gnn-hoist-invariants) `gnn.halo_aggregate` of a
    step-invariant `gnn.mul` of a column `[N, 1]` and a matrix `[N, F]`,
    which nothing else reads, becomes one `gnn.scaled_aggregate`: the
    aggregation scales each row as it gathers it. The product would be a
    temporary as large as the input features, held only to compute the kept
    aggregation once; over Cora's 1433 features it doubled the memory a
    hoisted GCN needs. The results are the same bits (each term is the same
    rounded product).

    ```mlir
    %p = gnn.mul %norm, %x {gnn.step_invariant} : tensor<?x1xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    %a = gnn.halo_aggregate sum %g, %p {gnn.step_invariant, self_loops = true} : tensor<?x?xf32> -> tensor<?x?xf32>
    // becomes
    %a = gnn.scaled_aggregate sum %g, %x scale %norm {gnn.step_invariant, self_loops = true} : tensor<?x?xf32>, tensor<?x1xf32> -> tensor<?x?xf32>
    ```
  }];
}

def FuseGemmEpilogue : Pass<"gnn-fuse-gemm-epilogue", "::mlir::func::FuncOp"> {
  let summary = "Apply elementwise consumers of a matmul while its rows are in cache";
  let description = [{
    A `gnn.map` (or single elementwise op) that is the only user of a
    `gnn.matmul` result of the same type becomes a `gnn.matmul_map`: the
    generated code runs the GEMM block of rows by block of rows and applies
    the elementwise body to each block straight after, instead of writing
    the product and reading it back in a second pass.
  }];
}

def SampleBlocks : Pass<"gnn-sample-blocks", "::mlir::func::FuncOp"> {
  let summary = "Per-layer message-flow blocks for sampled mini-batch training";
  let description = [{
    For a forward whose train block samples mini-batches
    (`batches = neighbor(...)`), binds every graph operation to the block of
    its layer: a node tensor's *level* counts the aggregations between it and
    the input features (level 0: the input nodes of block 0; level L: the
    seeds), an aggregation, gather or `dst` reading level d uses block d, and
    an elementwise op mixing levels reads the shallower operands through
    `gnn.dst` (a block's destinations are the first of its sources). Degree
    columns take the block of the level they are combined with. The forward
    gets `gnn.blocks = L`; the train block must give L fanouts. Functions
    without sampling are left alone (`gnn-distribute` handles them).

    ```mlir
    %h = gnn.aggregate mean %g, %x : tensor<?x16xf32> -> tensor<?x16xf32>
    %y = gnn.add %h, %x : ...
    // becomes
    %b0 = gnn.block %g layer = 0
    %h = gnn.aggregate mean %b0, %x : tensor<?x16xf32> -> tensor<?x16xf32>
    %xd = gnn.dst %b0, %x : tensor<?x16xf32> -> tensor<?x16xf32>
    %y = gnn.add %h, %xd : ...
    ```
  }];
}

def Distribute : Pass<"gnn-distribute", "::mlir::func::FuncOp"> {
  let summary = "Halo exchanges for training on one partition per rank";
  let description = [{
    Tracks which node tensors have a row per source node of the rank's
    partition (owned nodes, then halo nodes) and which a row per destination
    (owned nodes). A destination-space value read as sources (by the next
    layer's aggregation, or a gather of sources) goes through one
    `gnn.halo_exchange`; an elementwise op that mixes the spaces reads its
    source-space operand through `gnn.dst`. Runs before autodiff, which turns
    each exchange into `gnn.halo_exchange_grad`. In a single process both
    are copies.

    ```mlir
    %h = gnn.aggregate sum %g, %xw : tensor<?x16xf32> -> tensor<?x16xf32>
    %a = gnn.aggregate sum %g, %h : tensor<?x16xf32> -> tensor<?x16xf32>
    // becomes
    %hs = gnn.halo_exchange %g, %h : tensor<?x16xf32> -> tensor<?x16xf32>
    %a = gnn.aggregate sum %g, %hs : tensor<?x16xf32> -> tensor<?x16xf32>
    ```

    A sum or mean of a destination-space value becomes `gnn.halo_aggregate`
    (the exchange fused with the reduction); a weighted one (GAT's) does so
    only under `aggregation = sequential_remat`, since its weight gradient
    then fetches the remote rows again.
  }];
}

def RankFactors : Pass<"gnn-rank-factors", "::mlir::ModuleOp"> {
  let summary = "A link model's score as factors a ranking multiplies";
  let description = [{
    A filtered ranking scores every entity as the head and the tail of each
    query triple: billions of pairs, which the forward would score one by
    one. When `@<Model>.forward` of a link program returns the link logits
    of a trilinear score,
    `sum(gather(p, a, src) * gather(p, r, rel) * gather(p, b, dst), 1)` (the
    relation factor optional: a dot product), where `a`, `r` and `b` do not
    depend on the pairs, this pass adds `@<Model>.rank_factors`, the
    forward's computation of `a`, `r` and `b` alone, returned in that order.
    The trainer then ranks a block of candidates as one matrix product,
    `(a[anchors] * r[rel]) b[candidates]^T` (and symmetrically for heads),
    with node rows computed once per evaluation; the trainer's
    `--embeddings` writes `a`'s rows. Any other score keeps the pairwise
    forward.

    ```mlir
    %p = gnn.pairs %g
    %s = gnn.gather src %p, %z ...      %rr = gnn.gather_relation %p, %r ...
    %d = gnn.gather dst %p, %z ...
    %y = gnn.reduce sum (%s * %rr * %d) axis = 1 ...
    // adds
    func.func @M.rank_factors(%g, %x) -> (z, r, z)
    ```
  }];
}

#endif // GNN_DIALECT_PASSES_TD
