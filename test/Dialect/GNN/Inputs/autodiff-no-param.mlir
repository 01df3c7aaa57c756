// Not a test by itself: autodiff.mlir runs it. A model without parameters
// has nothing to train; a model whose op has no rule names the op.
func.func @Bare.forward(%g: !gnn.graph, %x: tensor<?x5xf32>) -> tensor<?x5xf32> {
  %h = gnn.aggregate sum %g, %x : tensor<?x5xf32> -> tensor<?x5xf32>
  return %h : tensor<?x5xf32>
}
