// A call to a function the C++ emitter cannot see into (test/Target/Cpp/
// errors.mlir checks the error, its location and the exit status).
module {
  func.func private @helper(tensor<?x?xf32>) -> tensor<?x?xf32>
  func.func @M.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %l = gnn.constant 1.000000e+00 : tensor<f32>
    %y = gnn.mul %x, %l : tensor<?x?xf32>, tensor<f32> -> tensor<?x?xf32>
    %z = func.call @helper(%y) : (tensor<?x?xf32>) -> tensor<?x?xf32>
    return %z : tensor<?x?xf32>
  }
  func.func @M.train_step(%g: !gnn.graph, %x: tensor<?x?xf32>, %labels: tensor<?xi64>, %mask: tensor<?xi1>) -> tensor<f32> {
    %l = gnn.constant 0.000000e+00 : tensor<f32>
    return %l : tensor<f32>
  }
}
