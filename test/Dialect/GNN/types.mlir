// RUN: gnn-opt %s | gnn-opt | FileCheck %s
// RUN: gnn-opt %s --mlir-print-op-generic | gnn-opt | FileCheck %s
// The !gnn.graph type round-trips in function signatures, as op results and
// through the generic form.

// CHECK-LABEL: func.func @signature
// CHECK-SAME: (%{{.*}}: !gnn.graph) -> !gnn.graph
func.func @signature(%g: !gnn.graph) -> !gnn.graph {
  return %g : !gnn.graph
}

// CHECK-LABEL: func.func @result
func.func @result(%g: !gnn.graph) -> !gnn.graph {
  // CHECK: %[[B:.+]] = gnn.block %{{.*}} layer = 1
  // CHECK: return %[[B]] : !gnn.graph
  %b = gnn.block %g layer = 1
  return %b : !gnn.graph
}
