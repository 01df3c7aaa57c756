// RUN: gnn-opt %s -split-input-file -verify-diagnostics
// Every verifier message of the gnn dialect, one case per split: each names
// the op, the invariant and the values that violate it.

// expected-error @+1 {{'gnn.parameter' op expects a ranked tensor of f32, got 'tensor<4xi32>'}}
gnn.parameter @p : tensor<4xi32> init zeros dims ["4"]

// -----

// expected-error @+1 {{'gnn.parameter' op expects 2 dims entries (one per tensor dim), got 1}}
gnn.parameter @p : tensor<?x16xf32> init glorot dims ["n"]

// -----

// expected-error @+1 {{'gnn.parameter' op expects dim 1 of size 16 to match dims entry "8"}}
gnn.parameter @p : tensor<?x16xf32> init glorot dims ["n", "8"]

// -----

// expected-error @+1 {{'gnn.parameter' op does not accept 0 init_args for initializer 'constant'}}
gnn.parameter @p : tensor<4xf32> init constant dims ["4"]

// -----

// expected-error @+1 {{'gnn.parameter' op does not accept 1 init_args for initializer 'uniform'}}
gnn.parameter @p : tensor<4xf32> init uniform args [1.0] dims ["4"]

// -----

// expected-error @+1 {{'gnn.parameter' op does not accept 1 init_args for initializer 'glorot'}}
gnn.parameter @p : tensor<4xf32> init glorot args [1.0] dims ["4"]

// -----

func.func @nested() {
  // expected-error @+1 {{'gnn.parameter' op expects parent op 'builtin.module'}}
  gnn.parameter @p : tensor<4xf32> init zeros dims ["4"]
  return
}

// -----

func.func @undefined() -> tensor<4xf32> {
  // expected-error @+1 {{'gnn.param' op references undefined parameter @nope}}
  %w = gnn.param @nope : tensor<4xf32>
  return %w : tensor<4xf32>
}

// -----

func.func @not_a_parameter() -> tensor<4xf32> {
  // expected-error @+1 {{'gnn.param' op expects @not_a_parameter to be a gnn.parameter, got 'func.func'}}
  %w = gnn.param @not_a_parameter : tensor<4xf32>
  return %w : tensor<4xf32>
}

// -----

gnn.parameter @w : tensor<?x8xf32> init glorot dims ["n", "8"]
func.func @incompatible() -> tensor<8x16xf32> {
  // expected-error @+1 {{'gnn.param' op result type 'tensor<8x16xf32>' is incompatible with parameter type 'tensor<?x8xf32>'}}
  %w = gnn.param @w : tensor<8x16xf32>
  return %w : tensor<8x16xf32>
}

// -----

func.func @gather_scalar(%g: !gnn.graph, %x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'gnn.gather' op expects an input of rank >= 1, got rank 0}}
  %e = gnn.gather src %g, %x : tensor<f32> -> tensor<f32>
  return %e : tensor<f32>
}

// -----

func.func @gather_rank(%g: !gnn.graph, %x: tensor<?x16xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'gnn.gather' op expects result rank 1 to match input rank 2}}
  %e = gnn.gather dst %g, %x : tensor<?x16xf32> -> tensor<?xf32>
  return %e : tensor<?xf32>
}

// -----

func.func @scatter_width(%g: !gnn.graph, %m: tensor<?x16xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'gnn.scatter' op expects feature dim 1 of the result (8) to match the input (16)}}
  %h = gnn.scatter sum %g, %m : tensor<?x16xf32> -> tensor<?x8xf32>
  return %h : tensor<?x8xf32>
}

// -----

func.func @dst_width(%g: !gnn.graph, %x: tensor<?x4x16xf32>) -> tensor<?x2x16xf32> {
  // expected-error @+1 {{'gnn.dst' op expects feature dim 1 of the result (2) to match the input (4)}}
  %h = gnn.dst %g, %x : tensor<?x4x16xf32> -> tensor<?x2x16xf32>
  return %h : tensor<?x2x16xf32>
}

// -----

func.func @aggregate_width(%g: !gnn.graph, %x: tensor<?x16xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'gnn.aggregate' op expects feature dim 1 of the result (8) to match the input (16)}}
  %h = gnn.aggregate sum %g, %x : tensor<?x16xf32> -> tensor<?x8xf32>
  return %h : tensor<?x8xf32>
}

// -----

func.func @aggregate_weight_rank(%g: !gnn.graph, %x: tensor<?x8xf32>, %w: tensor<?x8x2xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'gnn.aggregate' op expects weight rank 3 to be in [1, 2] (edges, then a prefix of the input's feature dims)}}
  %h = gnn.aggregate sum %g, %x weight %w : tensor<?x8xf32>, tensor<?x8x2xf32> -> tensor<?x8xf32>
  return %h : tensor<?x8xf32>
}

// -----

func.func @aggregate_weight_heads(%g: !gnn.graph, %x: tensor<?x8x16xf32>, %w: tensor<?x4xf32>) -> tensor<?x8x16xf32> {
  // expected-error @+1 {{'gnn.aggregate' op expects weight dim 1 (4) to match input dim 1 (8)}}
  %h = gnn.aggregate sum %g, %x weight %w : tensor<?x8x16xf32>, tensor<?x4xf32> -> tensor<?x8x16xf32>
  return %h : tensor<?x8x16xf32>
}

// -----

func.func @edge_softmax_scalar(%g: !gnn.graph, %s: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'gnn.edge_softmax' op expects edge scores of rank >= 1, got rank 0}}
  %a = gnn.edge_softmax %g, %s : tensor<f32>
  return %a : tensor<f32>
}

// -----

func.func @degree_width(%g: !gnn.graph) -> tensor<?x2xf32> {
  // expected-error @+1 {{'gnn.degree' op expects a column result [N, 1], got [?, 2]}}
  %d = gnn.degree dst %g : tensor<?x2xf32>
  return %d : tensor<?x2xf32>
}

// -----

func.func @block_layer(%g: !gnn.graph) -> !gnn.graph {
  // expected-error @+1 {{'gnn.block' op attribute 'layer' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %b = gnn.block %g layer = -1
  return %b : !gnn.graph
}

// -----

func.func @matmul_rank(%a: tensor<?x2x16xf32>, %b: tensor<16x7xf32>) -> tensor<?x7xf32> {
  // expected-error @+1 {{'gnn.matmul' op expects 2-D operands and result, got ranks 3, 2 -> 2}}
  %c = gnn.matmul %a, %b : tensor<?x2x16xf32>, tensor<16x7xf32> -> tensor<?x7xf32>
  return %c : tensor<?x7xf32>
}

// -----

func.func @matmul_contraction(%a: tensor<?x16xf32>, %b: tensor<8x7xf32>) -> tensor<?x7xf32> {
  // expected-error @+1 {{'gnn.matmul' op expects contraction dims to match, got 16 and 8}}
  %c = gnn.matmul %a, %b : tensor<?x16xf32>, tensor<8x7xf32> -> tensor<?x7xf32>
  return %c : tensor<?x7xf32>
}

// -----

func.func @matmul_result(%a: tensor<?x16xf32>, %b: tensor<?x7xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'gnn.matmul' op expects result shape [?, 8] to match [?, 7]}}
  %c = gnn.matmul %a, %b : tensor<?x16xf32>, tensor<?x7xf32> -> tensor<?x8xf32>
  return %c : tensor<?x8xf32>
}

// -----

func.func @broadcast_operands(%a: tensor<?x16xf32>, %b: tensor<8xf32>) -> tensor<?x16xf32> {
  // expected-error @+1 {{'gnn.add' op expects broadcast-compatible operand shapes, got [?, 16] and [8]}}
  %c = gnn.add %a, %b : tensor<?x16xf32>, tensor<8xf32> -> tensor<?x16xf32>
  return %c : tensor<?x16xf32>
}

// -----

func.func @broadcast_result(%a: tensor<?x16xf32>, %b: tensor<?x1xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'gnn.maximum' op expects result shape [?, 8] to match the broadcast shape [?, 16]}}
  %c = gnn.maximum %a, %b : tensor<?x16xf32>, tensor<?x1xf32> -> tensor<?x8xf32>
  return %c : tensor<?x8xf32>
}

// -----

func.func @broadcast_rank(%a: tensor<?x16xf32>, %s: tensor<f32>) -> tensor<16xf32> {
  // expected-error @+1 {{'gnn.div' op expects result shape [16] to match the broadcast shape [?, 16]}}
  %c = gnn.div %a, %s : tensor<?x16xf32>, tensor<f32> -> tensor<16xf32>
  return %c : tensor<16xf32>
}

// -----

func.func @unary_type(%x: tensor<?x16xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'gnn.relu' op requires the same type for all operands and results}}
  %y = "gnn.relu"(%x) : (tensor<?x16xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

func.func @softmax_axis(%x: tensor<?x7xf32>) -> tensor<?x7xf32> {
  // expected-error @+1 {{'gnn.softmax' op expects axis 2 to be in [0, 2)}}
  %y = gnn.softmax %x axis = 2 : tensor<?x7xf32>
  return %y : tensor<?x7xf32>
}

// -----

func.func @log_softmax_axis(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'gnn.log_softmax' op expects axis 1 to be in [0, 1)}}
  %y = gnn.log_softmax %x axis = 1 : tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

func.func @dropout_p(%x: tensor<?x7xf32>) -> tensor<?x7xf32> {
  // expected-error @+1 {{'gnn.dropout' op expects dropout probability p in [0, 1), got 1.000000e+00}}
  %y = gnn.dropout %x p = 1.0 : tensor<?x7xf32>
  return %y : tensor<?x7xf32>
}

// -----

func.func @dropout_negative(%x: tensor<?x7xf32>) -> tensor<?x7xf32> {
  // expected-error @+1 {{'gnn.dropout' op expects dropout probability p in [0, 1), got -1.000000e-01}}
  %y = gnn.dropout %x p = -0.1 : tensor<?x7xf32>
  return %y : tensor<?x7xf32>
}

// -----

func.func @constant_rank() -> tensor<1xf32> {
  // expected-error @+1 {{'gnn.constant' op result #0 must be 0D tensor of 32-bit float values}}
  %c = gnn.constant 1.0 : tensor<1xf32>
  return %c : tensor<1xf32>
}

// -----

func.func @concat_empty() -> tensor<?x8xf32> {
  // expected-error @+1 {{'gnn.concat' op expects at least one input}}
  %c = "gnn.concat"() {axis = 0 : i64} : () -> tensor<?x8xf32>
  return %c : tensor<?x8xf32>
}

// -----

func.func @concat_axis(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'gnn.concat' op expects axis 2 to be in [0, 2)}}
  %c = gnn.concat %a axis = 2 : tensor<?x8xf32> -> tensor<?x8xf32>
  return %c : tensor<?x8xf32>
}

// -----

func.func @concat_rank(%a: tensor<?x8xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'gnn.concat' op expects input 1 of rank 1 to match result rank 2}}
  %c = gnn.concat %a, %b axis = 1 : tensor<?x8xf32>, tensor<?xf32> -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}

// -----

func.func @concat_other_dim(%a: tensor<3x8xf32>, %b: tensor<4x8xf32>) -> tensor<3x16xf32> {
  // expected-error @+1 {{'gnn.concat' op expects dim 0 of input 1 (4) to match the inputs before it (3)}}
  %c = gnn.concat %a, %b axis = 1 : tensor<3x8xf32>, tensor<4x8xf32> -> tensor<3x16xf32>
  return %c : tensor<3x16xf32>
}

// -----

// The inputs agree (the first one that knows a dim gives it); the result not.
func.func @concat_result_dim(%a: tensor<?x8xf32>, %b: tensor<3x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'gnn.concat' op expects result dim 0 (4) to match the inputs' (3)}}
  %c = gnn.concat %a, %b axis = 1 : tensor<?x8xf32>, tensor<3x8xf32> -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// -----

func.func @concat_sum(%a: tensor<?x8xf32>, %b: tensor<?x8xf32>) -> tensor<?x10xf32> {
  // expected-error @+1 {{'gnn.concat' op expects result dim 1 (10) to be the sum of the inputs' (16)}}
  %c = gnn.concat %a, %b axis = 1 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x10xf32>
  return %c : tensor<?x10xf32>
}

// -----

func.func @reshape_count(%x: tensor<3x4xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'gnn.reshape' op expects input element count 12 to match result element count 10}}
  %y = gnn.reshape %x : tensor<3x4xf32> -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// A dynamic leading dim keeps the input's rows (4), so 4 x 3 is not 24.
func.func @reshape_rows(%x: tensor<4x6xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'gnn.reshape' op expects input element count 24 to match result element count 12}}
  %y = gnn.reshape %x : tensor<4x6xf32> -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

func.func @reduce_axis(%x: tensor<?x2x8xf32>) -> tensor<?x2xf32> {
  // expected-error @+1 {{'gnn.reduce' op expects axis 3 to be in [0, 3)}}
  %y = gnn.reduce sum %x axis = 3 : tensor<?x2x8xf32> -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

func.func @reduce_shape(%x: tensor<?x2x8xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'gnn.reduce' op expects result shape [?, 4] to be the input shape [?, 2, 8] without axis 1}}
  %y = gnn.reduce max %x axis = 1 : tensor<?x2x8xf32> -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

func.func @cross_entropy_labels(%l: tensor<4x7xf32>, %y: tensor<5xi64>) -> tensor<f32> {
  // expected-error @+1 {{'gnn.cross_entropy' op expects 5 labels to match the 4 logits rows}}
  %loss = gnn.cross_entropy %l, %y : tensor<4x7xf32>, tensor<5xi64> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

func.func @norm_penalty_weight(%loss: tensor<f32>, %r: tensor<4x8xf32>) -> tensor<f32> {
  // expected-error @+1 {{'gnn.norm_penalty' op expects a finite, non-negative weight, got -1.000000e-01}}
  %p = gnn.norm_penalty %loss, %r power = 3 weight = -0.1 : tensor<f32>, tensor<4x8xf32> -> tensor<f32>
  return %p : tensor<f32>
}

// -----

func.func @norm_penalty_power(%loss: tensor<f32>, %r: tensor<4x8xf32>) -> tensor<f32> {
  // expected-error @+1 {{'gnn.norm_penalty' op attribute 'power' failed to satisfy constraint}}
  %p = gnn.norm_penalty %loss, %r power = 4 weight = 0.1 : tensor<f32>, tensor<4x8xf32> -> tensor<f32>
  return %p : tensor<f32>
}

// -----

func.func @cross_entropy_mask(%l: tensor<4x7xf32>, %y: tensor<?xi64>, %m: tensor<3xi1>) -> tensor<f32> {
  // expected-error @+1 {{'gnn.cross_entropy' op expects mask length 3 to match the 4 logits rows}}
  %loss = gnn.cross_entropy %l, %y mask %m : tensor<4x7xf32>, tensor<?xi64>, tensor<3xi1> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

func.func @cross_entropy_labels_type(%l: tensor<4x7xf32>, %y: tensor<4xi32>) -> tensor<f32> {
  // expected-error @+1 {{'gnn.cross_entropy' op operand #1 must be 1D tensor of 64-bit signless integer values}}
  %loss = gnn.cross_entropy %l, %y : tensor<4x7xf32>, tensor<4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

func.func @halo_mode_keyword(%g: !gnn.graph, %x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+2 {{expected ::gnn::HaloMode to be one of: auto, one_shot, sequential}}
  // expected-error @+1 {{failed to parse GNN_HaloModeAttr parameter 'value'}}
  %a = gnn.halo_aggregate sum %g, %x {mode = #gnn<halo_mode ring>} : tensor<?x4xf32> -> tensor<?x4xf32>
  return %a : tensor<?x4xf32>
}

// -----

func.func @unary_grad_kind(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+2 {{expected ::gnn::UnaryKind to be one of: neg, exp, log, sqrt, rsqrt, relu, sigmoid, tanh, abs, leaky_relu, elu}}
  // expected-error @+1 {{failed to parse GNN_UnaryKindAttr parameter 'value'}}
  %c = gnn.unary_grad swish %x, %x, %x : tensor<?x4xf32>
  return %c : tensor<?x4xf32>
}

// -----

func.func @unary_grad_alpha(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'gnn.unary_grad' op expects an alpha for 'elu'}}
  %c = gnn.unary_grad elu %x, %x, %x : tensor<?x4xf32>
  return %c : tensor<?x4xf32>
}

// -----

func.func @unary_grad_no_alpha(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'gnn.unary_grad' op does not take an alpha for 'relu'}}
  %c = gnn.unary_grad relu %x, %x, %x {alpha = 0.2} : tensor<?x4xf32>
  return %c : tensor<?x4xf32>
}

// -----

// expected-error @+2 {{invalid an optimizer specification: rmsprop}}
// expected-error @+1 {{failed to parse GNN_TrainAttr parameter 'optimizer'}}
func.func @train_optimizer() attributes {gnn.train = #gnn.train<optimizer = rmsprop>} { return }

// -----

// expected-error @+2 {{struct is missing required parameter: fanouts}}
// expected-error @+1 {{failed to parse GNN_TrainAttr parameter 'sampler'}}
func.func @train_sampler() attributes {gnn.train = #gnn.train<sampler = <batch = 4>>} { return }

// -----

// A relation's own fanouts cover every layer and mean sampling per relation.
// expected-error @+2 {{relation 'cites' has 1 fanouts, expected 2 (one per layer)}}
// expected-error @+1 {{failed to parse GNN_TrainAttr parameter 'sampler'}}
func.func @relation_fanouts_per_layer() attributes {gnn.train = #gnn.train<sampler = <fanouts = [5, 5], batch = 4, per_relation = true, relation_fanouts = [#gnn.relation_fanout<name = "cites", fanouts = [3], where = "m.gnn:2:3">]>>} { return }

// -----

// expected-error @+2 {{relation_fanouts needs per_relation = true}}
// expected-error @+1 {{failed to parse GNN_TrainAttr parameter 'sampler'}}
func.func @relation_fanouts_per_relation() attributes {gnn.train = #gnn.train<sampler = <fanouts = [5], batch = 4, relation_fanouts = [#gnn.relation_fanout<name = "cites", fanouts = [3], where = "m.gnn:2:3">]>>} { return }

// -----

func.func @aggregate_relations_max(%g: !gnn.graph, %x: tensor<?x16xf32>, %w: tensor<?x16x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'gnn.aggregate_relations' op supports sum and mean, got max}}
  %h = gnn.aggregate_relations max %g, %x, %w : tensor<?x16xf32>, tensor<?x16x4xf32> -> tensor<?x4xf32>
  return %h : tensor<?x4xf32>
}

// -----

func.func @aggregate_relations_width(%g: !gnn.graph, %x: tensor<?x16xf32>, %w: tensor<?x8x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'gnn.aggregate_relations' op expects weight dim 1 (8) to match the input width (16)}}
  %h = gnn.aggregate_relations sum %g, %x, %w : tensor<?x16xf32>, tensor<?x8x4xf32> -> tensor<?x4xf32>
  return %h : tensor<?x4xf32>
}

// -----

func.func @aggregate_relation_rows_rank(%g: !gnn.graph, %t: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'gnn.aggregate_relation_rows' op expects a table [R, Nodes, Out] and a result [N, Out], got ranks 2 -> 2}}
  %h = gnn.aggregate_relation_rows sum %g, %t : tensor<?x4xf32> -> tensor<?x4xf32>
  return %h : tensor<?x4xf32>
}

// -----

func.func @scaled_aggregate_reduce(%g: !gnn.graph, %x: tensor<?x4xf32>, %s: tensor<?x1xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'gnn.scaled_aggregate' op supports sum and mean, got max}}
  %a = gnn.scaled_aggregate max %g, %x scale %s : tensor<?x4xf32>, tensor<?x1xf32> -> tensor<?x4xf32>
  return %a : tensor<?x4xf32>
}

// -----

func.func @scaled_aggregate_scale_shape(%g: !gnn.graph, %x: tensor<?x4xf32>, %s: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'gnn.scaled_aggregate' op expects a scale of shape [N, 1], got [?, 4]}}
  %a = gnn.scaled_aggregate sum %g, %x scale %s : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  return %a : tensor<?x4xf32>
}

// -----

func.func @scaled_aggregate_scale_rows(%g: !gnn.graph, %x: tensor<5x4xf32>, %s: tensor<6x1xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'gnn.scaled_aggregate' op expects a scale row per input row, got 6 for 5}}
  %a = gnn.scaled_aggregate sum %g, %x scale %s : tensor<5x4xf32>, tensor<6x1xf32> -> tensor<?x4xf32>
  return %a : tensor<?x4xf32>
}

// -----

func.func @batch_norm_eps(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'gnn.batch_norm' op expects eps >= 0, got -1}}
  %y = gnn.batch_norm %x eps = -1.0 : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

func.func @batch_norm_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'gnn.batch_norm' op expects a tensor with rows, got a scalar}}
  %y = gnn.batch_norm %x eps = 1.0e-5 : tensor<f32>
  return %y : tensor<f32>
}

// -----

func.func @batch_norm_one_statistic(%x: tensor<?x4xf32>, %m: tensor<4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'gnn.batch_norm' op expects no running statistics or two (mean, variance), got 1}}
  %y = gnn.batch_norm %x running %m : tensor<4xf32> eps = 1.0e-5 momentum = 0.1 : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

func.func @batch_norm_no_momentum(%x: tensor<?x4xf32>, %m: tensor<4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'gnn.batch_norm' op expects a momentum exactly with running statistics}}
  %y = gnn.batch_norm %x running %m, %m : tensor<4xf32>, tensor<4xf32> eps = 1.0e-5 : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

func.func @batch_norm_statistic_shape(%x: tensor<?x4xf32>, %m: tensor<5xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'gnn.batch_norm' op running statistic 'tensor<5xf32>' does not match the columns of 'tensor<?x4xf32>'}}
  %y = gnn.batch_norm %x running %m, %m : tensor<5xf32>, tensor<5xf32> eps = 1.0e-5 momentum = 0.1 : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
