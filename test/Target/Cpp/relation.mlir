// RUN: gnn-translate --gnn-to-cpp %s | FileCheck %s
// gnn.relation: the relation's subgraph is looked up where the op is (its
// graph's relation index builds it once), under a name taken from the
// relation; the ops on it read that view, and its node counts are its
// graph's.
module {
  func.func @M.forward(%g: !gnn.graph, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %r = gnn.relation %g "paper___cites___paper"
    %a = gnn.aggregate sum %r, %x : tensor<?x?xf32> -> tensor<?x?xf32>
    return %a : tensor<?x?xf32>
  }
  func.func @M.train_step(%g: !gnn.graph, %x: tensor<?x?xf32>, %labels: tensor<?xi64>, %mask: tensor<?xi1>) -> tensor<f32> {
    %l = gnn.constant 0.000000e+00 : tensor<f32>
    return %l : tensor<f32>
  }
}
// CHECK-LABEL: void M_forward(
// CHECK: GraphStorage rel_paper___cites___paper_storage;
// CHECK-NEXT: const GraphView rel_paper___cites___paper = relationView(g, ctx.relationId("paper___cites___paper"), rel_paper___cites___paper_storage);
// CHECK: T *t = ws.get(0, (g.numDst * features));
// CHECK: kernels::aggregate<T>(rel_paper___cites___paper, Reduce::Sum,
// CHECK: program.relationUses = {{[{][{]}}"paper___cites___paper", "{{.*}}relation.mlir:8:10"{{[}][}]}};
