// RUN: gnn-opt --gnn-distribute %s | FileCheck %s

// Two GCN-like layers. A rank holds its owned rows of the input features
// (destination space); source-degree scaling reads its owned prefix
// (gnn.dst, made once). Each sum of destination rows becomes one
// gnn.halo_aggregate (exchange fused with the aggregation; the runtime
// picks one-shot or one part at a time), while the gather of sources reads
// its input through a halo exchange.
// CHECK-LABEL: func.func @M.forward
func.func @M.forward(%g: !gnn.graph, %x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %s = gnn.degree src %g : tensor<?x1xf32>
  %xs = gnn.mul %s, %x : tensor<?x1xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %h = gnn.aggregate sum %g, %xs : tensor<?x8xf32> -> tensor<?x8xf32>
  %r = gnn.relu %h : tensor<?x8xf32>
  %rs = gnn.mul %s, %r : tensor<?x1xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %y = gnn.aggregate sum %g, %rs : tensor<?x8xf32> -> tensor<?x8xf32>
  %e = gnn.gather src %g, %r : tensor<?x8xf32> -> tensor<?x8xf32>
  %z = gnn.scatter sum %g, %e : tensor<?x8xf32> -> tensor<?x8xf32>
  %out = gnn.add %y, %z : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  return %out : tensor<?x8xf32>
}
// CHECK:      %[[S:.*]] = gnn.degree src
// CHECK-NEXT: %[[SD:.*]] = gnn.dst %arg0, %[[S]]
// CHECK-NEXT: %[[XS:.*]] = gnn.mul %[[SD]], %arg1
// CHECK-NEXT: %[[H:.*]] = gnn.halo_aggregate sum %arg0, %[[XS]]
// CHECK-NEXT: %[[R:.*]] = gnn.relu %[[H]]
// CHECK-NEXT: %[[RH:.*]] = gnn.halo_exchange %arg0, %[[R]]
// CHECK-NEXT: %[[RS:.*]] = gnn.mul %[[SD]], %[[R]]
// CHECK-NEXT: gnn.halo_aggregate sum %arg0, %[[RS]]
// CHECK-NEXT: gnn.gather src %arg0, %[[RH]]
// CHECK-NOT:  gnn.halo_exchange
// CHECK-NOT:  gnn.dst
// CHECK:      return

// A block made after the rows its aggregation reads (MLIRGen emits g[2] at
// its call): the exchange goes after both, so it dominates its uses.
// CHECK-LABEL: func.func @Late.forward
// CHECK: %[[H:.+]] = gnn.add
// CHECK-NEXT: %[[B:.+]] = gnn.block %{{.+}} layer = 1
// CHECK-NEXT: gnn.halo_exchange %[[B]], %[[H]]
func.func @Late.forward(%g: !gnn.graph, %x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %b0 = gnn.block %g layer = 0
  %a = gnn.aggregate sum %b0, %x : tensor<?x8xf32> -> tensor<?x8xf32>
  %h = gnn.add %a, %a : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %b1 = gnn.block %g layer = 1
  %y = gnn.aggregate max %b1, %h : tensor<?x8xf32> -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// Link prediction: a rank scores the pairs whose destination it owns. The
// gather of their destinations reads owned rows; the gather of their
// sources reads through an exchange over the pairs graph (the pairs' own
// halo, apart from the graph's), and the scores keep a row per pair.
// CHECK-LABEL: func.func @Gae.forward
// CHECK:      %[[Z:.*]] = gnn.halo_aggregate sum %arg0
// CHECK-NEXT: %[[P:.*]] = gnn.pairs %arg0
// CHECK-NEXT: %[[ZP:.*]] = gnn.halo_exchange %[[P]], %[[Z]]
// CHECK-NEXT: gnn.gather src %[[P]], %[[ZP]]
// CHECK-NEXT: gnn.gather dst %[[P]], %[[Z]]
// CHECK-NOT:  gnn.halo_exchange
// CHECK-NOT:  gnn.dst
// CHECK:      return
func.func @Gae.forward(%g: !gnn.graph, %x: tensor<?x8xf32>) -> tensor<?x8xf32> attributes {gnn.train = #gnn.train<dataset = "cora", links = <negatives = 1>>} {
  %z = gnn.aggregate sum %g, %x : tensor<?x8xf32> -> tensor<?x8xf32>
  %p = gnn.pairs %g
  %s = gnn.gather src %p, %z : tensor<?x8xf32> -> tensor<?x8xf32>
  %d = gnn.gather dst %p, %z : tensor<?x8xf32> -> tensor<?x8xf32>
  %m = gnn.mul %s, %d : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  return %m : tensor<?x8xf32>
}
