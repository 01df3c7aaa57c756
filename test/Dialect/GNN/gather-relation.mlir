// RUN: gnn-opt %s | gnn-opt | FileCheck %s --check-prefix=ROUND
// RUN: gnn-opt --gnn-autodiff %s | FileCheck %s --check-prefix=GRAD
// RUN: gnn-opt %S/Inputs/gather-relation-errors.mlir -split-input-file -verify-diagnostics
// gnn.gather_relation: a row of a per-relation table for each edge (a
// knowledge graph's pair) by its relation; its adjoint sums the edge rows'
// gradients into the relation rows (gnn.gather_relation_grad, shaped as the
// table).

gnn.parameter @M.r : tensor<3x4xf32> init glorot dims ["3", "4"]
func.func @M.forward(%g: !gnn.graph, %x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %p = gnn.pairs %g
  %r = gnn.param @M.r : tensor<3x4xf32>
  %re = gnn.gather_relation %p, %r : tensor<3x4xf32> -> tensor<?x4xf32>
  %u = gnn.gather src %p, %x : tensor<?x4xf32> -> tensor<?x4xf32>
  %s = gnn.mul %u, %re : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}

// ROUND: %[[RE:.+]] = gnn.gather_relation %{{.+}}, %{{.+}} : tensor<3x4xf32> -> tensor<?x4xf32>

// GRAD-LABEL: func.func @M.train_step(
// GRAD: %[[P:.+]] = gnn.pairs
// GRAD: %[[R:.+]] = gnn.param @M.r : tensor<3x4xf32>
// GRAD: gnn.gather_relation %[[P]], %[[R]]
// GRAD: %[[DR:.+]] = gnn.gather_relation_grad %[[P]], %{{.+}}, %[[R]] : tensor<?x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
// GRAD: gnn.param_grad @M.r, %[[DR]]
