// RUN: gnn-opt --gnn-fuse-aggregate-scale %s | FileCheck %s

// GCN's kept first-layer aggregation: the norm-scaled features are read by
// the aggregation alone, so it scales each row as it gathers it and the
// [N, F] product is gone. The attributes (kept, self loops) carry over.
// CHECK-LABEL: func.func @kept
func.func @kept(%g: !gnn.graph, %x: tensor<?x?xf32>, %n: tensor<?x1xf32>) -> tensor<?x?xf32> {
  %m = gnn.mul %n, %x {gnn.step_invariant} : tensor<?x1xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %a = gnn.halo_aggregate sum %g, %m {gnn.step_invariant, self_loops = true} : tensor<?x?xf32> -> tensor<?x?xf32>
  return %a : tensor<?x?xf32>
}
// CHECK-NOT:  gnn.mul
// CHECK:      %[[A:.*]] = gnn.scaled_aggregate sum %arg0, %arg1 scale %arg2 {gnn.step_invariant, self_loops = true} : tensor<?x?xf32>, tensor<?x1xf32> -> tensor<?x?xf32>
// CHECK-NEXT: return %[[A]]

// The column may be either operand of the product; a mean too.
// CHECK-LABEL: func.func @column_second
func.func @column_second(%g: !gnn.graph, %x: tensor<?x8xf32>, %n: tensor<?x1xf32>) -> tensor<?x8xf32> {
  %m = gnn.mul %x, %n {gnn.step_invariant} : tensor<?x8xf32>, tensor<?x1xf32> -> tensor<?x8xf32>
  %a = gnn.halo_aggregate mean %g, %m {gnn.step_invariant} : tensor<?x8xf32> -> tensor<?x8xf32>
  return %a : tensor<?x8xf32>
}
// CHECK: gnn.scaled_aggregate mean %arg0, %arg1 scale %arg2 {gnn.step_invariant} : tensor<?x8xf32>, tensor<?x1xf32> -> tensor<?x8xf32>

// Left alone: a product something else reads too (it must be stored
// anyway), an aggregation computed every step (not kept), a product of
// two matrices (no column to scale rows by), and one row broadcast over all.
// CHECK-LABEL: func.func @kept_elsewhere
func.func @kept_elsewhere(%g: !gnn.graph, %x: tensor<?x?xf32>, %n: tensor<?x1xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %m = gnn.mul %n, %x {gnn.step_invariant} : tensor<?x1xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %a = gnn.halo_aggregate sum %g, %m {gnn.step_invariant, self_loops = true} : tensor<?x?xf32> -> tensor<?x?xf32>
  return %a, %m : tensor<?x?xf32>, tensor<?x?xf32>
}
// CHECK:     gnn.mul
// CHECK:     gnn.halo_aggregate sum
// CHECK-NOT: gnn.scaled_aggregate
// CHECK-LABEL: func.func @every_step
func.func @every_step(%g: !gnn.graph, %x: tensor<?x?xf32>, %n: tensor<?x1xf32>) -> tensor<?x?xf32> {
  %m = gnn.mul %n, %x : tensor<?x1xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %a = gnn.halo_aggregate sum %g, %m {self_loops = true} : tensor<?x?xf32> -> tensor<?x?xf32>
  return %a : tensor<?x?xf32>
}
// CHECK:     gnn.mul
// CHECK:     gnn.halo_aggregate sum
// CHECK-LABEL: func.func @two_matrices
func.func @two_matrices(%g: !gnn.graph, %x: tensor<?x8xf32>, %y: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %m = gnn.mul %x, %y {gnn.step_invariant} : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a = gnn.halo_aggregate sum %g, %m {gnn.step_invariant} : tensor<?x8xf32> -> tensor<?x8xf32>
  return %a : tensor<?x8xf32>
}
// CHECK:     gnn.mul
// CHECK:     gnn.halo_aggregate sum
// CHECK-NOT: gnn.scaled_aggregate
// CHECK-LABEL: func.func @one_row
func.func @one_row(%g: !gnn.graph, %x: tensor<?x8xf32>, %n: tensor<1x1xf32>) -> tensor<?x8xf32> {
  %m = gnn.mul %n, %x {gnn.step_invariant} : tensor<1x1xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %a = gnn.halo_aggregate sum %g, %m {gnn.step_invariant} : tensor<?x8xf32> -> tensor<?x8xf32>
  return %a : tensor<?x8xf32>
}
// CHECK:     gnn.mul
// CHECK:     gnn.halo_aggregate sum
// CHECK-NOT: gnn.scaled_aggregate
