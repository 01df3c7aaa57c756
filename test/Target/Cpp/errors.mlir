// RUN: gnn-translate --gnn-to-cpp %s --split-input-file --verify-diagnostics
// RUN: not gnn-translate --gnn-to-cpp %S/Inputs/unsupported-call.mlir -o %t.cpp 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: not test -e %t.cpp

// What the C++ emitter cannot translate: each gives an error located at the
// offending op (or the module), a non-zero exit, and no output.
// EXIT: unsupported-call.mlir:8:10: error: 'func.call' op is not supported by the C++ code generator
// EXIT-NEXT: %z = func.call @helper(%y) : (tensor<?x?xf32>) -> tensor<?x?xf32>
// EXIT-NEXT: ^

// An op outside the gnn dialect has no shape rule.
module {
  func.func private @helper(tensor<?x?xf32>) -> tensor<?x?xf32>
  func.func @M.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
    // expected-error @+1 {{'func.call' op is not supported by the C++ code generator}}
    %y = func.call @helper(%x) : (tensor<?x?xf32>) -> tensor<?x?xf32>
    return %y : tensor<?x?xf32>
  }
  func.func @M.train_step(%g: !gnn.graph, %x: tensor<?x?xf32>, %labels: tensor<?xi64>, %mask: tensor<?xi1>) -> tensor<f32> {
    %l = gnn.constant 0.000000e+00 : tensor<f32>
    return %l : tensor<f32>
  }
}

// -----

// Parameter dims must be sizes the trainer knows when it runs.
module {
  // expected-error @+1 {{has a dim 'd.depth' that is not an expression in literals and a dataset's features, classes, nodes or relations}}
  gnn.parameter @M.w : tensor<?x4xf32> init glorot dims ["d.depth", "4"]
}

// -----

// The emitter needs a forward (MLIRGen makes one per train block)...
// expected-error @+1 {{no model to compile: the program has no train block}}
module {
  func.func @M.predict(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
    return %x : tensor<?x?xf32>
  }
}

// -----

// ... and its train step (gnn-autodiff makes it).
module {
  // expected-error @+1 {{internal error: no train step for M}}
  func.func @M.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
    return %x : tensor<?x?xf32>
  }
}
