// RUN: gnn-translate --gnn-to-cpp %s | FileCheck %s
// gnn.pairs: the pairs a link-prediction step scores are the context's
// (ctx.pairs), so gathering both ends of each gives a row per pair, and
// the output has a row per pair.
module {
  func.func @M.forward(%g: !gnn.graph, %z: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %p = gnn.pairs %g
    %u = gnn.gather src %p, %z : tensor<?x4xf32> -> tensor<?x4xf32>
    %v = gnn.gather dst %p, %z : tensor<?x4xf32> -> tensor<?x4xf32>
    %s = gnn.mul %u, %v : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
    return %s : tensor<?x4xf32>
  }
  func.func @M.train_step(%g: !gnn.graph, %x: tensor<?x?xf32>, %labels: tensor<?xi64>, %mask: tensor<?xi1>) -> tensor<f32> {
    %l = gnn.constant 0.000000e+00 : tensor<f32>
    return %l : tensor<f32>
  }
}
// CHECK-LABEL: void M_forward(
// CHECK: T *[[U:t[_0-9]*]] = ws.get({{[0-9]+}}, (4 * ctx.pairs.numEdges));
// CHECK-NEXT: kernels::gather<T>(ctx.pairs, Side::Src, x, features, [[U]]);
// CHECK: T *[[V:t[_0-9]*]] = ws.get({{[0-9]+}}, (4 * ctx.pairs.numEdges));
// CHECK-NEXT: kernels::gather<T>(ctx.pairs, Side::Dst, x, features, [[V]]);
// CHECK: std::copy({{.+}}, {{.+}} + (4 * ctx.pairs.numEdges), ctx.output);
