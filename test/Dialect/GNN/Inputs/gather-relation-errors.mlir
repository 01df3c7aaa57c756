// The verifier of gnn.gather_relation (gather-relation.mlir runs it).

func.func @rank(%g: !gnn.graph, %r: tensor<3x4xf32>) {
  // expected-error @+1 {{'gnn.gather_relation' op expects result rank 1 to match table rank 2}}
  %e = gnn.gather_relation %g, %r : tensor<3x4xf32> -> tensor<?xf32>
  return
}

// -----

func.func @width(%g: !gnn.graph, %r: tensor<3x4xf32>) {
  // expected-error @+1 {{'gnn.gather_relation' op expects result dim 1 (5) to match table dim 1 (4)}}
  %e = gnn.gather_relation %g, %r : tensor<3x4xf32> -> tensor<?x5xf32>
  return
}
