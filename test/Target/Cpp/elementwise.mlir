// RUN: gnn-translate --gnn-to-cpp %s | FileCheck %s

// Elementwise code: an op alone over operands of its own shape is one flat
// parallel loop; a gnn.map is one loop nest whose body evaluates the region
// on scalars (each argument loaded once), with broadcast operands indexed
// with stride 0 along the dims they stretch over, and one store per result.

module {
  gnn.parameter @M.b : tensor<?xf32> init zeros dims ["d.features"]
  func.func @M.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %b = gnn.param @M.b : tensor<?xf32> loc(unknown)
    %deg = gnn.degree dst %g : tensor<?x1xf32> loc("deg")
    %r = gnn.relu %x : tensor<?x?xf32> loc("r")
    %s:2 = gnn.map %r, %deg, %b : (tensor<?x?xf32>, tensor<?x1xf32>, tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
    ^bb0(%a: tensor<f32>, %n: tensor<f32>, %c: tensor<f32>):
      %m = gnn.mul %a, %n : tensor<f32>, tensor<f32> -> tensor<f32> loc("m")
      %y = gnn.add %m, %c : tensor<f32>, tensor<f32> -> tensor<f32> loc("y")
      %z = gnn.leaky_relu %y alpha = 2.000000e-01 : tensor<f32> loc("z")
      gnn.yield %m, %z : tensor<f32>, tensor<f32>
    } loc(unknown)
    %o = gnn.sub %s#0, %s#1 : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> loc("o")
    return %o : tensor<?x?xf32> loc(unknown)
  }
  func.func @M.train_step(%g: !gnn.graph, %x: tensor<?x?xf32>, %labels: tensor<?xi64>, %mask: tensor<?xi1>) -> tensor<f32> {
    %l = gnn.constant 0.000000e+00 : tensor<f32> loc(unknown)
    return %l : tensor<f32> loc(unknown)
  }
}

// CHECK-LABEL: void M_forward(ExecContext<T> &ctx) {
// CHECK:         T *r = ws.get(1, (g.numDst * features));
// CHECK-NEXT:    #pragma omp parallel for simd if ((g.numDst * features) > 16384)
// CHECK-NEXT:    for (int64_t i = 0; i < (g.numDst * features); ++i) {
// CHECK-NEXT:      r[i] = std::max(x[i], T(0));
// CHECK-NEXT:    }

// The map's results are named after the values they yield.
// CHECK-NEXT:    T *m = ws.get(2, (g.numDst * features));
// CHECK-NEXT:    T *z = ws.get(3, (g.numDst * features));
// CHECK-NEXT:    #pragma omp parallel for schedule(dynamic, 64) if ((g.numDst * features) > 16384)
// CHECK-NEXT:    for (int64_t i0 = 0; i0 < g.numDst; ++i0) {
// CHECK-NEXT:      #pragma omp simd
// CHECK-NEXT:      for (int64_t i1 = 0; i1 < features; ++i1) {
// CHECK-NEXT:        const T a0 = r[i1 + i0 * features];
// CHECK-NEXT:        const T a1 = deg[i0];
// CHECK-NEXT:        const T a2 = b[i1];
// CHECK-NEXT:        const T v0 = a0 * a1;
// CHECK-NEXT:        const T v1 = v0 + a2;
// CHECK-NEXT:        const T v2 = (v1 > T(0) ? v1 : T(0.20000000000000001) * v1);
// CHECK-NEXT:        m[(i0) * features + i1] = v0;
// CHECK-NEXT:        z[(i0) * features + i1] = v2;
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    T *o = ws.get({{[0-9]+}}, (g.numDst * features));
// CHECK-NEXT:    #pragma omp parallel for simd if ((g.numDst * features) > 16384)
// CHECK-NEXT:    for (int64_t i = 0; i < (g.numDst * features); ++i) {
// CHECK-NEXT:      o[i] = m[i] - z[i];
// CHECK-NEXT:    }
