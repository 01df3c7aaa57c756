//===- GNNGradOps.td - adjoint operations of the gnn dialect -*- tablegen -*-===//
//
// The operations that reverse-mode differentiation (gnn-autodiff) emits and
// that no user program writes: the adjoints of graph primitives and of ops
// whose derivative needs their forward inputs or results, the reduction that
// undoes broadcasting, and the accumulation of a parameter's gradient. Each
// result has the type of the forward value it is the gradient of.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_GNNGRADOPS_TD
#define GNN_DIALECT_GNNGRADOPS_TD

def GNN_ParamGradOp : GNN_Op<"param_grad",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "accumulates into a parameter's gradient";
  let description = [{
    Adds `grad` to the gradient buffer of the `gnn.parameter` named by
    `name`. A parameter read several times gets one `param_grad` per read.
    ```mlir
    gnn.param_grad @GCN.c1.w, %dw : tensor<?x16xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$name, GNN_F32Tensor:$grad);
  let assemblyFormat = "$name `,` $grad attr-dict `:` type($grad)";
}

def GNN_InputGradOp : GNN_Op<"input_grad"> {
  let summary = "accumulates into the gradient of the model's input rows";
  let description = [{
    Adds `grad` (`[N, F]`, the adjoint of the forward's feature argument) to
    the gradient of the input rows. Emitted only when some input rows are
    learned (a heterogeneous dataset's `embed`): the trainer updates the
    learned rows from it, and ignores the rest.
    ```mlir
    gnn.input_grad %dx : tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_F32Tensor:$grad);
  let assemblyFormat = "$grad attr-dict `:` type($grad)";
}

def GNN_UnbroadcastOp : GNN_PureOp<"unbroadcast"> {
  let summary = "sums a gradient over the dims its operand was broadcast along";
  let description = [{
    The adjoint of numpy broadcasting: the result has the operand's shape,
    and each of its elements is the sum of the gradient elements it was
    broadcast to (missing leading dims and size-1 dims are summed over).
    ```mlir
    %db = gnn.unbroadcast %dy : tensor<?x16xf32> -> tensor<16xf32>
    ```
  }];
  let arguments = (ins GNN_F32Tensor:$input);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def GNN_UnaryGradOp : GNN_PureOp<"unary_grad",
    [AllTypesMatch<["grad", "input", "output", "result"]>,
     GNN_FusibleElementwise]> {
  let summary = "adjoint of an elementwise unary op";
  let description = [{
    `grad * f'(input)` for the unary op named by `kind` (the mnemonic of a
    gnn unary or alpha-unary op), where `output = f(input)` is the forward
    result, used where the derivative is cheapest in terms of it (sigmoid,
    tanh, exp, sqrt, rsqrt). `alpha` is the forward op's alpha. For relu
    only the sign of `input` matters, so autodiff passes the output there
    too and the pre-activation need not be kept for the backward.
    ```mlir
    %dx = gnn.unary_grad relu %dy, %x, %y : tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_UnaryKindAttr:$kind, GNN_F32Tensor:$grad,
                       GNN_F32Tensor:$input, GNN_F32Tensor:$output,
                       OptionalAttr<F64Attr>:$alpha);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $kind $grad `,` $input `,` $output attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def GNN_MaximumGradOp : GNN_PureOp<"maximum_grad", [GNN_FusibleElementwise]> {
  let summary = "routes a gradient to the winning side of a maximum";
  let description = [{
    `grad` where the operand selected by `rhs_side` won the forward maximum
    (the left operand wins ties), zero elsewhere; in the broadcast shape.
    ```mlir
    %dl = gnn.maximum_grad %dy, %a, %b : tensor<?x16xf32>, tensor<?x16xf32>, tensor<16xf32> -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_F32Tensor:$grad, GNN_F32Tensor:$lhs,
                       GNN_F32Tensor:$rhs,
                       DefaultValuedAttr<BoolAttr, "false">:$rhs_side);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    $grad `,` $lhs `,` $rhs attr-dict `:` type($grad) `,` type($lhs) `,`
    type($rhs) `->` type($result)
  }];
}

def GNN_AggregateGradOp : GNN_PureOp<"aggregate_grad"> {
  let summary = "adjoint of aggregate with respect to its input";
  let description = [{
    Given `grad` (of the aggregate's result `output`), the gradient of its
    `input` `[Nsrc, F...]`: each message's gradient flows back to its source
    row (scaled by the edge weight; for mean divided by the count; for max
    and min only to the winning message).
    ```mlir
    %dx = gnn.aggregate_grad sum %g, %dy, %x, %h {self_loops = true} : tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$grad,
                       GNN_F32Tensor:$input, GNN_F32Tensor:$output,
                       Optional<GNN_F32Tensor>:$weight,
                       GNN_ReduceKindAttr:$reduce,
                       DefaultValuedAttr<BoolAttr, "false">:$self_loops);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $reduce $graph `,` $grad `,` $input `,` $output (`weight` $weight^)?
    attr-dict `:` type($grad) `,` type($input) `,` type($output)
    (`,` type($weight)^)? `->` type($result)
  }];
}

def GNN_AggregateWeightGradOp : GNN_PureOp<"aggregate_weight_grad"> {
  let summary = "adjoint of aggregate with respect to its edge weight";
  let description = [{
    Given `grad` of the aggregate's result, the gradient of its `weight`
    (`[E, ...]`): per edge, the dot product of the destination's gradient
    and the source row over the feature dims each weight scales.
    ```mlir
    %dw = gnn.aggregate_weight_grad sum %g, %dy, %z, %h weight %a : tensor<?x8x8xf32>, tensor<?x8x8xf32>, tensor<?x8x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$grad,
                       GNN_F32Tensor:$input, GNN_F32Tensor:$output,
                       GNN_F32Tensor:$weight,
                       GNN_ReduceKindAttr:$reduce,
                       DefaultValuedAttr<BoolAttr, "false">:$self_loops);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $reduce $graph `,` $grad `,` $input `,` $output `weight` $weight
    attr-dict `:` type($grad) `,` type($input) `,` type($output) `,`
    type($weight) `->` type($result)
  }];
}

def GNN_AggregateRelationsGradOp : GNN_PureOp<"aggregate_relations_grad"> {
  let summary = "adjoint of aggregate_relations with respect to its input";
  let description = [{
    Given `grad` (`[Ndst, Out]`, of the result), the gradient of the input
    `[Nsrc, In]`: each source receives, per out-edge of relation `r`, the
    destination's gradient times `weight[r]` transposed (divided by the
    pair's message count for a mean).
    ```mlir
    %dx = gnn.aggregate_relations_grad mean %g, %dy, %w : tensor<?x4xf32>, tensor<?x16x4xf32> -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$grad,
                       GNN_F32Tensor:$weight, GNN_ReduceKindAttr:$reduce);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $reduce $graph `,` $grad `,` $weight attr-dict `:` type($grad) `,`
    type($weight) `->` type($result)
  }];
}

def GNN_AggregateRelationsWeightGradOp
    : GNN_PureOp<"aggregate_relations_weight_grad"> {
  let summary = "adjoint of aggregate_relations with respect to its weight";
  let description = [{
    Given `grad` of the result and the forward `input`, the gradient of the
    relation matrices `[R, In, Out]`: per relation, the sum over its
    (destination, relation) pairs of the reduced input row's outer product
    with the destination's gradient.
    ```mlir
    %dw = gnn.aggregate_relations_weight_grad mean %g, %dy, %x : tensor<?x4xf32>, tensor<?x16xf32> -> tensor<?x16x4xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$grad,
                       GNN_F32Tensor:$input, GNN_ReduceKindAttr:$reduce);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $reduce $graph `,` $grad `,` $input attr-dict `:` type($grad) `,`
    type($input) `->` type($result)
  }];
}

def GNN_AggregateRelationRowsGradOp
    : GNN_PureOp<"aggregate_relation_rows_grad"> {
  let summary = "adjoint of aggregate_relation_rows with respect to its table";
  let description = [{
    The gradient of the tables `[R, Nodes, Out]`: row `table[r][id(j)]` gets
    the gradients of the destinations `j` sends relation-`r` messages to
    (divided by the pair's message count for a mean); rows of nodes outside
    the graph get 0. `table` is read for its shape only.
    ```mlir
    %dw = gnn.aggregate_relation_rows_grad mean %g, %dy, %w : tensor<?x16xf32>, tensor<?x?x16xf32> -> tensor<?x?x16xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$grad,
                       GNN_F32Tensor:$table, GNN_ReduceKindAttr:$reduce);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $reduce $graph `,` $grad `,` $table attr-dict `:` type($grad) `,`
    type($table) `->` type($result)
  }];
}

def GNN_GatherGradOp : GNN_PureOp<"gather_grad"> {
  let summary = "adjoint of gather: sums edge rows into their endpoint nodes";
  let description = [{
    For each node on `side` (sources or destinations), the sum of the rows
    of `grad` (`[E, F...]`) over the edges with that endpoint.
    ```mlir
    %dx = gnn.gather_grad src %g, %de : tensor<?x8xf32> -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins GNN_EdgeSideAttr:$side, GNN_GraphType:$graph,
                       GNN_F32Tensor:$grad);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $side $graph `,` $grad attr-dict `:` type($grad) `->` type($result)
  }];
}

def GNN_GatherRelationGradOp : GNN_PureOp<"gather_relation_grad"> {
  let summary = "adjoint of gather_relation: sums edge rows into relation rows";
  let description = [{
    For each row r of `table` (`[R, F...]`, read for its shape only), the
    sum of the rows of `grad` (`[E, F...]`) over the edges of relation r.
    ```mlir
    %dr = gnn.gather_relation_grad %p, %de, %r : tensor<?x16xf32>, tensor<11x16xf32> -> tensor<11x16xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$grad,
                       GNN_F32Tensor:$table);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    $graph `,` $grad `,` $table attr-dict `:` type($grad) `,` type($table)
    `->` type($result)
  }];
}

def GNN_ScatterGradOp : GNN_PureOp<"scatter_grad"> {
  let summary = "adjoint of scatter with respect to its edge rows";
  let description = [{
    Given `grad` of the scatter's `output`, the gradient of its edge rows
    `input`.
    ```mlir
    %de = gnn.scatter_grad mean %g, %dy, %e, %h : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins GNN_ReduceKindAttr:$reduce, GNN_GraphType:$graph,
                       GNN_F32Tensor:$grad, GNN_F32Tensor:$input,
                       GNN_F32Tensor:$output);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $reduce $graph `,` $grad `,` $input `,` $output attr-dict `:`
    type($grad) `,` type($input) `,` type($output) `->` type($result)
  }];
}

def GNN_EdgeSoftmaxGradOp : GNN_PureOp<"edge_softmax_grad",
    [AllTypesMatch<["grad", "output", "result"]>]> {
  let summary = "adjoint of edge_softmax";
  let description = [{
    `output * (grad - sum over the destination's in-edges of output * grad)`.
    ```mlir
    %ds = gnn.edge_softmax_grad %g, %da, %a : tensor<?x8xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$grad,
                       GNN_F32Tensor:$output);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = "$graph `,` $grad `,` $output attr-dict `:` type($result)";
}

/// Adjoints of the axis normalizations, in terms of their forward result.
class GNN_AxisSoftmaxGradOp<string mnemonic, string of>
    : GNN_PureOp<mnemonic, [AllTypesMatch<["grad", "output", "result"]>]> {
  let summary = "adjoint of " # of;
  let description = [{
    The gradient of the input of `}] # of # [{` given the gradient of its
    result `output`.
    ```mlir
    %dx = gnn.}] # mnemonic # [{ %dy, %y axis = 1 : tensor<?x7xf32>
    ```
  }];
  let arguments = (ins GNN_F32Tensor:$grad, GNN_F32Tensor:$output,
                       GNN_IndexAttr:$axis);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    $grad `,` $output `axis` `=` $axis attr-dict `:` type($result)
  }];
}
def GNN_SoftmaxGradOp : GNN_AxisSoftmaxGradOp<"softmax_grad", "softmax">;
def GNN_LogSoftmaxGradOp
    : GNN_AxisSoftmaxGradOp<"log_softmax_grad", "log_softmax">;

def GNN_BatchNormGradOp
    : GNN_PureOp<"batch_norm_grad",
                 [AllTypesMatch<["grad", "input", "output", "result"]>]> {
  let summary = "adjoint of batch_norm";
  let description = [{
    `dx = (dy - mean(dy) - y * mean(dy * y)) / sqrt(var(x) + eps)`, the
    means over the rows, given the forward's input `x` and result `y`
    (the column statistics are computed again from `x`, as the forward
    did, rather than kept).
    ```mlir
    %dx = gnn.batch_norm_grad %dy, %x, %y eps = 1.000000e-05 : tensor<?x64xf32>
    ```
  }];
  let arguments = (ins GNN_F32Tensor:$grad, GNN_F32Tensor:$input,
                       GNN_F32Tensor:$output, F64Attr:$eps);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    $grad `,` $input `,` $output `eps` `=` $eps attr-dict `:` type($result)
  }];
}

def GNN_BatchNormRunningOp
    : GNN_PureOp<"batch_norm_running", [AllTypesMatch<["running", "result"]>]> {
  let summary = "a train step's change of a batch_norm running statistic";
  let description = [{
    `momentum * (batch - running)` per column, where `batch` is the mean of
    `input`'s rows or, with `variance`, their unbiased variance. Not a
    gradient: the adjoint of a `gnn.batch_norm` with running statistics
    hands it to the statistic's `gnn.param_grad`, and the trainer adds the
    gradient slot of a buffer to its value (averaged over the ranks).
    ```mlir
    %dm = gnn.batch_norm_running %x, %m momentum = 1.000000e-01 : tensor<?x64xf32>, tensor<64xf32>
    %dv = gnn.batch_norm_running %x, %v variance momentum = 1.000000e-01 : tensor<?x64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins GNN_F32Tensor:$input, GNN_F32Tensor:$running,
                       UnitAttr:$variance, F64Attr:$momentum);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    $input `,` $running (`variance` $variance^)? `momentum` `=` $momentum
    attr-dict `:` type($input) `,` type($running)
  }];
}

def GNN_ReduceGradOp : GNN_PureOp<"reduce_grad"> {
  let summary = "adjoint of reduce";
  let description = [{
    Broadcasts `grad` back along `axis` (divided by the axis length for
    mean; for max and min only to the first winning element).
    ```mlir
    %dx = gnn.reduce_grad mean %dy, %x, %y axis = 1 : tensor<?x16xf32>, tensor<?x8x16xf32>, tensor<?x16xf32> -> tensor<?x8x16xf32>
    ```
  }];
  let arguments = (ins GNN_ReduceKindAttr:$kind, GNN_F32Tensor:$grad,
                       GNN_F32Tensor:$input, GNN_F32Tensor:$output,
                       GNN_IndexAttr:$axis);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $kind $grad `,` $input `,` $output `axis` `=` $axis attr-dict `:`
    type($grad) `,` type($input) `,` type($output) `->` type($result)
  }];
}

def GNN_SliceOp : GNN_PureOp<"slice"> {
  let summary = "a contiguous range of one axis";
  let description = [{
    Indices `[offset, offset + size)` of `axis`; the adjoint of concat.
    ```mlir
    %a = gnn.slice %x axis = 1 offset = 0 size = 8 : tensor<?x16xf32> -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins GNN_F32Tensor:$input, GNN_IndexAttr:$axis,
                       GNN_IndexAttr:$offset, GNN_IndexAttr:$size);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    $input `axis` `=` $axis `offset` `=` $offset `size` `=` $size attr-dict
    `:` type($input) `->` type($result)
  }];
}

def GNN_DiagonalBlocksOp : GNN_PureOp<"diagonal_blocks"> {
  let summary = "the diagonal blocks of matrices; the adjoint of block_diagonal";
  let description = [{
    `[R, B*I, B*O] -> [R, B, I, O]`, shaped like `blocks` (the forward's
    blocks, read for their shape only): block `b` of matrix `r` is `input[r]`
    at rows `[b*I, (b+1)*I)` and columns `[b*O, (b+1)*O)`; the entries off
    the diagonal blocks are dropped.
    ```mlir
    %dq = gnn.diagonal_blocks %dw like %q : tensor<?x16x8xf32>, tensor<?x4x4x2xf32> -> tensor<?x4x4x2xf32>
    ```
  }];
  let arguments = (ins 3DTensorOf<[F32]>:$input, 4DTensorOf<[F32]>:$blocks);
  let results = (outs 4DTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $input `like` $blocks attr-dict `:` type($input) `,` type($blocks) `->`
    type($result)
  }];
}

def GNN_DstGradOp : GNN_PureOp<"dst_grad"> {
  let summary = "adjoint of dst: pads destination rows to all sources";
  let description = [{
    `[Ndst, F...] -> [Nsrc, F...]`: the destination rows first, zeros for the
    remaining sources.
    ```mlir
    %dx = gnn.dst_grad %g, %dy : tensor<?x16xf32> -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$grad);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    $graph `,` $grad attr-dict `:` type($grad) `->` type($result)
  }];
}

def GNN_HaloExchangeGradOp : GNN_PureOp<"halo_exchange_grad"> {
  let summary = "adjoint of halo_exchange: halo gradients back to owners";
  let description = [{
    `[Nsrc, F...] -> [Ndst, F...]`: the owned rows of `grad`, plus, for each
    owned node, the gradient rows other ranks hold for it as a halo node.
    ```mlir
    %dh = gnn.halo_exchange_grad %g, %dhs : tensor<?x16xf32> -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$grad);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    $graph `,` $grad attr-dict `:` type($grad) `->` type($result)
  }];
}

def GNN_HaloAggregateGradOp : GNN_PureOp<"halo_aggregate_grad"> {
  let summary = "adjoint of halo_aggregate with respect to its input";
  let description = [{
    The transposed (weighted) aggregation of `grad`, one remote part at a
    time: the rows that belong to another part's nodes are sent to it, and
    the rows other parts computed for this part's nodes are added in.
    ```mlir
    %dx = gnn.halo_aggregate_grad sum %g, %dh {self_loops = true} : tensor<?x16xf32> -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$grad,
                       Optional<GNN_F32Tensor>:$weight,
                       GNN_ReduceKindAttr:$reduce,
                       DefaultValuedAttr<BoolAttr, "false">:$self_loops,
                       DefaultValuedAttr<GNN_HaloModeAttr,
                                         "::gnn::HaloMode::automatic">:$mode);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $reduce $graph `,` $grad (`weight` $weight^)? attr-dict `:`
    type($grad) (`,` type($weight)^)? `->` type($result)
  }];
}

def GNN_HaloAggregateWeightGradOp : GNN_PureOp<"halo_aggregate_weight_grad"> {
  let summary = "adjoint of a weighted halo_aggregate with respect to its weight";
  let description = [{
    Per edge, the dot product of the destination's gradient and the source
    row, as aggregate_weight_grad. `input` has a row per owned node: the
    remote sources' rows are fetched again, one chunk of a remote part at a
    time, as the forward fetched them (SAR's rematerialization), instead of
    being kept from the forward.
    ```mlir
    %dw = gnn.halo_aggregate_weight_grad sum %g, %dy, %z weight %w {mode = #gnn<halo_mode sequential>} : tensor<?x4x8xf32>, tensor<?x4x8xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins GNN_GraphType:$graph, GNN_F32Tensor:$grad,
                       GNN_F32Tensor:$input, GNN_F32Tensor:$weight,
                       GNN_ReduceKindAttr:$reduce,
                       DefaultValuedAttr<BoolAttr, "false">:$self_loops,
                       DefaultValuedAttr<GNN_HaloModeAttr,
                                         "::gnn::HaloMode::automatic">:$mode);
  let results = (outs GNN_F32Tensor:$result);
  let assemblyFormat = [{
    `` $reduce $graph `,` $grad `,` $input `weight` $weight attr-dict `:`
    type($grad) `,` type($input) `,` type($weight) `->` type($result)
  }];
}

def GNN_CrossEntropyGradOp : GNN_PureOp<"cross_entropy_grad"> {
  let summary = "adjoint of cross_entropy with respect to the logits";
  let description = [{
    `grad * (softmax(logits) - onehot(labels)) / count` on the selected,
    labeled rows and zero elsewhere, where `grad` is the loss's gradient.
    ```mlir
    %dl = gnn.cross_entropy_grad %logits, %labels mask %m, %one : tensor<?x7xf32>, tensor<?xi64>, tensor<?xi1>, tensor<f32> -> tensor<?x7xf32>
    ```
  }];
  let arguments = (ins 2DTensorOf<[F32]>:$logits, GNN_LabelTensor:$labels,
                       Optional<GNN_MaskTensor>:$mask, GNN_F32Scalar:$grad);
  let results = (outs 2DTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $logits `,` $labels (`mask` $mask^)? `,` $grad attr-dict
    `:` type($logits) `,` type($labels) (`,` type($mask)^)? `,` type($grad)
    `->` type($result)
  }];
}

def GNN_NormPenaltyGradOp : GNN_PureOp<"norm_penalty_grad"> {
  let summary = "adjoint of norm_penalty with respect to the rows";
  let description = [{
    `grad * weight * power * |rows|^(power - 1) * sign(rows) / N` for rows of
    `[N, D]`, times the trainer's loss scale, where `grad` is the loss's
    gradient.
    ```mlir
    %d = gnn.norm_penalty_grad %rows, %one power = 3 weight = 1.000000e-01 : tensor<?x200xf32>, tensor<f32> -> tensor<?x200xf32>
    ```
  }];
  let arguments = (ins 2DTensorOf<[F32]>:$rows, GNN_F32Scalar:$grad,
                       ConfinedAttr<I64Attr, [IntMinValue<2>, IntMaxValue<3>]>:$power,
                       F64Attr:$weight);
  let results = (outs 2DTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $rows `,` $grad `power` `=` $power `weight` `=` $weight attr-dict
    `:` type($rows) `,` type($grad) `->` type($result)
  }];
}

#endif // GNN_DIALECT_GNNGRADOPS_TD
