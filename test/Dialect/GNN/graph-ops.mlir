// RUN: gnn-opt %s | gnn-opt | FileCheck %s
// Round-trip of the graph primitives: node/edge data movement, fused
// aggregation (with and without edge weights and self loops), edge softmax,
// degrees, the destination rows of a block, relations and per-layer blocks.

// CHECK-LABEL: func.func @gather
func.func @gather(%g: !gnn.graph, %x: tensor<?x16xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>) {
  // CHECK: gnn.gather src %{{.*}}, %{{.*}} : tensor<?x16xf32> -> tensor<?x16xf32>
  %s = gnn.gather src %g, %x : tensor<?x16xf32> -> tensor<?x16xf32>
  // CHECK: gnn.gather dst %{{.*}}, %{{.*}} : tensor<?x16xf32> -> tensor<?x16xf32>
  %d = gnn.gather dst %g, %x : tensor<?x16xf32> -> tensor<?x16xf32>
  return %s, %d : tensor<?x16xf32>, tensor<?x16xf32>
}

// CHECK-LABEL: func.func @scatter
func.func @scatter(%g: !gnn.graph, %m: tensor<?x4x8xf32>) -> tensor<?x4x8xf32> {
  // CHECK: gnn.scatter max %{{.*}}, %{{.*}} : tensor<?x4x8xf32> -> tensor<?x4x8xf32>
  %h = gnn.scatter max %g, %m : tensor<?x4x8xf32> -> tensor<?x4x8xf32>
  return %h : tensor<?x4x8xf32>
}

// CHECK-LABEL: func.func @aggregate
// CHECK-SAME: (%[[G:.+]]: !gnn.graph, %[[X:.+]]: tensor<?x8x16xf32>, %[[W:.+]]: tensor<?x8xf32>, %[[S:.+]]: tensor<?xf32>)
func.func @aggregate(%g: !gnn.graph, %x: tensor<?x8x16xf32>, %w: tensor<?x8xf32>, %s: tensor<?xf32>)
    -> (tensor<?x8x16xf32>, tensor<?x8x16xf32>, tensor<?x8x16xf32>) {
  // CHECK: gnn.aggregate sum %[[G]], %[[X]] : tensor<?x8x16xf32> -> tensor<?x8x16xf32>
  %a = gnn.aggregate sum %g, %x : tensor<?x8x16xf32> -> tensor<?x8x16xf32>
  // CHECK: gnn.aggregate mean %[[G]], %[[X]] weight %[[W]] {self_loops = true} : tensor<?x8x16xf32>, tensor<?x8xf32> -> tensor<?x8x16xf32>
  %b = gnn.aggregate mean %g, %x weight %w {self_loops = true} : tensor<?x8x16xf32>, tensor<?x8xf32> -> tensor<?x8x16xf32>
  // CHECK: gnn.aggregate max %[[G]], %[[X]] weight %[[S]] : tensor<?x8x16xf32>, tensor<?xf32> -> tensor<?x8x16xf32>
  %c = gnn.aggregate max %g, %x weight %s : tensor<?x8x16xf32>, tensor<?xf32> -> tensor<?x8x16xf32>
  return %a, %b, %c : tensor<?x8x16xf32>, tensor<?x8x16xf32>, tensor<?x8x16xf32>
}

// CHECK-LABEL: func.func @edge_softmax
func.func @edge_softmax(%g: !gnn.graph, %s: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // CHECK: gnn.edge_softmax %{{.*}}, %{{.*}} : tensor<?x8xf32>
  %a = gnn.edge_softmax %g, %s : tensor<?x8xf32>
  return %a : tensor<?x8xf32>
}

// CHECK-LABEL: func.func @degree
func.func @degree(%g: !gnn.graph) -> (tensor<?x1xf32>, tensor<?x1xf32>) {
  // CHECK: gnn.degree dst %{{.*}} : tensor<?x1xf32>
  %in = gnn.degree dst %g : tensor<?x1xf32>
  // CHECK: gnn.degree src %{{.*}} : tensor<?x1xf32>
  %out = gnn.degree src %g : tensor<?x1xf32>
  return %in, %out : tensor<?x1xf32>, tensor<?x1xf32>
}

// CHECK-LABEL: func.func @dst
func.func @dst(%g: !gnn.graph, %x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  // CHECK: gnn.dst %{{.*}}, %{{.*}} : tensor<?x16xf32> -> tensor<?x16xf32>
  %xd = gnn.dst %g, %x : tensor<?x16xf32> -> tensor<?x16xf32>
  return %xd : tensor<?x16xf32>
}

// CHECK-LABEL: func.func @relation_and_block
func.func @relation_and_block(%g: !gnn.graph) -> (!gnn.graph, !gnn.graph) {
  // CHECK: %[[R:.+]] = gnn.relation %{{.*}} "cites"
  %r = gnn.relation %g "cites"
  // CHECK: gnn.block %[[R]] layer = 2
  %b = gnn.block %r layer = 2
  // CHECK: gnn.block %{{.*}} layer = 0
  %b0 = gnn.block %g layer = 0
  return %b, %b0 : !gnn.graph, !gnn.graph
}

// CHECK-LABEL: func.func @relations
func.func @relations(%g: !gnn.graph, %x: tensor<?x16xf32>, %w: tensor<?x16x4xf32>, %t: tensor<?x?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  // CHECK: gnn.aggregate_relations mean %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x16xf32>, tensor<?x16x4xf32> -> tensor<?x4xf32>
  %h = gnn.aggregate_relations mean %g, %x, %w : tensor<?x16xf32>, tensor<?x16x4xf32> -> tensor<?x4xf32>
  // CHECK: gnn.aggregate_relation_rows sum %{{.*}}, %{{.*}} : tensor<?x?x4xf32> -> tensor<?x4xf32>
  %r = gnn.aggregate_relation_rows sum %g, %t : tensor<?x?x4xf32> -> tensor<?x4xf32>
  return %h, %r : tensor<?x4xf32>, tensor<?x4xf32>
}
