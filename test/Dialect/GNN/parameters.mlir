// RUN: gnn-opt %s | gnn-opt | FileCheck %s
// Trainable parameters: module-level gnn.parameter declarations with their
// symbolic dims, and gnn.param reads of them (with a result type that may be
// more or less static than the declaration).

// CHECK: gnn.parameter @GCN.c1.w : tensor<?x16xf32> init glorot dims ["cora.features", "16"]
gnn.parameter @GCN.c1.w : tensor<?x16xf32> init glorot dims ["cora.features", "16"]
// CHECK: gnn.parameter @GCN.c1.b : tensor<16xf32> init zeros dims ["hidden"]
gnn.parameter @GCN.c1.b : tensor<16xf32> init zeros dims ["hidden"]

// CHECK-LABEL: func.func @read
func.func @read() -> (tensor<?x16xf32>, tensor<1433x16xf32>, tensor<?xf32>) {
  // CHECK: gnn.param @GCN.c1.w : tensor<?x16xf32>
  %w = gnn.param @GCN.c1.w : tensor<?x16xf32>
  // CHECK: gnn.param @GCN.c1.w : tensor<1433x16xf32>
  %ws = gnn.param @GCN.c1.w : tensor<1433x16xf32>
  // CHECK: gnn.param @GCN.c1.b : tensor<?xf32>
  %b = gnn.param @GCN.c1.b : tensor<?xf32>
  return %w, %ws, %b : tensor<?x16xf32>, tensor<1433x16xf32>, tensor<?xf32>
}
