// RUN: gnn-translate --gnn-to-cpp %s | FileCheck %s

// A gnn.matmul_map hands the GEMM an epilogue over blocks of rows [r0, r1):
// the map's loop nest restricted to the block and not parallel (each block
// is one thread's). The product is the first result's buffer, read back
// (`a0`) before the results are written.

module {
  gnn.parameter @M.w : tensor<?x16xf32> init glorot dims ["d.features", "16"]
  func.func @M.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x16xf32> {
    %w = gnn.param @M.w : tensor<?x16xf32> loc(unknown)
    %n = gnn.degree src %g : tensor<?x1xf32> loc("norm")
    %h:2 = gnn.matmul_map %x, %w (%n) : (tensor<?x?xf32>, tensor<?x16xf32>, tensor<?x1xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>) {
    ^bb0(%p: tensor<f32>, %s: tensor<f32>):
      %y = gnn.mul %s, %p : tensor<f32>, tensor<f32> -> tensor<f32> loc("y")
      %r = gnn.relu %y : tensor<f32> loc("h")
      gnn.yield %y, %r : tensor<f32>, tensor<f32>
    } loc(unknown)
    %t = gnn.matmul %h#1, %w {transpose_rhs = true} : tensor<?x16xf32>, tensor<?x16xf32> -> tensor<?x?xf32> loc("t")
    %o = gnn.matmul %x, %t {transpose_lhs = true} : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x16xf32> loc("o")
    return %o : tensor<?x16xf32> loc(unknown)
  }
  func.func @M.train_step(%g: !gnn.graph, %x: tensor<?x?xf32>, %labels: tensor<?xi64>, %mask: tensor<?xi1>) -> tensor<f32> {
    %l = gnn.constant 0.000000e+00 : tensor<f32> loc(unknown)
    return %l : tensor<f32> loc(unknown)
  }
}

// CHECK-LABEL: void M_forward(ExecContext<T> &ctx) {
// CHECK:         T *y = ws.get({{[0-9]+}}, (16 * g.numDst));
// CHECK-NEXT:    T *h = ws.get({{[0-9]+}}, (16 * g.numDst));
// CHECK-NEXT:    kernels::gemm<T>(false, false, g.numDst, 16, features, x, w, y, false, [&](int64_t r0, int64_t r1) {
// CHECK-NEXT:      for (int64_t i0 = r0; i0 < r1; ++i0) {
// CHECK-NEXT:        #pragma omp simd
// CHECK-NEXT:        for (int64_t i1 = 0; i1 < 16; ++i1) {
// CHECK-NEXT:          const T a0 = y[i1 + i0 * 16];
// CHECK-NEXT:          const T a1 = norm[i0];
// CHECK-NEXT:          const T v0 = a1 * a0;
// CHECK-NEXT:          const T v1 = std::max(v0, T(0));
// CHECK-NEXT:          y[(i0) * 16 + i1] = v0;
// CHECK-NEXT:          h[(i0) * 16 + i1] = v1;
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    });

// Plain products: the transposes are flags, the inner dim the shared one.
// CHECK-NEXT:    T *t = ws.get({{[0-9]+}}, (g.numDst * features));
// CHECK-NEXT:    kernels::gemm<T>(false, true, g.numDst, features, 16, h, w, t);
// CHECK-NEXT:    T *o = ws.get({{[0-9]+}}, (16 * features));
// CHECK-NEXT:    kernels::gemm<T>(true, false, features, 16, g.numDst, x, t, o);
