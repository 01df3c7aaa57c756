// RUN: gnn-translate --gnn-to-cpp %s | FileCheck %s

// Edge ops. An unfused gather is a kernel call; a gnn.edge_map reads node
// rows in place at the edge's endpoints `u` and `v`: without a reduction one
// row per edge, with one a row per destination that loops over its
// in-edges, so the per-edge values are never stored.

module {
  func.func @M.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %xs = gnn.gather src %g, %x : tensor<?x?xf32> -> tensor<?x?xf32> loc("xs")
    %e = gnn.edge_map %g(%x, %x) sides ["src", "dst"] : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32> {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %p = gnn.mul %a, %b : tensor<f32>, tensor<f32> -> tensor<f32> loc("score")
      gnn.yield %p : tensor<f32>
    } loc(unknown)
    %h = gnn.edge_map %g(%x, %e) sides ["src", "edge"] reduce mean : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32> {
    ^bb0(%a: tensor<f32>, %w: tensor<f32>):
      %p = gnn.mul %a, %w : tensor<f32>, tensor<f32> -> tensor<f32> loc("h")
      gnn.yield %p : tensor<f32>
    } loc(unknown)
    %s = gnn.scatter max %g, %xs : tensor<?x?xf32> -> tensor<?x?xf32> loc("s")
    %o = gnn.add %h, %s : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> loc("o")
    return %o : tensor<?x?xf32> loc(unknown)
  }
  func.func @M.train_step(%g: !gnn.graph, %x: tensor<?x?xf32>, %labels: tensor<?xi64>, %mask: tensor<?xi1>) -> tensor<f32> {
    %l = gnn.constant 0.000000e+00 : tensor<f32> loc(unknown)
    return %l : tensor<f32> loc(unknown)
  }
}

// CHECK-LABEL: void M_forward(ExecContext<T> &ctx) {
// CHECK:         T *xs = ws.get(0, (g.numEdges * features));
// CHECK-NEXT:    kernels::gather<T>(g, Side::Src, x, features, xs);

// One row per edge, in edge-id order.
// CHECK-NEXT:    T *score = ws.get(1, (g.numEdges * features));
// CHECK-NEXT:    #pragma omp parallel for schedule(dynamic, 64) if ((g.numEdges * features) > 16384)
// CHECK-NEXT:    for (int64_t i0 = 0; i0 < g.numEdges; ++i0) {
// CHECK-NEXT:      const int64_t e = i0, u = g.edgeSrc[e], v = g.edgeDst[e];
// CHECK:             for (int64_t i1 = 0; i1 < features; ++i1) {
// CHECK-NEXT:          const T a0 = x[i1 + u * features];
// CHECK-NEXT:          const T a1 = x[i1 + v * features];
// CHECK-NEXT:          const T v0 = a0 * a1;
// CHECK-NEXT:          score[(i0) * features + i1] = v0;

// A mean over each destination's in-edges; a per-edge operand is read at e.
// CHECK:         T *h = ws.get(2, (g.numDst * features));
// CHECK-NEXT:    #pragma omp parallel for schedule(dynamic, 64) if ((g.numDst * features) > 16384)
// CHECK-NEXT:    for (int64_t i0 = 0; i0 < g.numDst; ++i0) {
// CHECK-NEXT:      const int64_t v = i0;
// CHECK-NEXT:      (void)v;
// CHECK-NEXT:      std::fill((h + i0 * features), (h + i0 * features) + features, T(0));
// CHECK-NEXT:      for (int64_t e = g.inOffsets[i0]; e < g.inOffsets[i0 + 1]; ++e) {
// CHECK-NEXT:        const int64_t u = g.edgeSrc[e];
// CHECK-NEXT:        (void)u;
// CHECK-NEXT:        #pragma omp simd
// CHECK-NEXT:        for (int64_t i1 = 0; i1 < features; ++i1) {
// CHECK-NEXT:          const T a0 = x[i1 + u * features];
// CHECK-NEXT:          const T a1 = score[i1 + e * features];
// CHECK-NEXT:          const T v0 = a0 * a1;
// CHECK-NEXT:          h[(i0) * features + i1] = h[(i0) * features + i1] + v0;
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      if ((g.inOffsets[i0 + 1] - g.inOffsets[i0]) > 0)
// CHECK-NEXT:        for (int64_t j = 0; j < features; ++j)
// CHECK-NEXT:          (h + i0 * features)[j] /= T((g.inOffsets[i0 + 1] - g.inOffsets[i0]));
// CHECK-NEXT:    }
// CHECK-NEXT:    T *s = ws.get({{[0-9]+}}, (g.numDst * features));
// CHECK-NEXT:    kernels::scatter<T>(g, Reduce::Max, xs, features, s);
