// RUN: gnn-opt --gnn-reorder=hoist-invariants=true %s | FileCheck %s
// RUN: gnn-opt --gnn-reorder %s | FileCheck %s --check-prefix=NOHOIST

// GCN's first layer on a full graph: its input is the features, scaled by a
// degree norm, the same on every step. With hoist-invariants the
// aggregation goes first even though W narrows the rows (1433 -> 16): it is
// then computed once per run.
gnn.parameter @G.w : tensor<?x16xf32> init glorot dims ["cora.features", "16"]
// CHECK-LABEL: func.func @G.forward
// NOHOIST-LABEL: func.func @G.forward
func.func @G.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x16xf32>
    attributes {gnn.train = #gnn.train<dataset = "cora">} {
  %s = gnn.degree src %g : tensor<?x1xf32>
  %w = gnn.param @G.w : tensor<?x16xf32>
  %xw = gnn.matmul %x, %w : tensor<?x?xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %m = gnn.mul %s, %xw : tensor<?x1xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %a = gnn.aggregate sum %g, %m {self_loops = true} : tensor<?x16xf32> -> tensor<?x16xf32>
  return %a : tensor<?x16xf32>
}
// CHECK:      %[[S:.*]] = gnn.degree src
// CHECK:      %[[M:.*]] = gnn.mul %[[S]], %arg1 : tensor<?x1xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT: %[[A:.*]] = gnn.aggregate sum %arg0, %[[M]] {self_loops = true} : tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT: %[[Y:.*]] = gnn.matmul %[[A]], %{{.*}} : tensor<?x?xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
// CHECK-NEXT: return %[[Y]]
// Without it, the transform stays first (the features are assumed wider).
// NOHOIST:      gnn.matmul %arg1
// NOHOIST:      gnn.aggregate sum %arg0

// SAGE-style, written aggregate first: hoisting keeps it (the aggregation
// of the features is computed once); without, it moves to the narrow side.
gnn.parameter @S.w : tensor<1433x64xf32> init glorot dims ["1433", "64"]
// CHECK-LABEL: func.func @S.forward
// NOHOIST-LABEL: func.func @S.forward
func.func @S.forward(%g: !gnn.graph, %x: tensor<?x1433xf32>) -> tensor<?x64xf32>
    attributes {gnn.train = #gnn.train<dataset = "cora">} {
  %w = gnn.param @S.w : tensor<1433x64xf32>
  %a = gnn.aggregate mean %g, %x : tensor<?x1433xf32> -> tensor<?x1433xf32>
  %y = gnn.matmul %a, %w : tensor<?x1433xf32>, tensor<1433x64xf32> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
// CHECK:      gnn.aggregate mean %arg0, %arg1 : tensor<?x1433xf32>
// CHECK-NEXT: gnn.matmul
// NOHOIST:      gnn.matmul %arg1
// NOHOIST-NEXT: gnn.aggregate mean

// Not invariant, so sizes decide as without the option: a second layer
// (its input depends on a parameter), learned input rows (`embed`), and
// sampled blocks (each step has its own).
gnn.parameter @L.w : tensor<?x16xf32> init glorot dims ["cora.features", "16"]
gnn.parameter @L.v : tensor<16x4xf32> init glorot dims ["16", "4"]
// CHECK-LABEL: func.func @L.forward
func.func @L.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x4xf32>
    attributes {gnn.train = #gnn.train<dataset = "cora">} {
  %w = gnn.param @L.w : tensor<?x16xf32>
  %xw = gnn.matmul %x, %w : tensor<?x?xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %h = gnn.relu %xw : tensor<?x16xf32>
  %v = gnn.param @L.v : tensor<16x4xf32>
  %a = gnn.aggregate sum %g, %h : tensor<?x16xf32> -> tensor<?x16xf32>
  %y = gnn.matmul %a, %v : tensor<?x16xf32>, tensor<16x4xf32> -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
// CHECK:      %[[H:.*]] = gnn.relu
// CHECK:      %[[T:.*]] = gnn.matmul %[[H]]
// CHECK-NEXT: gnn.aggregate sum %arg0, %[[T]] : tensor<?x4xf32>

gnn.parameter @E.w : tensor<?x16xf32> init glorot dims ["cora.features", "16"]
// CHECK-LABEL: func.func @E.forward
func.func @E.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x16xf32>
    attributes {gnn.train = #gnn.train<dataset = "cora", embed = 8>} {
  %w = gnn.param @E.w : tensor<?x16xf32>
  %xw = gnn.matmul %x, %w : tensor<?x?xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %a = gnn.aggregate sum %g, %xw : tensor<?x16xf32> -> tensor<?x16xf32>
  return %a : tensor<?x16xf32>
}
// CHECK:      gnn.matmul %arg1
// CHECK-NEXT: gnn.aggregate sum %arg0

gnn.parameter @B.w : tensor<?x16xf32> init glorot dims ["cora.features", "16"]
// CHECK-LABEL: func.func @B.forward
func.func @B.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x16xf32>
    attributes {gnn.train = #gnn.train<dataset = "cora",
                sampler = #gnn.neighbor<fanouts = [10], batch = 64>>} {
  %w = gnn.param @B.w : tensor<?x16xf32>
  %xw = gnn.matmul %x, %w : tensor<?x?xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %a = gnn.aggregate sum %g, %xw : tensor<?x16xf32> -> tensor<?x16xf32>
  return %a : tensor<?x16xf32>
}
// CHECK:      gnn.matmul %arg1
// CHECK-NEXT: gnn.aggregate sum %arg0
