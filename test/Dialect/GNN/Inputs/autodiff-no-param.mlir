// Not a test by itself: autodiff.mlir runs it. A model without parameters
// has nothing to train; a model whose op has no rule names the op.
func.func @Bare.forward(%g: !gnn.graph, %x: tensor<?x5xf32>) -> tensor<?x5xf32> {
  %h = gnn.aggregate sum %g, %x : tensor<?x5xf32> -> tensor<?x5xf32>
  return %h : tensor<?x5xf32>
}

// -----

// An op without a DifferentiableOpInterface between a parameter and the loss.
gnn.parameter @NoRule.w : tensor<4x5xf32> init glorot dims ["4", "5"]
func.func @NoRule.forward(%g: !gnn.graph, %x: tensor<?x5xf32>) -> tensor<?x5xf32> {
  %w = gnn.param @NoRule.w : tensor<4x5xf32>
  %b = gnn.unbroadcast %w : tensor<4x5xf32> -> tensor<5xf32>
  %y = gnn.add %x, %b : tensor<?x5xf32>, tensor<5xf32> -> tensor<?x5xf32>
  return %y : tensor<?x5xf32>
}

// -----

// A concat's adjoint slices dy at static offsets.
gnn.parameter @Dynamic.w : tensor<5x5xf32> init glorot dims ["5", "5"]
func.func @Dynamic.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %w = gnn.param @Dynamic.w : tensor<5x5xf32>
  %c = gnn.concat %x, %w axis = 0 : tensor<?x?xf32>, tensor<5x5xf32> -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
