// RUN: gnn-translate --gnn-to-cpp %s | FileCheck %s
// gnn.batch_norm and its adjoint are one kernel call each over the rows
// (axis 0) of their [rows, columns] view; the columns of a rank-3 tensor
// are its last two dims.
module {
  func.func @M.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %r = gnn.reshape %x : tensor<?x?xf32> -> tensor<?x2x3xf32>
    %n = gnn.batch_norm %r eps = 0.01 : tensor<?x2x3xf32>
    %d = gnn.batch_norm_grad %n, %r, %n eps = 0.01 : tensor<?x2x3xf32>
    %b = gnn.reshape %d : tensor<?x2x3xf32> -> tensor<?x6xf32>
    %y = gnn.batch_norm %b eps = 1.0e-5 : tensor<?x6xf32>
    %o = gnn.reshape %y : tensor<?x6xf32> -> tensor<?x?xf32>
    return %o : tensor<?x?xf32>
  }
  func.func @M.train_step(%g: !gnn.graph, %x: tensor<?x?xf32>, %labels: tensor<?xi64>, %mask: tensor<?xi1>) -> tensor<f32> {
    %l = gnn.constant 0.000000e+00 : tensor<f32>
    return %l : tensor<f32>
  }
}
// CHECK-LABEL: void M_forward(
// CHECK: kernels::batchNorm<T>(1, g.numDst, 6, 0.01, [[R:t[_0-9]*]], [[N:t[_0-9]*]]);
// CHECK: kernels::batchNormGrad<T>(1, g.numDst, 6, 0.01, [[N]], [[R]], [[N]], [[D:t[_0-9]*]]);
// CHECK: kernels::batchNorm<T>(1, g.numDst, 6, 1.0000000000000001e-05, {{.*}});

// With running statistics: evaluation (the forward) normalizes with them,
// a train step with the batch's, and its change of each statistic is a
// kernel call of its own.
// RUN: gnn-translate --gnn-to-cpp %S/Inputs/batch-norm-running.mlir | FileCheck %s --check-prefix=RUNNING
// RUNNING-LABEL: void M_forward(
// RUNNING: kernels::batchNormInference<T>(1, g.numDst, 4, 1.0000000000000001e-05, {{t[_0-9]*}}, norm_running_mean, norm_running_var, {{t[_0-9]*}});
// RUNNING-LABEL: M_train_step(
// RUNNING: kernels::batchNorm<T>(1, g.numDst, 4, 1.0000000000000001e-05, [[X:t[_0-9]*]], [[Y:t[_0-9]*]]);
// RUNNING: kernels::batchNormGrad<T>(1, g.numDst, 4, 1.0000000000000001e-05, {{t[_0-9]*}}, [[X]], [[Y]], {{t[_0-9]*}});
// RUNNING: kernels::batchNormRunningChange<T>(1, g.numDst, 4, false, 0.10000000000000001, [[X]], norm_running_mean, [[DM:t[_0-9]*]]);
// RUNNING: kernels::batchNormRunningChange<T>(1, g.numDst, 4, true, 0.10000000000000001, [[X]], norm_running_var, [[DV:t[_0-9]*]]);
// RUNNING: T *grad = ctx.grads[{{[0-9]+}}]; // norm.running_mean
