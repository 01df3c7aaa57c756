// RUN: gnn-opt %s | gnn-opt | FileCheck %s
// RUN: gnn-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// Every case of the enum attributes (ReduceKind, EdgeSide, InitKind, HaloMode,
// UnaryKind) prints as its bare keyword in op assembly and as
// #gnn<kind value> in generic form.

// CHECK-LABEL: gnn.parameter @p.zeros
// CHECK-SAME: init zeros
// GENERIC: init = #gnn<init_kind zeros>
gnn.parameter @p.zeros : tensor<4xf32> init zeros dims ["4"]
// CHECK: init ones
gnn.parameter @p.ones : tensor<4xf32> init ones dims ["4"]
// CHECK: init glorot
gnn.parameter @p.glorot : tensor<4x4xf32> init glorot dims ["4", "4"]
// CHECK: init kaiming
gnn.parameter @p.kaiming : tensor<4x4xf32> init kaiming dims ["4", "4"]
// CHECK: init uniform args [-1.000000e-01, 1.000000e-01]
gnn.parameter @p.uniform : tensor<4xf32> init uniform args [-0.1, 0.1] dims ["4"]
// CHECK: init normal dims
gnn.parameter @p.normal : tensor<4xf32> init normal dims ["4"]
// CHECK: init constant args [5.000000e-01]
gnn.parameter @p.constant : tensor<4xf32> init constant args [0.5] dims ["4"]

// CHECK-LABEL: func.func @reduce_kinds
func.func @reduce_kinds(%g: !gnn.graph, %m: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>) {
  // CHECK: gnn.scatter sum
  // GENERIC: reduce = #gnn<reduce_kind sum>
  %0 = gnn.scatter sum %g, %m : tensor<?x4xf32> -> tensor<?x4xf32>
  // CHECK: gnn.scatter mean
  // GENERIC: reduce = #gnn<reduce_kind mean>
  %1 = gnn.scatter mean %g, %m : tensor<?x4xf32> -> tensor<?x4xf32>
  // CHECK: gnn.scatter max
  // GENERIC: reduce = #gnn<reduce_kind max>
  %2 = gnn.scatter max %g, %m : tensor<?x4xf32> -> tensor<?x4xf32>
  // CHECK: gnn.scatter min
  // GENERIC: reduce = #gnn<reduce_kind min>
  %3 = gnn.scatter min %g, %m : tensor<?x4xf32> -> tensor<?x4xf32>
  return %0, %1, %2, %3 : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>
}

// CHECK-LABEL: func.func @edge_sides
func.func @edge_sides(%g: !gnn.graph) -> (tensor<?x1xf32>, tensor<?x1xf32>) {
  // CHECK: gnn.degree src
  // GENERIC: side = #gnn<edge_side src>
  %0 = gnn.degree src %g : tensor<?x1xf32>
  // CHECK: gnn.degree dst
  // GENERIC: side = #gnn<edge_side dst>
  %1 = gnn.degree dst %g : tensor<?x1xf32>
  return %0, %1 : tensor<?x1xf32>, tensor<?x1xf32>
}

// How a partitioned aggregation fetches remote rows: `auto` is the default
// and is not printed.
// CHECK-LABEL: func.func @halo_modes
func.func @halo_modes(%g: !gnn.graph, %x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>) {
  // CHECK: gnn.halo_aggregate sum %{{.*}}, %{{.*}} {mode = #gnn<halo_mode sequential>}
  // GENERIC: mode = #gnn<halo_mode sequential>
  %0 = gnn.halo_aggregate sum %g, %x {mode = #gnn<halo_mode sequential>} : tensor<?x4xf32> -> tensor<?x4xf32>
  // CHECK: gnn.halo_aggregate sum %{{.*}}, %{{.*}} {mode = #gnn<halo_mode one_shot>}
  %1 = gnn.halo_aggregate sum %g, %x {mode = #gnn<halo_mode one_shot>} : tensor<?x4xf32> -> tensor<?x4xf32>
  // CHECK: gnn.halo_aggregate sum %{{.*}}, %{{.*}} :
  // GENERIC: mode = #gnn<halo_mode auto>
  %2 = gnn.halo_aggregate sum %g, %x {mode = #gnn<halo_mode auto>} : tensor<?x4xf32> -> tensor<?x4xf32>
  return %0, %1, %2 : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>
}

// Every function gnn.unary_grad differentiates.
// CHECK-LABEL: func.func @unary_kinds
func.func @unary_kinds(%d: tensor<?x4xf32>, %x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: gnn.unary_grad neg
  // GENERIC: kind = #gnn<unary_kind neg>
  %0 = gnn.unary_grad neg %d, %x, %y : tensor<?x4xf32>
  // CHECK: gnn.unary_grad exp
  %1 = gnn.unary_grad exp %0, %x, %y : tensor<?x4xf32>
  // CHECK: gnn.unary_grad log
  %2 = gnn.unary_grad log %1, %x, %y : tensor<?x4xf32>
  // CHECK: gnn.unary_grad sqrt
  %3 = gnn.unary_grad sqrt %2, %x, %y : tensor<?x4xf32>
  // CHECK: gnn.unary_grad rsqrt
  %4 = gnn.unary_grad rsqrt %3, %x, %y : tensor<?x4xf32>
  // CHECK: gnn.unary_grad relu
  %5 = gnn.unary_grad relu %4, %x, %y : tensor<?x4xf32>
  // CHECK: gnn.unary_grad sigmoid
  %6 = gnn.unary_grad sigmoid %5, %x, %y : tensor<?x4xf32>
  // CHECK: gnn.unary_grad tanh
  %7 = gnn.unary_grad tanh %6, %x, %y : tensor<?x4xf32>
  // CHECK: gnn.unary_grad abs
  %8 = gnn.unary_grad abs %7, %x, %y : tensor<?x4xf32>
  // CHECK: gnn.unary_grad leaky_relu {{.*}} {alpha = 2.000000e-01 : f64}
  %9 = gnn.unary_grad leaky_relu %8, %x, %y {alpha = 0.2} : tensor<?x4xf32>
  // CHECK: gnn.unary_grad elu {{.*}} {alpha = 1.000000e+00 : f64}
  %10 = gnn.unary_grad elu %9, %x, %y {alpha = 1.0} : tensor<?x4xf32>
  return %10 : tensor<?x4xf32>
}

// A sampler whose relations have fanouts of their own round-trips.
// CHECK-LABEL: func.func @relation_fanouts()
// CHECK-SAME: sampler = <fanouts = [5, 5], batch = 4, per_relation = true, relation_fanouts = [#gnn.relation_fanout<name = "cites", fanouts = [3, -1], where = "m.gnn:2:3">]>
func.func @relation_fanouts() attributes {gnn.train = #gnn.train<sampler = <fanouts = [5, 5], batch = 4, per_relation = true, relation_fanouts = [#gnn.relation_fanout<name = "cites", fanouts = [3, -1], where = "m.gnn:2:3">]>>} { return }
