// RUN: gnn-opt %s | gnn-opt | FileCheck %s
// Round-trip of the dense tensor ops: matmul, the broadcasting binary ops,
// unary activations, axis softmaxes, dropout, scalar constants, concat,
// reshape, reduce, the cross-entropy loss and the norm penalty added to it.

// CHECK-LABEL: func.func @matmul
func.func @matmul(%x: tensor<?x16xf32>, %w: tensor<16x7xf32>) -> tensor<?x7xf32> {
  // CHECK: gnn.matmul %{{.*}}, %{{.*}} : tensor<?x16xf32>, tensor<16x7xf32> -> tensor<?x7xf32>
  %y = gnn.matmul %x, %w : tensor<?x16xf32>, tensor<16x7xf32> -> tensor<?x7xf32>
  return %y : tensor<?x7xf32>
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[X:.+]]: tensor<?x16xf32>, %[[B:.+]]: tensor<16xf32>, %[[D:.+]]: tensor<?x1xf32>, %[[S:.+]]: tensor<f32>)
func.func @binary(%x: tensor<?x16xf32>, %b: tensor<16xf32>, %d: tensor<?x1xf32>, %s: tensor<f32>) -> tensor<?x16xf32> {
  // CHECK: %[[A:.+]] = gnn.add %[[X]], %[[B]] : tensor<?x16xf32>, tensor<16xf32> -> tensor<?x16xf32>
  %0 = gnn.add %x, %b : tensor<?x16xf32>, tensor<16xf32> -> tensor<?x16xf32>
  // CHECK: %[[M:.+]] = gnn.mul %[[D]], %[[A]] : tensor<?x1xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %1 = gnn.mul %d, %0 : tensor<?x1xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  // CHECK: %[[U:.+]] = gnn.sub %[[M]], %[[S]] : tensor<?x16xf32>, tensor<f32> -> tensor<?x16xf32>
  %2 = gnn.sub %1, %s : tensor<?x16xf32>, tensor<f32> -> tensor<?x16xf32>
  // CHECK: %[[V:.+]] = gnn.div %[[U]], %[[D]] : tensor<?x16xf32>, tensor<?x1xf32> -> tensor<?x16xf32>
  %3 = gnn.div %2, %d : tensor<?x16xf32>, tensor<?x1xf32> -> tensor<?x16xf32>
  // CHECK: gnn.maximum %[[V]], %[[S]] : tensor<?x16xf32>, tensor<f32> -> tensor<?x16xf32>
  %4 = gnn.maximum %3, %s : tensor<?x16xf32>, tensor<f32> -> tensor<?x16xf32>
  return %4 : tensor<?x16xf32>
}

// CHECK-LABEL: func.func @broadcast_both_sides
func.func @broadcast_both_sides(%c: tensor<?x1xf32>, %r: tensor<1x8xf32>) -> tensor<?x8xf32> {
  // CHECK: gnn.add %{{.*}}, %{{.*}} : tensor<?x1xf32>, tensor<1x8xf32> -> tensor<?x8xf32>
  %0 = gnn.add %c, %r : tensor<?x1xf32>, tensor<1x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  // CHECK: gnn.neg %{{.*}} : tensor<?x16xf32>
  %0 = gnn.neg %x : tensor<?x16xf32>
  // CHECK-NEXT: gnn.exp
  %1 = gnn.exp %0 : tensor<?x16xf32>
  // CHECK-NEXT: gnn.log
  %2 = gnn.log %1 : tensor<?x16xf32>
  // CHECK-NEXT: gnn.sqrt
  %3 = gnn.sqrt %2 : tensor<?x16xf32>
  // CHECK-NEXT: gnn.rsqrt
  %4 = gnn.rsqrt %3 : tensor<?x16xf32>
  // CHECK-NEXT: gnn.relu
  %5 = gnn.relu %4 : tensor<?x16xf32>
  // CHECK-NEXT: gnn.sigmoid
  %6 = gnn.sigmoid %5 : tensor<?x16xf32>
  // CHECK-NEXT: gnn.tanh
  %7 = gnn.tanh %6 : tensor<?x16xf32>
  // CHECK-NEXT: gnn.abs
  %8 = gnn.abs %7 : tensor<?x16xf32>
  // CHECK-NEXT: gnn.leaky_relu %{{.*}} alpha = 2.000000e-01 : tensor<?x16xf32>
  %9 = gnn.leaky_relu %8 alpha = 0.2 : tensor<?x16xf32>
  // CHECK-NEXT: gnn.elu %{{.*}} alpha = 1.000000e+00 : tensor<?x16xf32>
  %10 = gnn.elu %9 alpha = 1.0 : tensor<?x16xf32>
  return %10 : tensor<?x16xf32>
}

// CHECK-LABEL: func.func @softmax_dropout
func.func @softmax_dropout(%x: tensor<?x7xf32>) -> (tensor<?x7xf32>, tensor<?x7xf32>) {
  // CHECK: gnn.dropout %{{.*}} p = 5.000000e-01 : tensor<?x7xf32>
  %d = gnn.dropout %x p = 0.5 : tensor<?x7xf32>
  // CHECK: gnn.softmax %{{.*}} axis = 1 : tensor<?x7xf32>
  %s = gnn.softmax %d axis = 1 : tensor<?x7xf32>
  // CHECK: gnn.log_softmax %{{.*}} axis = 0 : tensor<?x7xf32>
  %l = gnn.log_softmax %x axis = 0 : tensor<?x7xf32>
  return %s, %l : tensor<?x7xf32>, tensor<?x7xf32>
}

// CHECK-LABEL: func.func @batch_norm
func.func @batch_norm(%x: tensor<?x7xf32>, %dy: tensor<?x7xf32>) -> tensor<?x7xf32> {
  // CHECK: %[[Y:.*]] = gnn.batch_norm %{{.*}} eps = 1.000000e-05 : tensor<?x7xf32>
  %y = gnn.batch_norm %x eps = 1.0e-5 : tensor<?x7xf32>
  // CHECK: gnn.batch_norm_grad %{{.*}}, %{{.*}}, %[[Y]] eps = 1.000000e-05 : tensor<?x7xf32>
  %dx = gnn.batch_norm_grad %dy, %x, %y eps = 1.0e-5 : tensor<?x7xf32>
  return %dx : tensor<?x7xf32>
}

// CHECK-LABEL: func.func @batch_norm_running
func.func @batch_norm_running(%x: tensor<?x7xf32>, %m: tensor<7xf32>, %v: tensor<7xf32>) -> (tensor<?x7xf32>, tensor<7xf32>, tensor<7xf32>) {
  // CHECK: gnn.batch_norm %{{.*}} running %{{.*}}, %{{.*}} : tensor<7xf32>, tensor<7xf32> eps = 1.000000e-05 momentum = 1.000000e-01 : tensor<?x7xf32>
  %y = gnn.batch_norm %x running %m, %v : tensor<7xf32>, tensor<7xf32> eps = 1.0e-5 momentum = 0.1 : tensor<?x7xf32>
  // CHECK: gnn.batch_norm_running %{{.*}}, %{{.*}} momentum = 1.000000e-01 : tensor<?x7xf32>, tensor<7xf32>
  %dm = gnn.batch_norm_running %x, %m momentum = 0.1 : tensor<?x7xf32>, tensor<7xf32>
  // CHECK: gnn.batch_norm_running %{{.*}}, %{{.*}} variance momentum = 1.000000e-01 : tensor<?x7xf32>, tensor<7xf32>
  %dv = gnn.batch_norm_running %x, %v variance momentum = 0.1 : tensor<?x7xf32>, tensor<7xf32>
  return %y, %dm, %dv : tensor<?x7xf32>, tensor<7xf32>, tensor<7xf32>
}

// CHECK-LABEL: func.func @constant
func.func @constant() -> tensor<f32> {
  // CHECK: gnn.constant 1.000000e+00 : tensor<f32>
  %c = gnn.constant 1.0 : tensor<f32>
  return %c : tensor<f32>
}

// CHECK-LABEL: func.func @concat_reshape_reduce
func.func @concat_reshape_reduce(%a: tensor<?x8xf32>, %b: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // CHECK: gnn.concat %{{.*}}, %{{.*}} axis = 1 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x16xf32>
  %c = gnn.concat %a, %b axis = 1 : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x16xf32>
  // CHECK: gnn.reshape %{{.*}} : tensor<?x16xf32> -> tensor<?x2x8xf32>
  %r = gnn.reshape %c : tensor<?x16xf32> -> tensor<?x2x8xf32>
  // CHECK: gnn.reduce mean %{{.*}} axis = 1 : tensor<?x2x8xf32> -> tensor<?x8xf32>
  %m = gnn.reduce mean %r axis = 1 : tensor<?x2x8xf32> -> tensor<?x8xf32>
  return %m : tensor<?x8xf32>
}

// CHECK-LABEL: func.func @cross_entropy
// CHECK-SAME: (%[[L:.+]]: tensor<?x7xf32>, %[[Y:.+]]: tensor<?xi64>, %[[M:.+]]: tensor<?xi1>)
func.func @cross_entropy(%logits: tensor<?x7xf32>, %labels: tensor<?xi64>, %mask: tensor<?xi1>) -> (tensor<f32>, tensor<f32>) {
  // CHECK: gnn.cross_entropy %[[L]], %[[Y]] : tensor<?x7xf32>, tensor<?xi64> -> tensor<f32>
  %0 = gnn.cross_entropy %logits, %labels : tensor<?x7xf32>, tensor<?xi64> -> tensor<f32>
  // CHECK: gnn.cross_entropy %[[L]], %[[Y]] mask %[[M]] : tensor<?x7xf32>, tensor<?xi64>, tensor<?xi1> -> tensor<f32>
  %1 = gnn.cross_entropy %logits, %labels mask %mask : tensor<?x7xf32>, tensor<?xi64>, tensor<?xi1> -> tensor<f32>
  return %0, %1 : tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @norm_penalty
// CHECK-SAME: (%[[LOSS:.+]]: tensor<f32>, %[[R:.+]]: tensor<?x8xf32>)
func.func @norm_penalty(%loss: tensor<f32>, %rows: tensor<?x8xf32>) -> (tensor<f32>, tensor<?x8xf32>) {
  // CHECK: gnn.norm_penalty %[[LOSS]], %[[R]] power = 3 weight = 1.000000e-01 : tensor<f32>, tensor<?x8xf32> -> tensor<f32>
  %0 = gnn.norm_penalty %loss, %rows power = 3 weight = 0.1 : tensor<f32>, tensor<?x8xf32> -> tensor<f32>
  // CHECK: gnn.norm_penalty_grad %[[R]], %[[LOSS]] power = 2 weight = 5.000000e-01 : tensor<?x8xf32>, tensor<f32> -> tensor<?x8xf32>
  %1 = gnn.norm_penalty_grad %rows, %loss power = 2 weight = 0.5 : tensor<?x8xf32>, tensor<f32> -> tensor<?x8xf32>
  return %0, %1 : tensor<f32>, tensor<?x8xf32>
}
