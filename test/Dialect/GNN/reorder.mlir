// RUN: gnn-opt --gnn-reorder %s | FileCheck %s
// RUN: gnn-opt --gnn-reorder=features=8 %s | FileCheck %s --check-prefix=NARROW

// SAGE-style: aggregate the 1433-wide input, then transform to 64. The
// aggregation gathers one row per edge, so it should run at width 64.
gnn.parameter @S.w : tensor<1433x64xf32> init glorot dims ["1433", "64"]
// CHECK-LABEL: func.func @S.forward
func.func @S.forward(%g: !gnn.graph, %x: tensor<?x1433xf32>) -> tensor<?x64xf32> {
  %w = gnn.param @S.w : tensor<1433x64xf32>
  %a = gnn.aggregate mean %g, %x {self_loops = true} : tensor<?x1433xf32> -> tensor<?x1433xf32>
  %y = gnn.matmul %a, %w : tensor<?x1433xf32>, tensor<1433x64xf32> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
// CHECK:      %[[W:.*]] = gnn.param @S.w
// CHECK-NEXT: %[[T:.*]] = gnn.matmul %arg1, %[[W]] : tensor<?x1433xf32>, tensor<1433x64xf32> -> tensor<?x64xf32>
// CHECK-NEXT: %[[A:.*]] = gnn.aggregate mean %arg0, %[[T]] {self_loops = true} : tensor<?x64xf32> -> tensor<?x64xf32>
// CHECK-NEXT: return %[[A]]

// GCN-style with a row scale, widening 16 -> 40 classes: aggregate (and
// scale) at width 16, then transform.
gnn.parameter @G.w : tensor<16x40xf32> init glorot dims ["16", "40"]
// CHECK-LABEL: func.func @G.forward
func.func @G.forward(%g: !gnn.graph, %h: tensor<?x16xf32>) -> tensor<?x40xf32> {
  %s = gnn.degree src %g : tensor<?x1xf32>
  %w = gnn.param @G.w : tensor<16x40xf32>
  %hw = gnn.matmul %h, %w : tensor<?x16xf32>, tensor<16x40xf32> -> tensor<?x40xf32>
  %m = gnn.mul %s, %hw : tensor<?x1xf32>, tensor<?x40xf32> -> tensor<?x40xf32>
  %a = gnn.aggregate sum %g, %m {self_loops = true} : tensor<?x40xf32> -> tensor<?x40xf32>
  return %a : tensor<?x40xf32>
}
// CHECK:      %[[S:.*]] = gnn.degree src
// CHECK:      %[[M:.*]] = gnn.mul %[[S]], %arg1 : tensor<?x1xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
// CHECK-NEXT: %[[A:.*]] = gnn.aggregate sum %arg0, %[[M]] {self_loops = true} : tensor<?x16xf32> -> tensor<?x16xf32>
// CHECK-NEXT: %[[Y:.*]] = gnn.matmul %[[A]], %{{.*}} : tensor<?x16xf32>, tensor<16x40xf32> -> tensor<?x40xf32>
// CHECK-NEXT: return %[[Y]]

// Already in the cheap order (transform 1433 -> 16, then aggregate): kept.
// A max aggregation is not linear: never moved.
gnn.parameter @K.w : tensor<?x16xf32> init glorot dims ["cora.features", "16"]
gnn.parameter @K.v : tensor<?x16xf32> init glorot dims ["cora.features", "16"]
// CHECK-LABEL: func.func @K.forward
// NARROW-LABEL: func.func @K.forward
func.func @K.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x16xf32> {
  %w = gnn.param @K.w : tensor<?x16xf32>
  %xw = gnn.matmul %x, %w : tensor<?x?xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %a = gnn.aggregate sum %g, %xw : tensor<?x16xf32> -> tensor<?x16xf32>
  %v = gnn.param @K.v : tensor<?x16xf32>
  %m = gnn.aggregate max %g, %x : tensor<?x?xf32> -> tensor<?x?xf32>
  %mv = gnn.matmul %m, %v : tensor<?x?xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %y = gnn.add %a, %mv : tensor<?x16xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
// With the default estimate (features = 512) transforming first stays.
// CHECK:      gnn.matmul %arg1, %{{.*}} : tensor<?x?xf32>, tensor<?x16xf32>
// CHECK-NEXT: gnn.aggregate sum %arg0
// CHECK:      gnn.aggregate max %arg0, %arg1
// CHECK-NEXT: gnn.matmul
// If the dataset had 8 features, aggregating first would be cheaper.
// NARROW:      %[[A:.*]] = gnn.aggregate sum %arg0, %arg1 : tensor<?x?xf32> -> tensor<?x?xf32>
// NARROW-NEXT: gnn.matmul %[[A]], %{{.*}} : tensor<?x?xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
// NARROW:      gnn.aggregate max %arg0, %arg1

// A square W (128 -> 128) is a tie. On a full graph, over a hidden layer
// (which needs its gradient), both orders run the same GEMM and gather as
// much: kept as written. On sampled blocks aggregating first runs the GEMM on
// the block's destinations only, not on all of its sources: moved (GCN-style,
// the row scale goes with the aggregation).
gnn.parameter @F.p : tensor<128x128xf32> init glorot dims ["128", "128"]
gnn.parameter @F.w : tensor<128x128xf32> init glorot dims ["128", "128"]
// CHECK-LABEL: func.func @F.forward
func.func @F.forward(%g: !gnn.graph, %x: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %p = gnn.param @F.p : tensor<128x128xf32>
  %h = gnn.matmul %x, %p : tensor<?x128xf32>, tensor<128x128xf32> -> tensor<?x128xf32>
  %s = gnn.degree src %g : tensor<?x1xf32>
  %w = gnn.param @F.w : tensor<128x128xf32>
  %hw = gnn.matmul %h, %w : tensor<?x128xf32>, tensor<128x128xf32> -> tensor<?x128xf32>
  %m = gnn.mul %s, %hw : tensor<?x1xf32>, tensor<?x128xf32> -> tensor<?x128xf32>
  %a = gnn.aggregate sum %g, %m {self_loops = true} : tensor<?x128xf32> -> tensor<?x128xf32>
  return %a : tensor<?x128xf32>
}
// CHECK:      %[[H:.*]] = gnn.matmul %arg1, %{{.*}} : tensor<?x128xf32>, tensor<128x128xf32>
// CHECK:      gnn.matmul %[[H]], %{{.*}} : tensor<?x128xf32>, tensor<128x128xf32>
// CHECK-NEXT: gnn.mul
// CHECK-NEXT: gnn.aggregate sum %arg0

gnn.parameter @B.w : tensor<128x128xf32> init glorot dims ["128", "128"]
// CHECK-LABEL: func.func @B.forward
func.func @B.forward(%g: !gnn.graph, %h: tensor<?x128xf32>) -> tensor<?x128xf32>
    attributes {gnn.train = #gnn.train<sampler = <fanouts = [5, 5], batch = 16>>} {
  %s = gnn.degree src %g : tensor<?x1xf32>
  %w = gnn.param @B.w : tensor<128x128xf32>
  %hw = gnn.matmul %h, %w : tensor<?x128xf32>, tensor<128x128xf32> -> tensor<?x128xf32>
  %m = gnn.mul %s, %hw : tensor<?x1xf32>, tensor<?x128xf32> -> tensor<?x128xf32>
  %a = gnn.aggregate sum %g, %m {self_loops = true} : tensor<?x128xf32> -> tensor<?x128xf32>
  return %a : tensor<?x128xf32>
}
// CHECK:      %[[S:.*]] = gnn.degree src %arg0
// CHECK:      %[[X:.*]] = gnn.mul %[[S]], %arg1 : tensor<?x1xf32>, tensor<?x128xf32> -> tensor<?x128xf32>
// CHECK-NEXT: %[[A:.*]] = gnn.aggregate sum %arg0, %[[X]] {self_loops = true} : tensor<?x128xf32> -> tensor<?x128xf32>
// CHECK-NEXT: %[[Y:.*]] = gnn.matmul %[[A]], %{{.*}} : tensor<?x128xf32>, tensor<128x128xf32> -> tensor<?x128xf32>
// CHECK-NEXT: return %[[Y]]

// A square W (128 -> 128) on the full graph. Over the features, which need
// no gradient, aggregating first gathers once per epoch (A(x); W's gradient
// is A(x)^T dY) where transforming first gathers twice (forward, and the
// adjoint back to x @ W): aggregate first, even through dropout and a row
// scale, and up to in = 2 * out. Over a hidden layer, which needs its
// gradient, both orders gather twice: it stays.
gnn.parameter @Q.w : tensor<128x128xf32> init glorot dims ["128", "128"]
gnn.parameter @Q.v : tensor<128x128xf32> init glorot dims ["128", "128"]
gnn.parameter @Q.u : tensor<128x100xf32> init glorot dims ["128", "100"]
// CHECK-LABEL: func.func @Q.forward
func.func @Q.forward(%g: !gnn.graph, %x: tensor<?x128xf32>) -> tensor<?x100xf32> {
  %s = gnn.degree src %g : tensor<?x1xf32>
  %d = gnn.dropout %x p = 5.000000e-01 : tensor<?x128xf32>
  %w = gnn.param @Q.w : tensor<128x128xf32>
  %xw = gnn.matmul %d, %w : tensor<?x128xf32>, tensor<128x128xf32> -> tensor<?x128xf32>
  %m = gnn.mul %s, %xw : tensor<?x1xf32>, tensor<?x128xf32> -> tensor<?x128xf32>
  %a = gnn.aggregate sum %g, %m {self_loops = true} : tensor<?x128xf32> -> tensor<?x128xf32>
  %v = gnn.param @Q.v : tensor<128x128xf32>
  %hv = gnn.matmul %a, %v : tensor<?x128xf32>, tensor<128x128xf32> -> tensor<?x128xf32>
  %b = gnn.aggregate sum %g, %hv : tensor<?x128xf32> -> tensor<?x128xf32>
  %c = gnn.aggregate mean %g, %x : tensor<?x128xf32> -> tensor<?x128xf32>
  %u = gnn.param @Q.u : tensor<128x100xf32>
  %cu = gnn.matmul %c, %u : tensor<?x128xf32>, tensor<128x100xf32> -> tensor<?x100xf32>
  return %cu : tensor<?x100xf32>
}
// CHECK:      %[[D:.*]] = gnn.dropout %arg1
// CHECK:      %[[M:.*]] = gnn.mul %{{.*}}, %[[D]] : tensor<?x1xf32>, tensor<?x128xf32> -> tensor<?x128xf32>
// CHECK-NEXT: %[[A:.*]] = gnn.aggregate sum %arg0, %[[M]] {self_loops = true} : tensor<?x128xf32> -> tensor<?x128xf32>
// CHECK-NEXT: %[[H:.*]] = gnn.matmul %[[A]], %{{.*}} : tensor<?x128xf32>, tensor<128x128xf32>
// CHECK:      %[[HV:.*]] = gnn.matmul %[[H]], %{{.*}} : tensor<?x128xf32>, tensor<128x128xf32>
// CHECK-NEXT: gnn.aggregate sum %arg0, %[[HV]] : tensor<?x128xf32> -> tensor<?x128xf32>
// CHECK:      %[[C:.*]] = gnn.aggregate mean %arg0, %arg1 : tensor<?x128xf32> -> tensor<?x128xf32>
// CHECK:      gnn.matmul %[[C]], %{{.*}} : tensor<?x128xf32>, tensor<128x100xf32> -> tensor<?x100xf32>
