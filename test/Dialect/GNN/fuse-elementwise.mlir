// RUN: gnn-opt --gnn-fuse-elementwise %s | FileCheck %s

// GCN's layer epilogue and its relu adjoint: one loop each. A value the
// backward reads (%hb, the relu input) leaves the loop as a second result;
// %n is computed once at [N, 1] and not fused into the wider loop.
// CHECK-LABEL: func.func @layer
func.func @layer(%s: tensor<?x1xf32>, %h: tensor<?x16xf32>, %b: tensor<16xf32>) -> (tensor<?x16xf32>, tensor<16xf32>) {
  %one = gnn.constant 1.000000e+00 : tensor<f32>
  %d = gnn.add %s, %one : tensor<?x1xf32>, tensor<f32> -> tensor<?x1xf32>
  %n = gnn.rsqrt %d : tensor<?x1xf32>
  %m = gnn.mul %n, %h : tensor<?x1xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %hb = gnn.add %m, %b : tensor<?x16xf32>, tensor<16xf32> -> tensor<?x16xf32>
  %r = gnn.relu %hb : tensor<?x16xf32>
  %dy = gnn.softmax %r axis = 1 : tensor<?x16xf32>
  %dr = gnn.unary_grad relu %dy, %hb, %r : tensor<?x16xf32>
  %db = gnn.unbroadcast %dr : tensor<?x16xf32> -> tensor<16xf32>
  %dm = gnn.mul %dr, %n : tensor<?x16xf32>, tensor<?x1xf32> -> tensor<?x16xf32>
  return %dm, %db : tensor<?x16xf32>, tensor<16xf32>
}
// CHECK:      %[[N:.*]] = gnn.map %arg0, %{{.*}} : (tensor<?x1xf32>, tensor<f32>) -> tensor<?x1xf32> {
// CHECK:        gnn.add
// CHECK-NEXT:   gnn.rsqrt
// CHECK-NEXT:   gnn.yield
// CHECK:      %[[F:.*]]:2 = gnn.map %[[N]], %arg1, %arg2 : (tensor<?x1xf32>, tensor<?x16xf32>, tensor<16xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>) {
// CHECK-NEXT: ^bb0(%[[NE:.*]]: tensor<f32>, %[[HE:.*]]: tensor<f32>, %[[BE:.*]]: tensor<f32>):
// CHECK-NEXT:   %[[M:.*]] = gnn.mul %[[NE]], %[[HE]] : tensor<f32>, tensor<f32> -> tensor<f32>
// CHECK-NEXT:   %[[HB:.*]] = gnn.add %[[M]], %[[BE]]
// CHECK-NEXT:   %[[R:.*]] = gnn.relu %[[HB]] : tensor<f32>
// CHECK-NEXT:   gnn.yield %[[HB]], %[[R]]
// The adjoint's unbroadcast reads %dr before %dm is computed, so the map
// that makes both is placed right after its last input, before it.
// CHECK:      %[[DY:.*]] = gnn.softmax %[[F]]#1
// CHECK-NEXT: %[[G:.*]]:2 = gnn.map %[[DY]], %[[F]]#0, %[[F]]#1, %[[N]]
// CHECK:        gnn.unary_grad relu
// CHECK-NEXT:   gnn.mul
// CHECK-NEXT:   gnn.yield
// CHECK:      gnn.unbroadcast %[[G]]#0
// CHECK-NEXT: return %[[G]]#1

// A use between producer and consumer that the consumer's input comes
// after: fusing would need the map both before and after it. Not fused.
// CHECK-LABEL: func.func @blocked
func.func @blocked(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %e = gnn.exp %a : tensor<?x4xf32>
  %s = gnn.softmax %e axis = 1 : tensor<?x4xf32>
  %y = gnn.mul %e, %s : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
// CHECK-NOT:  gnn.map
// CHECK:      gnn.exp
// CHECK-NEXT: gnn.softmax
// CHECK-NEXT: gnn.mul
