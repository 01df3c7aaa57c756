// RUN: gnn-opt %s | gnn-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: gnn-opt --gnn-infer-shapes %s | FileCheck %s --check-prefix=SHAPES
// RUN: gnn-opt --gnn-autodiff %s | FileCheck %s --check-prefix=GRAD
// gnn.block_diagonal builds R-GCN's block-diagonal relation matrices
// [R, B, I, O] -> [R, B*I, B*O]; its adjoint, gnn.diagonal_blocks, takes the
// diagonal blocks of the matrices' gradient back to the blocks' layout.

gnn.parameter @M.q : tensor<?x4x2x3xf32> init glorot dims ["d.relations", "4", "2", "3"]
func.func @M.forward(%g: !gnn.graph, %x: tensor<?x8xf32>) -> tensor<?x12xf32> {
  %q = gnn.param @M.q : tensor<?x4x2x3xf32>
  %w = gnn.block_diagonal %q : tensor<?x4x2x3xf32> -> tensor<?x?x?xf32>
  %h = gnn.aggregate_relations mean %g, %x, %w : tensor<?x8xf32>, tensor<?x?x?xf32> -> tensor<?x12xf32>
  return %h : tensor<?x12xf32>
}

// ROUNDTRIP-LABEL: func.func @M.forward(
// ROUNDTRIP: %[[Q:.+]] = gnn.param @M.q : tensor<?x4x2x3xf32>
// ROUNDTRIP: gnn.block_diagonal %[[Q]] : tensor<?x4x2x3xf32> -> tensor<?x?x?xf32>

// Inferred: the matrices are [R, 4*2, 4*3].
// SHAPES-LABEL: func.func @M.forward(
// SHAPES: gnn.block_diagonal %{{.+}} : tensor<?x4x2x3xf32> -> tensor<?x8x12xf32>

// GRAD-LABEL: func.func @M.train_step(
// GRAD: %[[Q:.+]] = gnn.param @M.q
// GRAD: %[[W:.+]] = gnn.block_diagonal %[[Q]]
// GRAD: %[[DW:.+]] = gnn.aggregate_relations_weight_grad mean
// GRAD: %[[DQ:.+]] = gnn.diagonal_blocks %[[DW]] like %[[Q]] : tensor<?x?x?xf32>, tensor<?x4x2x3xf32> -> tensor<?x4x2x3xf32>
// GRAD: gnn.param_grad @M.q, %[[DQ]]
