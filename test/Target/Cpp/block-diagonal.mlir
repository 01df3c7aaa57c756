// RUN: gnn-translate --gnn-to-cpp %s | FileCheck %s
// gnn.block_diagonal and its adjoint gnn.diagonal_blocks are gnnrt calls
// over [matrices, blocks, rows, columns] (the blocks' dims); a block width
// that is a quotient of the dataset's width, `(d.features/4)`, is checked
// to divide before the parameters are allocated.
module {
  gnn.parameter @M.q : tensor<?x4x?x3xf32> init glorot dims ["d.relations", "4", "(d.features/4)", "3"]
  func.func @M.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x12xf32> attributes {gnn.train = #gnn.train<dataset = "d", settings = {epochs = 1 : i64}>} {
    %q = gnn.param @M.q : tensor<?x4x?x3xf32>
    %w = gnn.block_diagonal %q : tensor<?x4x?x3xf32> -> tensor<?x?x12xf32> loc("w")
    %h = gnn.aggregate_relations mean %g, %x, %w : tensor<?x?xf32>, tensor<?x?x12xf32> -> tensor<?x12xf32> loc("h")
    return %h : tensor<?x12xf32>
  }
  func.func @M.train_step(%g: !gnn.graph, %x: tensor<?x?xf32>, %labels: tensor<?xi64>, %mask: tensor<?xi1>) -> tensor<f32> {
    %one = gnn.constant 1.000000e+00 : tensor<f32>
    %q = gnn.param @M.q : tensor<?x4x?x3xf32>
    %w = gnn.block_diagonal %q : tensor<?x4x?x3xf32> -> tensor<?x?x12xf32> loc("w")
    %h = gnn.aggregate_relations mean %g, %x, %w : tensor<?x?xf32>, tensor<?x?x12xf32> -> tensor<?x12xf32> loc("h")
    %loss = gnn.cross_entropy %h, %labels mask %mask : tensor<?x12xf32>, tensor<?xi64>, tensor<?xi1> -> tensor<f32> loc("loss")
    %dh = gnn.cross_entropy_grad %h, %labels mask %mask, %one : tensor<?x12xf32>, tensor<?xi64>, tensor<?xi1>, tensor<f32> -> tensor<?x12xf32> loc("d_h")
    %dw = gnn.aggregate_relations_weight_grad mean %g, %dh, %x : tensor<?x12xf32>, tensor<?x?xf32> -> tensor<?x?x12xf32> loc("d_w")
    %dq = gnn.diagonal_blocks %dw like %q : tensor<?x?x12xf32>, tensor<?x4x?x3xf32> -> tensor<?x4x?x3xf32> loc("d_q")
    gnn.param_grad @M.q, %dq : tensor<?x4x?x3xf32>
    return %loss : tensor<f32>
  }
}

// CHECK-LABEL: std::vector<ParamInfo> M_params(
// CHECK:      if ((features) % (4) != 0)
// CHECK-NEXT:   throw DataError("parameter 'q' has a dimension features / 4, but " + std::to_string(features) + " is not divisible by " + std::to_string(4));
// CHECK:      {"q", {relations, 4, ((features/4)), 3}, Init::Glorot, {}},

// CHECK-LABEL: void M_forward(
// CHECK:      T *w = ws.get(0, (12 * relations * (4 * ((features/4)))));
// CHECK-NEXT: kernels::blockDiagonal<T>(relations, 4, ((features/4)), 3, q, w);
// CHECK:      kernels::aggregateRelations<T>(g, Reduce::Mean, x, features, w, 12, h);

// CHECK-LABEL: T M_train_step(
// CHECK:      kernels::blockDiagonal<T>(relations, 4, ((features/4)), 3, q, w);
// CHECK:      kernels::aggregateRelationsGradWeight<T>(g, Reduce::Mean, d_h, x, features, 12, d_w);
// CHECK:      T *d_q = ws.get({{[0-9]+}}, (12 * relations * ((features/4))));
// CHECK-NEXT: kernels::diagonalBlocks<T>(relations, 4, ((features/4)), 3, d_w, d_q);
