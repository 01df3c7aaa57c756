// RUN: gnn-opt %s -cse | FileCheck %s
// Pure gnn ops are merged by CSE; gnn.dropout is not pure (each draws its own
// random mask), so two dropouts of the same value must both survive.

// CHECK-LABEL: func.func @cse
func.func @cse(%g: !gnn.graph, %x: tensor<?x16xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>) {
  // CHECK: %[[A:.+]] = gnn.aggregate sum
  // CHECK-NOT: gnn.aggregate
  %a0 = gnn.aggregate sum %g, %x : tensor<?x16xf32> -> tensor<?x16xf32>
  %a1 = gnn.aggregate sum %g, %x : tensor<?x16xf32> -> tensor<?x16xf32>
  // CHECK: %[[D0:.+]] = gnn.dropout %[[A]]
  // CHECK: %[[D1:.+]] = gnn.dropout %[[A]]
  %d0 = gnn.dropout %a0 p = 0.5 : tensor<?x16xf32>
  %d1 = gnn.dropout %a1 p = 0.5 : tensor<?x16xf32>
  // CHECK: return %[[A]], %[[A]], %[[D0]], %[[D1]]
  return %a0, %a1, %d0, %d1 : tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>
}
