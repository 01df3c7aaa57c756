// RUN: gnn-translate --gnn-to-cpp %s | FileCheck %s

// Aggregations and the distributed ops. Each halo op falls back to its
// single-process meaning when the context has no HaloExchange, and degrees
// come from the context when a distributed run passes the global ones.

module {
  func.func @M.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %d = gnn.degree dst %g : tensor<?x1xf32> loc("deg")
    %a = gnn.aggregate mean %g, %x : tensor<?x?xf32> -> tensor<?x?xf32> loc("a")
    %xs = gnn.halo_exchange %g, %a : tensor<?x?xf32> -> tensor<?x?xf32> loc("a_src")
    %h = gnn.halo_aggregate sum %g, %xs {mode = #gnn<halo_mode one_shot>, self_loops = true} : tensor<?x?xf32> -> tensor<?x?xf32> loc("h")
    %o = gnn.mul %h, %d : tensor<?x?xf32>, tensor<?x1xf32> -> tensor<?x?xf32> loc("o")
    return %o : tensor<?x?xf32> loc(unknown)
  }
  func.func @M.train_step(%g: !gnn.graph, %x: tensor<?x?xf32>, %labels: tensor<?xi64>, %mask: tensor<?xi1>) -> tensor<f32> {
    %l = gnn.constant 0.000000e+00 : tensor<f32> loc(unknown)
    return %l : tensor<f32> loc(unknown)
  }
}

// CHECK-LABEL: void M_forward(ExecContext<T> &ctx) {
// CHECK:         T *deg = ws.get({{[0-9]+}}, g.numDst);
// CHECK-NEXT:    if (ctx.dstDegree)
// CHECK-NEXT:      std::copy(ctx.dstDegree, ctx.dstDegree + g.numDst, deg);
// CHECK-NEXT:    else
// CHECK-NEXT:      kernels::degree<T>(g, Side::Dst, deg);
// CHECK-NEXT:    T *a = ws.get({{[0-9]+}}, (g.numDst * features));
// CHECK-NEXT:    kernels::aggregate<T>(g, Reduce::Mean, false, x, features, nullptr, 1, a);

// The owned rows are copied; the exchange fills the halo rows after them.
// CHECK-NEXT:    T *a_src = ws.get({{[0-9]+}}, (g.numSrc * features));
// CHECK-NEXT:    std::copy(a, a + (g.numDst * features), a_src);
// CHECK-NEXT:    if (ctx.halo)
// CHECK-NEXT:      ctx.halo->forward(a_src, features);
// CHECK-NEXT:    T *h = ws.get({{[0-9]+}}, (g.numDst * features));
// CHECK-NEXT:    if (ctx.halo)
// CHECK-NEXT:      ctx.halo->aggregate(Reduce::Sum, true, a_src, features, h, HaloMode::OneShot);
// CHECK-NEXT:    else
// CHECK-NEXT:      kernels::aggregate<T>(g, Reduce::Sum, true, a_src, features, nullptr, 1, h);
