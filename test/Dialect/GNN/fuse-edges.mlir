// RUN: gnn-opt --gnn-fuse-elementwise --gnn-fuse-edges %s | FileCheck %s

// GAT's attention logits: both gathers are read in place, so no [E, 8]
// copy of the node scores is made.
// CHECK-LABEL: func.func @logits
func.func @logits(%g: !gnn.graph, %as: tensor<?x8xf32>, %ad: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %s = gnn.gather src %g, %as : tensor<?x8xf32> -> tensor<?x8xf32>
  %d = gnn.gather dst %g, %ad : tensor<?x8xf32> -> tensor<?x8xf32>
  %e = gnn.add %s, %d : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %l = gnn.leaky_relu %e alpha = 2.000000e-01 : tensor<?x8xf32>
  return %l : tensor<?x8xf32>
}
// CHECK-NOT:  gnn.gather
// CHECK:      %[[E:.*]] = gnn.edge_map %arg0(%arg1, %arg2) sides ["src", "dst"] : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>):
// CHECK-NEXT:   %[[S:.*]] = gnn.add %[[A]], %[[B]]
// CHECK-NEXT:   %[[L:.*]] = gnn.leaky_relu %[[S]] alpha = 2.000000e-01
// CHECK-NEXT:   gnn.yield %[[L]]
// CHECK:      return %[[E]]

// An edge message reduced at the destination (EdgeConv-like): the
// per-edge values are never stored; the same node tensor read at both
// ends is one operand with two sides.
// CHECK-LABEL: func.func @message
func.func @message(%g: !gnn.graph, %x: tensor<?x16xf32>, %w: tensor<?x1xf32>) -> tensor<?x16xf32> {
  %xs = gnn.gather src %g, %x : tensor<?x16xf32> -> tensor<?x16xf32>
  %xd = gnn.gather dst %g, %x : tensor<?x16xf32> -> tensor<?x16xf32>
  %diff = gnn.sub %xs, %xd : tensor<?x16xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %msg = gnn.mul %diff, %w : tensor<?x16xf32>, tensor<?x1xf32> -> tensor<?x16xf32>
  %h = gnn.scatter max %g, %msg : tensor<?x16xf32> -> tensor<?x16xf32>
  return %h : tensor<?x16xf32>
}
// CHECK-NOT:  gnn.gather
// CHECK-NOT:  gnn.scatter
// CHECK:      %[[H:.*]] = gnn.edge_map %arg0(%arg1, %arg1, %arg2) sides ["src", "dst", "edge"] reduce{{ +}}max : (tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x1xf32>) -> tensor<?x16xf32> {
// CHECK:        gnn.sub
// CHECK-NEXT:   gnn.mul
// CHECK-NEXT:   gnn.yield
// CHECK:      return %[[H]]

// A gathered tensor that is also read elsewhere stays materialized for
// that reader; the edge kernel still reads the node rows itself.
// CHECK-LABEL: func.func @shared
func.func @shared(%g: !gnn.graph, %x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %xs = gnn.gather src %g, %x : tensor<?x4xf32> -> tensor<?x4xf32>
  %t = gnn.tanh %xs : tensor<?x4xf32>
  %h = gnn.scatter sum %g, %xs : tensor<?x4xf32> -> tensor<?x4xf32>
  return %t, %h : tensor<?x4xf32>, tensor<?x4xf32>
}
// CHECK:      gnn.gather src
// CHECK-NEXT: gnn.edge_map %arg0(%arg1) sides ["src"]
