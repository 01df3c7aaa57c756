// RUN: gnn-opt --gnn-autodiff %s | FileCheck %s
// RUN: not gnn-opt --gnn-autodiff --split-input-file --verify-each=false %S/Inputs/autodiff-no-param.mlir 2>&1 | FileCheck %s --check-prefix=NOPARAM

// One layer, forward and reverse: the adjoints run in reverse program order,
// matmul adjoints use BLAS transposes, dropout's adjoint is the same stream,
// a bias gets the broadcast sum, the input features get no adjoint.

gnn.parameter @M.w : tensor<5x4xf32> init glorot dims ["5", "4"]
gnn.parameter @M.b : tensor<4xf32> init zeros dims ["4"]
func.func @M.forward(%g: !gnn.graph, %x: tensor<?x5xf32>) -> tensor<?x4xf32> {
  %w = gnn.param @M.w : tensor<5x4xf32>
  %xw = gnn.matmul %x, %w : tensor<?x5xf32>, tensor<5x4xf32> -> tensor<?x4xf32>
  %h = gnn.aggregate mean %g, %xw {self_loops = true} : tensor<?x4xf32> -> tensor<?x4xf32>
  %b = gnn.param @M.b : tensor<4xf32>
  %hb = gnn.add %h, %b : tensor<?x4xf32>, tensor<4xf32> -> tensor<?x4xf32>
  %r = gnn.relu %hb : tensor<?x4xf32>
  %d = gnn.dropout %r p = 5.000000e-01 {stream = 3 : i64} : tensor<?x4xf32>
  return %d : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @M.train_step(
// CHECK-SAME:     %[[G:.+]]: !gnn.graph, %[[X:.+]]: tensor<?x5xf32>, %[[LABELS:.+]]: tensor<?xi64>, %[[MASK:.+]]: tensor<?xi1>) -> tensor<f32>
// CHECK:   %[[W:.+]] = gnn.param @M.w
// CHECK:   %[[XW:.+]] = gnn.matmul %[[X]], %[[W]]
// CHECK:   %[[H:.+]] = gnn.aggregate mean %[[G]], %[[XW]] {self_loops = true}
// CHECK:   %[[HB:.+]] = gnn.add
// CHECK:   %[[R:.+]] = gnn.relu %[[HB]]
// CHECK:   %[[D:.+]] = gnn.dropout %[[R]] p = 5.000000e-01 {stream = 3 : i64}
// CHECK:   %[[LOSS:.+]] = gnn.cross_entropy %[[D]], %[[LABELS]] mask %[[MASK]]
// CHECK:   %[[ONE:.+]] = gnn.constant 1.000000e+00
// CHECK:   %[[DD:.+]] = gnn.cross_entropy_grad %[[D]], %[[LABELS]] mask %[[MASK]], %[[ONE]]
// CHECK:   %[[DR:.+]] = gnn.dropout %[[DD]] p = 5.000000e-01 {stream = 3 : i64}
// CHECK:   %[[DHB:.+]] = gnn.unary_grad relu %[[DR]], %[[R]], %[[R]]
// CHECK:   %[[DB:.+]] = gnn.unbroadcast %[[DHB]] : tensor<?x4xf32> -> tensor<4xf32>
// CHECK:   gnn.param_grad @M.b, %[[DB]]
// CHECK:   %[[DXW:.+]] = gnn.aggregate_grad mean %[[G]], %[[DHB]], %[[XW]], %[[H]] {self_loops = true}
// CHECK:   %[[DW:.+]] = gnn.matmul %[[X]], %[[DXW]] {transpose_lhs = true} : tensor<?x5xf32>, tensor<?x4xf32> -> tensor<5x4xf32>
// CHECK:   gnn.param_grad @M.w, %[[DW]]
// CHECK-NOT: gnn.matmul
// CHECK:   return %[[LOSS]] : tensor<f32>

// NOPARAM: error: 'func.func' op the loss does not depend on any parameter
// NOPARAM: error: 'gnn.unbroadcast' op has no differentiation rule
// NOPARAM: error: 'gnn.concat' op cannot be differentiated: the size of concatenated axis 0 is not known at compile time
