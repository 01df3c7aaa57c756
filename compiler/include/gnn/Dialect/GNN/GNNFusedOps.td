//===- GNNFusedOps.td - kernel-level fused ops -------------*- tablegen -*-===//
//
// Operations the fusion passes (gnn-fuse-elementwise, gnn-fuse-edges,
// gnn-fuse-gemm-epilogue) create after autodiff, and that no user program
// writes. Each is one kernel: a loop nest whose body is a small region of
// elementwise gnn ops on rank-0 tensors (one element of each operand), so
// intermediate values stay in registers instead of round-tripping through
// memory. A body is isolated from above: it reads only its block arguments.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNNFUSEDOPS_TD
#define GNN_DIALECT_GNNFUSEDOPS_TD

def GNN_YieldOp : GNN_Op<"yield", [Pure, Terminator,
    ParentOneOf<["MapOp", "EdgeMapOp", "MatmulMapOp"]>]> {
  let summary = "the per-element results of a fused body";
  let arguments = (ins Variadic<GNN_F32Tensor>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

def GNN_MapOp : GNN_Op<"map", [GNN_Hoistable, Pure, IsolatedFromAbove,
    SingleBlock]> {
  let summary = "a fused chain of elementwise ops: one loop";
  let description = [{
    Evaluates its body once per element of the results (which all have the
    same type). Operand `k` broadcasts to the result shape numpy-style and is
    block argument `k` (a `tensor<f32>`); the values the body yields are the
    results' elements. Several results let a value that is needed later
    (for example a forward value the backward reads) leave the loop too.

    ```mlir
    %y, %z = gnn.map %x, %s, %b : (tensor<?x16xf32>, tensor<?x1xf32>, tensor<16xf32>)
                                  -> (tensor<?x16xf32>, tensor<?x16xf32>) {
    ^bb0(%xe: tensor<f32>, %se: tensor<f32>, %be: tensor<f32>):
      %0 = gnn.mul %se, %xe : tensor<f32>, tensor<f32> -> tensor<f32>
      %1 = gnn.add %0, %be : tensor<f32>, tensor<f32> -> tensor<f32>
      %2 = gnn.relu %1 : tensor<f32>
      gnn.yield %1, %2 : tensor<f32>, tensor<f32>
    }
    ```
  }];
  let arguments = (ins Variadic<GNN_F32Tensor>:$inputs);
  let results = (outs Variadic<GNN_F32Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $inputs attr-dict `:` functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
}

def GNN_EdgeMapOp : GNN_Op<"edge_map", [GNN_Hoistable, Pure, IsolatedFromAbove,
    SingleBlock]> {
  let summary = "a fused edge kernel: gather, per-edge expression, reduce";
  let description = [{
    For each edge `e = (u, v)` of `graph`, evaluates the body with operand `k`
    read at the row its side names (`sides[k]`: "src" reads row `u`, "dst"
    row `v`, "edge" row `e`), broadcasting the feature dims. Without
    `reduce`, each result is `[E, F...]`: the gathered operands are never
    materialized. With `reduce` (sum, mean, max or min) the single result is
    `[N_dst, F...]`, the reduction of the per-edge values over each
    destination's in-edges, and the `[E, F...]` values are never stored.

    ```mlir
    %e = gnn.edge_map %g (%as, %ad) sides ["src", "dst"]
           : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32> {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %0 = gnn.add %a, %b : tensor<f32>, tensor<f32> -> tensor<f32>
      %1 = gnn.leaky_relu %0 alpha = 2.000000e-01 : tensor<f32>
      gnn.yield %1 : tensor<f32>
    }
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, Variadic<GNN_F32Tensor>:$inputs,
                       StrArrayAttr:$sides,
                       OptionalAttr<GNN_ReduceKindAttr>:$reduce);
  let results = (outs Variadic<GNN_F32Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $graph `(` $inputs `)` `sides` $sides (`reduce` $reduce^)? attr-dict `:`
    functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
}

def GNN_MatmulMapOp : GNN_Op<"matmul_map", [GNN_Hoistable, Pure, IsolatedFromAbove,
    SingleBlock]> {
  let summary = "a matrix product with a fused elementwise epilogue";
  let description = [{
    Computes `acc = lhs x rhs` (with `transpose_lhs` / `transpose_rhs` as
    `gnn.matmul`) block of rows by block of rows, and applies the body to
    each block while it is still in cache: block argument 0 is an element
    of `acc`, block argument `k + 1` the element of `epilogue_inputs[k]`
    broadcast to `acc`'s shape. Every result has `acc`'s shape.

    ```mlir
    %y = gnn.matmul_map %x, %w (%s) : (tensor<?x8xf32>, tensor<8x4xf32>, tensor<?x1xf32>) -> tensor<?x4xf32> {
    ^bb0(%acc: tensor<f32>, %se: tensor<f32>):
      %0 = gnn.mul %se, %acc : tensor<f32>, tensor<f32> -> tensor<f32>
      gnn.yield %0 : tensor<f32>
    }
    ```
  }];
  let arguments = (ins GNN_F32Tensor:$lhs, GNN_F32Tensor:$rhs,
                       Variadic<GNN_F32Tensor>:$epilogue_inputs,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_lhs,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_rhs);
  let results = (outs Variadic<GNN_F32Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $lhs `,` $rhs ` ` `(` $epilogue_inputs `)` attr-dict `:`
    functional-type(operands, $results) $body
  }];
  let hasVerifier = 1;
}

def GNN_ScaledAggregateOp : GNN_PureOp<"scaled_aggregate",
    [GNN_RowMap, DeclareOpInterfaceMethods<GNN_GraphOpInterface>]> {
  let summary = "an aggregation of row-scaled inputs, without the scaled copy";
  let description = [{
    `halo_aggregate(g, scale * input)` with `scale` a column (`[N, 1]`, one
    factor per row of `input`): each term is `scale[u] * input[u]`, formed
    as the aggregation reads the row, so the `[N, F]` product is never
    stored. gnn-fuse-aggregate-scale creates it from a kept (step-invariant)
    `gnn.mul` whose only reader is the aggregation: GCN's `A(norm * X)` over
    features much wider than the hidden layer. Sum or mean; in a distributed
    run the halo exchange still moves scaled rows.

    ```mlir
    %h = gnn.scaled_aggregate sum %g, %x scale %norm {self_loops = true} : tensor<?x?xf32>, tensor<?x1xf32> -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$input,
                       GNN_F32Tensor:$scale,
                       GNN_ReduceKindAttr:$reduce,
                       DefaultValuedAttr<BoolAttr, "false">:$self_loops,
                       DefaultValuedAttr<GNN_HaloModeAttr,
                                         "::gnn::HaloMode::automatic">:$mode);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $reduce $graph `,` $input `scale` $scale attr-dict `:` type($input) `,`
    type($scale) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // GNN_DIALECT_GNNFUSEDOPS_TD
