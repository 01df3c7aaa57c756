// RUN: gnn-opt --gnn-fuse-elementwise --gnn-fuse-gemm-epilogue %s | FileCheck %s

// GCN's `norm_src * (x @ w)`, and a linear layer's bias and activation:
// applied to each block of product rows straight after the GEMM.
// CHECK-LABEL: func.func @epilogues
func.func @epilogues(%x: tensor<?x8xf32>, %w: tensor<8x4xf32>, %s: tensor<?x1xf32>, %b: tensor<4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %xw = gnn.matmul %x, %w : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<?x4xf32>
  %y = gnn.mul %s, %xw : tensor<?x1xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  %xw2 = gnn.matmul %x, %w : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<?x4xf32>
  %z = gnn.add %xw2, %b : tensor<?x4xf32>, tensor<4xf32> -> tensor<?x4xf32>
  %r = gnn.relu %z : tensor<?x4xf32>
  return %y, %r : tensor<?x4xf32>, tensor<?x4xf32>
}
// CHECK-NOT:  gnn.matmul %
// CHECK:      %[[Y:.*]] = gnn.matmul_map %arg0, %arg1 (%arg2) : (tensor<?x8xf32>, tensor<8x4xf32>, tensor<?x1xf32>) -> tensor<?x4xf32> {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: tensor<f32>, %[[S:.*]]: tensor<f32>):
// CHECK-NEXT:   %[[M:.*]] = gnn.mul %[[S]], %[[ACC]]
// CHECK-NEXT:   gnn.yield %[[M]]
// CHECK:      %[[R:.*]] = gnn.matmul_map %arg0, %arg1 (%arg3) : (tensor<?x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<?x4xf32> {
// CHECK-NEXT: ^bb0(%[[ACC2:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>):
// CHECK-NEXT:   %[[Z:.*]] = gnn.add %[[ACC2]], %[[B]]
// CHECK-NEXT:   %[[RE:.*]] = gnn.relu %[[Z]]
// CHECK-NEXT:   gnn.yield %[[RE]]
// CHECK:      return %[[Y]], %[[R]]

// A product that something else also reads is written out plainly.
// CHECK-LABEL: func.func @shared
func.func @shared(%x: tensor<?x8xf32>, %w: tensor<8x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %xw = gnn.matmul %x, %w : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<?x4xf32>
  %r = gnn.relu %xw : tensor<?x4xf32>
  return %xw, %r : tensor<?x4xf32>, tensor<?x4xf32>
}
// CHECK:      gnn.matmul %arg0, %arg1
// CHECK-NEXT: gnn.relu
