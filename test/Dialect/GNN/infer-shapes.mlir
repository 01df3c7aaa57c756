// RUN: gnn-opt %s -gnn-infer-shapes | FileCheck %s
// gnn-infer-shapes fills `?` result dims that the operands determine, in
// program order so refinements flow through chains, and leaves a value (and
// everything tied to it by a same-type op) alone when a non-gnn user such as
// func.return needs its original type.

gnn.parameter @w : tensor<?x7xf32> init glorot dims ["n", "7"]

// CHECK-LABEL: func.func @chain
func.func @chain(%g: !gnn.graph, %x: tensor<?x16xf32>, %w: tensor<16x7xf32>, %b: tensor<7xf32>) -> tensor<?x?xf32> {
  // CHECK: gnn.matmul {{.*}} -> tensor<?x7xf32>
  %y = gnn.matmul %x, %w : tensor<?x16xf32>, tensor<16x7xf32> -> tensor<?x?xf32>
  // The relu result follows its refined operand.
  // CHECK: gnn.relu {{.*}} : tensor<?x7xf32>
  %r = gnn.relu %y : tensor<?x?xf32>
  // CHECK: gnn.aggregate sum {{.*}} : tensor<?x7xf32> -> tensor<?x7xf32>
  %a = gnn.aggregate sum %g, %r : tensor<?x?xf32> -> tensor<?x?xf32>
  // The sum is returned, so its type stays as written.
  // CHECK: gnn.add {{.*}} : tensor<?x7xf32>, tensor<7xf32> -> tensor<?x?xf32>
  %s = gnn.add %a, %b : tensor<?x?xf32>, tensor<7xf32> -> tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @pinned_class
func.func @pinned_class(%x: tensor<?x16xf32>, %w: tensor<16x7xf32>) -> tensor<?x?xf32> {
  // The matmul result is tied to a returned relu: neither changes.
  // CHECK: gnn.matmul {{.*}} -> tensor<?x?xf32>
  // CHECK: gnn.relu {{.*}} : tensor<?x?xf32>
  %y = gnn.matmul %x, %w : tensor<?x16xf32>, tensor<16x7xf32> -> tensor<?x?xf32>
  %r = gnn.relu %y : tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%g: !gnn.graph, %a: tensor<?x8xf32>, %c: tensor<5x1xf32>, %r: tensor<1x3xf32>, %h: tensor<4x6xf32>) -> tensor<f32> {
  // CHECK: gnn.param @w : tensor<?x7xf32>
  %p = gnn.param @w : tensor<?x?xf32>
  // CHECK: gnn.gather src {{.*}} -> tensor<?x8xf32>
  %e = gnn.gather src %g, %a : tensor<?x8xf32> -> tensor<?x?xf32>
  // CHECK: gnn.add {{.*}} -> tensor<5x3xf32>
  %b = gnn.add %c, %r : tensor<5x1xf32>, tensor<1x3xf32> -> tensor<?x?xf32>
  // CHECK: gnn.concat {{.*}} -> tensor<?x16xf32>
  %k = gnn.concat %a, %e axis = 1 : tensor<?x8xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  // CHECK: gnn.reshape {{.*}} -> tensor<2x3x4xf32>
  %s = gnn.reshape %h : tensor<4x6xf32> -> tensor<2x?x4xf32>
  // CHECK: gnn.reduce sum {{.*}} -> tensor<2x4xf32>
  %m = gnn.reduce sum %s axis = 1 : tensor<2x?x4xf32> -> tensor<?x?xf32>
  // CHECK: gnn.softmax {{.*}} : tensor<?x16xf32>
  %n = gnn.softmax %k axis = 1 : tensor<?x?xf32>
  // CHECK: gnn.scatter mean {{.*}} -> tensor<?x16xf32>
  %o = gnn.scatter mean %g, %n : tensor<?x?xf32> -> tensor<?x?xf32>
  %z = gnn.constant 0.0 : tensor<f32>
  return %z : tensor<f32>
}

// A transposed product's result dims come from the transposed operands
// (the reverse sweep's `X^T dY` and `dY W^T`), as the verifier reads them.
// CHECK-LABEL: func.func @transposed
func.func @transposed(%x: tensor<?x5xf32>, %d: tensor<?x4xf32>, %w: tensor<6x5xf32>) {
  // CHECK: gnn.matmul {{.*}} {transpose_lhs = true} : tensor<?x5xf32>, tensor<?x4xf32> -> tensor<5x4xf32>
  %dw = gnn.matmul %x, %d {transpose_lhs = true} : tensor<?x5xf32>, tensor<?x4xf32> -> tensor<?x?xf32>
  // CHECK: gnn.matmul {{.*}} {transpose_rhs = true} : tensor<?x5xf32>, tensor<6x5xf32> -> tensor<?x6xf32>
  %y = gnn.matmul %x, %w {transpose_rhs = true} : tensor<?x5xf32>, tensor<6x5xf32> -> tensor<?x?xf32>
  return
}

// Every op with a shape rule (ShapeRules.h) is refined by it, not only the
// ones the pass once listed: a relational aggregation's width is its
// weight's output dim, a block-diagonal product's dims multiply.
// CHECK-LABEL: func.func @rules
func.func @rules(%g: !gnn.graph, %x: tensor<?x16xf32>, %w: tensor<?x16x4xf32>, %q: tensor<3x2x4x5xf32>) {
  // CHECK: gnn.aggregate_relations {{.*}} -> tensor<?x4xf32>
  %h = gnn.aggregate_relations sum %g, %x, %w : tensor<?x16xf32>, tensor<?x16x4xf32> -> tensor<?x?xf32>
  // CHECK: gnn.block_diagonal {{.*}} -> tensor<3x8x10xf32>
  %b = gnn.block_diagonal %q : tensor<3x2x4x5xf32> -> tensor<?x?x?xf32>
  return
}
