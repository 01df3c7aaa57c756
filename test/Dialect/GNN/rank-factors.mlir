// RUN: gnn-opt --gnn-rank-factors %s | FileCheck %s

// DistMult on a knowledge graph: the entity rows, the relation table and
// the entity rows again, in the order a ranking multiplies them; the pairs,
// the gathers and the link head are gone from the copy.
// CHECK-LABEL: func.func @DistMult.forward
// CHECK-LABEL: func.func @DistMult.rank_factors(%arg0: !gnn.graph, %arg1: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
// CHECK-NEXT:  %[[R:.*]] = gnn.param @DistMult.r : tensor<?x?xf32>
// CHECK-NEXT:  return %arg1, %[[R]], %arg1
gnn.parameter @DistMult.r : tensor<?x?xf32> init glorot dims ["wn.relations", "wn.features"]
func.func @DistMult.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x2xf32> attributes {gnn.train = #gnn.train<dataset = "wn", source = kg>} {
  %p = gnn.pairs %g
  %s = gnn.gather src %p, %x : tensor<?x?xf32> -> tensor<?x?xf32>
  %w = gnn.param @DistMult.r : tensor<?x?xf32>
  %r = gnn.gather_relation %p, %w : tensor<?x?xf32> -> tensor<?x?xf32>
  %sr = gnn.mul %s, %r : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %d = gnn.gather dst %p, %x : tensor<?x?xf32> -> tensor<?x?xf32>
  %m = gnn.mul %sr, %d : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %y = gnn.reduce sum %m axis = 1 : tensor<?x?xf32> -> tensor<?xf32>
  %c = gnn.reshape %y : tensor<?xf32> -> tensor<?x1xf32>
  %zero = gnn.constant 0.000000e+00 : tensor<f32>
  %z = gnn.mul %c, %zero : tensor<?x1xf32>, tensor<f32> -> tensor<?x1xf32>
  %l = gnn.concat %z, %c axis = 1 : tensor<?x1xf32>, tensor<?x1xf32> -> tensor<?x2xf32>
  return %l : tensor<?x2xf32>
}

// An encoder's node rows (here x W) and a dot product, the destination's
// gather first: two factors, computed as the forward computes them.
// CHECK-LABEL: func.func @Dot.forward
// CHECK-LABEL: func.func @Dot.rank_factors(%arg0: !gnn.graph, %arg1: tensor<?x?xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>)
// CHECK-NEXT:  %[[W:.*]] = gnn.param @Dot.w
// CHECK-NEXT:  %[[H:.*]] = gnn.matmul %arg1, %[[W]]
// CHECK-NEXT:  return %[[H]], %[[H]]
gnn.parameter @Dot.w : tensor<?x16xf32> init glorot dims ["wn.features", "16"]
func.func @Dot.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x2xf32> attributes {gnn.train = #gnn.train<dataset = "wn", source = kg>} {
  %w = gnn.param @Dot.w : tensor<?x16xf32>
  %h = gnn.matmul %x, %w : tensor<?x?xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %p = gnn.pairs %g
  %d = gnn.gather dst %p, %h : tensor<?x16xf32> -> tensor<?x16xf32>
  %s = gnn.gather src %p, %h : tensor<?x16xf32> -> tensor<?x16xf32>
  %m = gnn.mul %d, %s : tensor<?x16xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %c = gnn.reduce sum %m axis = 1 : tensor<?x16xf32> -> tensor<?xf32>
  %zero = gnn.constant 0.000000e+00 : tensor<f32>
  %y = gnn.reshape %c : tensor<?xf32> -> tensor<?x1xf32>
  %z = gnn.mul %y, %zero : tensor<?x1xf32>, tensor<f32> -> tensor<?x1xf32>
  %l = gnn.concat %z, %y axis = 1 : tensor<?x1xf32>, tensor<?x1xf32> -> tensor<?x2xf32>
  return %l : tensor<?x2xf32>
}

// Left alone: a score scaled before the sum (a product the ranking does
// not factor). A dot product on data that is no knowledge graph (a GAE's)
// gets its factors too: the node rows --embeddings writes.
// CHECK-NOT: rank_factors
// CHECK: func.func @Cora.forward
// CHECK: func.func @Cora.rank_factors(%arg0: !gnn.graph, %arg1: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
// CHECK-NEXT: return %arg1, %arg1
func.func @Scaled.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x2xf32> attributes {gnn.train = #gnn.train<dataset = "wn", source = kg>} {
  %p = gnn.pairs %g
  %s = gnn.gather src %p, %x : tensor<?x?xf32> -> tensor<?x?xf32>
  %d = gnn.gather dst %p, %x : tensor<?x?xf32> -> tensor<?x?xf32>
  %m = gnn.mul %s, %d : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %two = gnn.constant 2.000000e+00 : tensor<f32>
  %m2 = gnn.mul %m, %two : tensor<?x?xf32>, tensor<f32> -> tensor<?x?xf32>
  %c = gnn.reduce sum %m2 axis = 1 : tensor<?x?xf32> -> tensor<?xf32>
  %y = gnn.reshape %c : tensor<?xf32> -> tensor<?x1xf32>
  %zero = gnn.constant 0.000000e+00 : tensor<f32>
  %z = gnn.mul %y, %zero : tensor<?x1xf32>, tensor<f32> -> tensor<?x1xf32>
  %l = gnn.concat %z, %y axis = 1 : tensor<?x1xf32>, tensor<?x1xf32> -> tensor<?x2xf32>
  return %l : tensor<?x2xf32>
}
func.func @Cora.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x2xf32> attributes {gnn.train = #gnn.train<dataset = "cora">} {
  %p = gnn.pairs %g
  %s = gnn.gather src %p, %x : tensor<?x?xf32> -> tensor<?x?xf32>
  %d = gnn.gather dst %p, %x : tensor<?x?xf32> -> tensor<?x?xf32>
  %m = gnn.mul %s, %d : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %c = gnn.reduce sum %m axis = 1 : tensor<?x?xf32> -> tensor<?xf32>
  %y = gnn.reshape %c : tensor<?xf32> -> tensor<?x1xf32>
  %zero = gnn.constant 0.000000e+00 : tensor<f32>
  %z = gnn.mul %y, %zero : tensor<?x1xf32>, tensor<f32> -> tensor<?x1xf32>
  %l = gnn.concat %z, %y axis = 1 : tensor<?x1xf32>, tensor<?x1xf32> -> tensor<?x2xf32>
  return %l : tensor<?x2xf32>
}

// On a rank (after gnn-distribute) the sources' rows come through the
// pairs' halo exchange: the factor is the exchanged value, the node rows.
// CHECK-LABEL: func.func @RankDot.rank_factors(%arg0: !gnn.graph, %arg1: tensor<?x?xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>)
// CHECK-NEXT:  %[[W:.*]] = gnn.param @RankDot.w
// CHECK-NEXT:  %[[H:.*]] = gnn.matmul %arg1, %[[W]]
// CHECK-NEXT:  return %[[H]], %[[H]]
gnn.parameter @RankDot.w : tensor<?x16xf32> init glorot dims ["wn.features", "16"]
func.func @RankDot.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x2xf32> attributes {gnn.train = #gnn.train<dataset = "wn", source = kg>} {
  %w = gnn.param @RankDot.w : tensor<?x16xf32>
  %h = gnn.matmul %x, %w : tensor<?x?xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %p = gnn.pairs %g
  %hp = gnn.halo_exchange %p, %h : tensor<?x16xf32> -> tensor<?x16xf32>
  %s = gnn.gather src %p, %hp : tensor<?x16xf32> -> tensor<?x16xf32>
  %d = gnn.gather dst %p, %h : tensor<?x16xf32> -> tensor<?x16xf32>
  %m = gnn.mul %s, %d : tensor<?x16xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %y = gnn.reduce sum %m axis = 1 : tensor<?x16xf32> -> tensor<?xf32>
  %c = gnn.reshape %y : tensor<?xf32> -> tensor<?x1xf32>
  %zero = gnn.constant 0.000000e+00 : tensor<f32>
  %z = gnn.mul %c, %zero : tensor<?x1xf32>, tensor<f32> -> tensor<?x1xf32>
  %l = gnn.concat %z, %c axis = 1 : tensor<?x1xf32>, tensor<?x1xf32> -> tensor<?x2xf32>
  return %l : tensor<?x2xf32>
}
