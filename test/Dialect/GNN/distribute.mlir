// RUN: gnn-opt --gnn-distribute %s | FileCheck %s

// Two GCN-like layers. The first aggregation reads the input features
// (source rows: owned and halo nodes); its result has destination rows, so
// the second aggregation reads it through one halo exchange. The row scale
// by source degrees meets a destination-row product: it is read through its
// owned prefix (gnn.dst).
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
// CHECK-NEXT: %[[XS:.*]] = gnn.mul %[[S]], %arg1
// CHECK-NEXT: %[[H:.*]] = gnn.aggregate sum %arg0, %[[XS]]
// CHECK-NEXT: %[[R:.*]] = gnn.relu %[[H]]
// CHECK-NEXT: %[[RH:.*]] = gnn.halo_exchange %arg0, %[[R]]
// CHECK-NEXT: %[[SD:.*]] = gnn.dst %arg0, %[[S]]
// CHECK-NEXT: %[[RS:.*]] = gnn.mul %[[SD]], %[[R]]
// CHECK-NEXT: %[[RSH:.*]] = gnn.halo_exchange %arg0, %[[RS]]
// CHECK-NEXT: gnn.aggregate sum %arg0, %[[RSH]]
// The gather of sources shares the exchange of %r.
// CHECK-NEXT: gnn.gather src %arg0, %[[RH]]
// CHECK-NOT:  gnn.halo_exchange
// CHECK:      return
