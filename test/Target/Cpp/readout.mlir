// RUN: gnn-translate --gnn-to-cpp %s | FileCheck %s
// gnn.readout: the batch's readout graph is the context's (ctx.readout), so
// a pooling is an aggregation over it with a row per graph, and the broadcast
// back (a gather from its destinations) has a row per node.
module {
  func.func @M.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %r = gnn.readout %g
    %p = gnn.aggregate mean %r, %x : tensor<?x?xf32> -> tensor<?x?xf32>
    %b = gnn.gather dst %r, %p : tensor<?x?xf32> -> tensor<?x?xf32>
    %q = gnn.aggregate max %r, %b : tensor<?x?xf32> -> tensor<?x?xf32>
    return %q : tensor<?x?xf32>
  }
  func.func @M.train_step(%g: !gnn.graph, %x: tensor<?x?xf32>, %labels: tensor<?xi64>, %mask: tensor<?xi1>) -> tensor<f32> {
    %l = gnn.constant 0.000000e+00 : tensor<f32>
    return %l : tensor<f32>
  }
}
// CHECK-LABEL: void M_forward(
// CHECK: T *[[P:t[_0-9]*]] = ws.get({{[0-9]+}}, (ctx.readout.numDst * features));
// CHECK-NEXT: kernels::aggregate<T>(ctx.readout, Reduce::Mean, false, x, features, nullptr, 1, [[P]]);
// CHECK: T *[[B:t[_0-9]*]] = ws.get({{[0-9]+}}, (ctx.readout.numEdges * features));
// CHECK-NEXT: kernels::gather<T>(ctx.readout, Side::Dst, [[P]], features, [[B]]);
// CHECK: kernels::aggregate<T>(ctx.readout, Reduce::Max, false, [[B]], features, nullptr, 1, [[Q:t[_0-9]*]]);
// CHECK: std::copy([[Q]], [[Q]] + (ctx.readout.numDst * features), ctx.output);
