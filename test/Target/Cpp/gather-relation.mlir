// RUN: gnn-translate --gnn-to-cpp %s | FileCheck %s
// gnn.gather_relation reads a row of the relation table per pair of
// ctx.pairs (kernels::gatherRelation with the table's row count), and its
// adjoint sums them back into the table's rows.
module {
  gnn.parameter @M.r : tensor<3x4xf32> init glorot dims ["3", "4"]
  func.func @M.forward(%g: !gnn.graph, %z: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %p = gnn.pairs %g
    %r = gnn.param @M.r : tensor<3x4xf32>
    %re = gnn.gather_relation %p, %r : tensor<3x4xf32> -> tensor<?x4xf32>
    %dr = gnn.gather_relation_grad %p, %re, %r : tensor<?x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
    %e = gnn.gather_relation %p, %dr : tensor<3x4xf32> -> tensor<?x4xf32>
    return %e : tensor<?x4xf32>
  }
  func.func @M.train_step(%g: !gnn.graph, %x: tensor<?x?xf32>, %labels: tensor<?xi64>, %mask: tensor<?xi1>) -> tensor<f32> {
    %l = gnn.constant 0.000000e+00 : tensor<f32>
    return %l : tensor<f32>
  }
}
// CHECK-LABEL: void M_forward(
// CHECK: const T *[[R:[a-z_0-9]+]] = ctx.params[0];
// CHECK: T *[[RE:t[_0-9]*]] = ws.get({{[0-9]+}}, (4 * ctx.pairs.numEdges));
// CHECK-NEXT: kernels::gatherRelation<T>(ctx.pairs, [[R]], 3, 4, [[RE]]);
// CHECK: T *[[DR:t[_0-9]*]] = ws.get({{[0-9]+}}, 12);
// CHECK-NEXT: kernels::gatherRelationGrad<T>(ctx.pairs, [[RE]], 3, 4, [[DR]]);
// CHECK: kernels::gatherRelation<T>(ctx.pairs, [[DR]], 3, 4,
