// RUN: gnn-opt --split-input-file --verify-diagnostics --gnn-sample-blocks %s | FileCheck %s

// GCN-like layer then SAGE-like layer: each graph op is bound to the block of
// its layer; degrees are re-created for the level they meet; the root term
// reads the prefix of its input (gnn.dst of that layer's block).
// CHECK-LABEL: func.func @M.forward
// CHECK-SAME: gnn.blocks = 2
// CHECK-DAG: %[[B0:.*]] = gnn.block %arg0 layer = 0
// CHECK-DAG: %[[B1:.*]] = gnn.block %arg0 layer = 1
// CHECK: gnn.degree src %[[B0]]
// CHECK: gnn.aggregate sum %[[B0]], %{{.*}} {self_loops = true}
// CHECK: gnn.degree dst %[[B0]]
// CHECK: %[[H:.*]] = gnn.relu
// CHECK: gnn.aggregate mean %[[B1]], %[[H]]
// CHECK: gnn.dst %[[B1]], %[[H]]
// CHECK-NOT: gnn.degree {{.*}} %arg0
func.func @M.forward(%g: !gnn.graph, %x: tensor<?x8xf32>) -> tensor<?x4xf32>
    attributes {gnn.train = #gnn.train<sampler = <fanouts = [5, 5], batch = 16>>} {
  %ds = gnn.degree src %g : tensor<?x1xf32>
  %dd = gnn.degree dst %g : tensor<?x1xf32>
  %a = gnn.mul %ds, %x : tensor<?x1xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %s = gnn.aggregate sum %g, %a {self_loops = true} : tensor<?x8xf32> -> tensor<?x8xf32>
  %n = gnn.mul %dd, %s : tensor<?x1xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %h = gnn.relu %n : tensor<?x8xf32>
  %m = gnn.aggregate mean %g, %h : tensor<?x8xf32> -> tensor<?x8xf32>
  %r = gnn.dst %g, %h : tensor<?x8xf32> -> tensor<?x8xf32>
  %y = gnn.add %m, %r : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %w = gnn.slice %y axis = 1 offset = 0 size = 4 : tensor<?x8xf32> -> tensor<?x4xf32>
  return %w : tensor<?x4xf32>
}

// -----

// A skip connection from the input to the output of two layers: the input
// is narrowed by both blocks' destination prefixes.
// CHECK-LABEL: func.func @Skip.forward
// CHECK: %[[X1:.*]] = gnn.dst %{{.*}}, %arg1
// CHECK: %[[X2:.*]] = gnn.dst %{{.*}}, %[[X1]]
// CHECK: gnn.add %{{.*}}, %[[X2]]
func.func @Skip.forward(%g: !gnn.graph, %x: tensor<?x8xf32>) -> tensor<?x8xf32>
    attributes {gnn.train = #gnn.train<sampler = <fanouts = [5, -1], batch = 16>>} {
  %h = gnn.aggregate mean %g, %x : tensor<?x8xf32> -> tensor<?x8xf32>
  %o = gnn.aggregate mean %g, %h : tensor<?x8xf32> -> tensor<?x8xf32>
  %y = gnn.add %o, %x : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// Full-graph training: untouched.
// CHECK-LABEL: func.func @Full.forward
// CHECK-NOT: gnn.block
// CHECK-NOT: gnn.blocks
func.func @Full.forward(%g: !gnn.graph, %x: tensor<?x8xf32>) -> tensor<?x8xf32>
    attributes {gnn.train = #gnn.train<>} {
  %h = gnn.aggregate mean %g, %x : tensor<?x8xf32> -> tensor<?x8xf32>
  return %h : tensor<?x8xf32>
}

// -----

// An explicit g[0] on the output of layer 0 contradicts the dataflow.
func.func @Wrong.forward(%g: !gnn.graph, %x: tensor<?x8xf32>) -> tensor<?x8xf32>
    attributes {gnn.train = #gnn.train<sampler = <fanouts = [5, 5], batch = 16>>} {
  %b0 = gnn.block %g layer = 0
  %h = gnn.aggregate mean %g, %x : tensor<?x8xf32> -> tensor<?x8xf32>
  // expected-error @+1 {{reads the output of layer 0 as the input of layer 0: a sampled block's sources are the previous layer's output nodes}}
  %o = gnn.aggregate mean %b0, %h : tensor<?x8xf32> -> tensor<?x8xf32>
  return %o : tensor<?x8xf32>
}

// -----

// One fanout for a two-layer model.
// expected-error @+1 {{neighbor sampling gives 1 fanout, but model Short has 2 layers of message passing: give one fanout per layer}}
func.func @Short.forward(%g: !gnn.graph, %x: tensor<?x8xf32>) -> tensor<?x8xf32>
    attributes {gnn.train = #gnn.train<sampler = <fanouts = [5], batch = 16>>} {
  %h = gnn.aggregate mean %g, %x : tensor<?x8xf32> -> tensor<?x8xf32>
  %o = gnn.aggregate mean %g, %h : tensor<?x8xf32> -> tensor<?x8xf32>
  return %o : tensor<?x8xf32>
}
