// RUN: gnn-opt --gnn-hoist-invariants %s | FileCheck %s

// GCN's first layer, aggregated first, on a full graph: the degree norm,
// the scaled features and their aggregation are the same on every call.
// They move to the front, after the constant they read, in program order,
// and are marked; the parameter read and the product stay as they were.
gnn.parameter @G.w : tensor<?x16xf32> init glorot dims ["cora.features", "16"]
// CHECK-LABEL: func.func @G.forward
func.func @G.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x16xf32>
    attributes {gnn.train = #gnn.train<dataset = "cora">} {
  %w = gnn.param @G.w : tensor<?x16xf32>
  %one = gnn.constant 1.0 : tensor<f32>
  %d = gnn.degree src %g : tensor<?x1xf32>
  %p = gnn.add %d, %one : tensor<?x1xf32>, tensor<f32> -> tensor<?x1xf32>
  %n = gnn.rsqrt %p : tensor<?x1xf32>
  %m = gnn.mul %n, %x : tensor<?x1xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %a = gnn.aggregate sum %g, %m {self_loops = true} : tensor<?x?xf32> -> tensor<?x?xf32>
  %y = gnn.matmul %a, %w : tensor<?x?xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %r = gnn.mul %n, %y : tensor<?x1xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}
// CHECK-NEXT: %[[ONE:.*]] = gnn.constant
// CHECK-NEXT: %[[D:.*]] = gnn.degree src %arg0 {gnn.step_invariant}
// CHECK-NEXT: %[[P:.*]] = gnn.add %[[D]], %[[ONE]] {gnn.step_invariant}
// CHECK-NEXT: %[[N:.*]] = gnn.rsqrt %[[P]] {gnn.step_invariant}
// CHECK-NEXT: %[[M:.*]] = gnn.mul %[[N]], %arg1 {gnn.step_invariant}
// CHECK-NEXT: %[[A:.*]] = gnn.aggregate sum %arg0, %[[M]] {gnn.step_invariant, self_loops = true}
// CHECK-NEXT: %[[W:.*]] = gnn.param @G.w
// CHECK-NOT:  gnn.step_invariant
// CHECK:      gnn.matmul %[[A]], %[[W]]
// CHECK-NEXT: gnn.mul %[[N]]
// CHECK-NEXT: return

// Degree norms alone are not worth kept buffers: nothing walks the graph,
// nothing is marked or moved.
// CHECK-LABEL: func.func @N.forward
func.func @N.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x?xf32>
    attributes {gnn.train = #gnn.train<dataset = "cora">} {
  %d = gnn.degree src %g : tensor<?x1xf32>
  %m = gnn.mul %d, %x : tensor<?x1xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %m : tensor<?x?xf32>
}
// CHECK-NOT: gnn.step_invariant
// CHECK:     return

// Dropout draws a new mask each step, and a sampled program gets new
// blocks each step: neither aggregation is invariant.
// CHECK-LABEL: func.func @D.forward
func.func @D.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x?xf32>
    attributes {gnn.train = #gnn.train<dataset = "cora">} {
  %x1 = gnn.dropout %x p = 5.000000e-01 {stream = 0 : i64} : tensor<?x?xf32>
  %a = gnn.aggregate sum %g, %x1 : tensor<?x?xf32> -> tensor<?x?xf32>
  return %a : tensor<?x?xf32>
}
// CHECK-NOT: gnn.step_invariant
// CHECK:     return
// CHECK-LABEL: func.func @B.forward
func.func @B.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x?xf32>
    attributes {gnn.train = #gnn.train<dataset = "cora",
                sampler = #gnn.neighbor<fanouts = [10], batch = 64>>} {
  %a = gnn.aggregate sum %g, %x : tensor<?x?xf32> -> tensor<?x?xf32>
  return %a : tensor<?x?xf32>
}
// CHECK-NOT: gnn.step_invariant
// CHECK:     return

// A train step reads its program's train block on the forward of its model.
// CHECK-LABEL: func.func @B.train_step
func.func @B.train_step(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %a = gnn.aggregate sum %g, %x : tensor<?x?xf32> -> tensor<?x?xf32>
  return %a : tensor<?x?xf32>
}
// CHECK-NOT: gnn.step_invariant
// CHECK:     return
// CHECK-LABEL: func.func @G.train_step
func.func @G.train_step(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %a = gnn.aggregate sum %g, %x : tensor<?x?xf32> -> tensor<?x?xf32>
  return %a : tensor<?x?xf32>
}
// CHECK: gnn.aggregate sum %arg0, %arg1 {gnn.step_invariant}
