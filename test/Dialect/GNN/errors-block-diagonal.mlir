// RUN: gnn-opt %s -split-input-file -verify-diagnostics
// The block-diagonal ops' verifiers name the shapes that do not fit.

func.func @block_diagonal_rank(%q: tensor<?x4x4xf32>) -> tensor<?x16x16xf32> {
  // expected-error @+1 {{'gnn.block_diagonal' op operand #0 must be 4D tensor of 32-bit float values}}
  %w = gnn.block_diagonal %q : tensor<?x4x4xf32> -> tensor<?x16x16xf32>
  return %w : tensor<?x16x16xf32>
}

// -----

func.func @block_diagonal_width(%q: tensor<?x4x2x3xf32>) -> tensor<?x8x8xf32> {
  // expected-error @+1 {{'gnn.block_diagonal' op expects matrices [?, 8, 8] to have blocks [?, 4, 2, 3] on their diagonal, i.e. [?, 8, 12]}}
  %w = gnn.block_diagonal %q : tensor<?x4x2x3xf32> -> tensor<?x8x8xf32>
  return %w : tensor<?x8x8xf32>
}

// -----

func.func @block_diagonal_relations(%q: tensor<5x4x2x3xf32>) -> tensor<6x8x12xf32> {
  // expected-error @+1 {{'gnn.block_diagonal' op expects matrices [6, 8, 12] to have blocks [5, 4, 2, 3] on their diagonal, i.e. [5, 8, 12]}}
  %w = gnn.block_diagonal %q : tensor<5x4x2x3xf32> -> tensor<6x8x12xf32>
  return %w : tensor<6x8x12xf32>
}

// -----

func.func @diagonal_blocks_result(%dw: tensor<?x8x12xf32>, %q: tensor<?x4x2x3xf32>) -> tensor<?x4x3x2xf32> {
  // expected-error @+1 {{'gnn.diagonal_blocks' op expects the result [?, 4, 3, 2] to match the blocks [?, 4, 2, 3]}}
  %dq = gnn.diagonal_blocks %dw like %q : tensor<?x8x12xf32>, tensor<?x4x2x3xf32> -> tensor<?x4x3x2xf32>
  return %dq : tensor<?x4x3x2xf32>
}

// -----

func.func @diagonal_blocks_input(%dw: tensor<?x8x8xf32>, %q: tensor<?x4x2x3xf32>) -> tensor<?x4x2x3xf32> {
  // expected-error @+1 {{'gnn.diagonal_blocks' op expects matrices [?, 8, 8] to have blocks [?, 4, 2, 3] on their diagonal, i.e. [?, 8, 12]}}
  %dq = gnn.diagonal_blocks %dw like %q : tensor<?x8x8xf32>, tensor<?x4x2x3xf32> -> tensor<?x4x2x3xf32>
  return %dq : tensor<?x4x2x3xf32>
}
