//===- FuseEdges.cpp - gather -> per-edge expression -> reduce ------------===//
//
// The gnn-fuse-edges pass. An elementwise computation over edge rows reads
// node rows through gnn.gather; as a gnn.edge_map it reads them in place
// (row u or v of the node tensor for edge (u, v)), so no [E, F] copy of a
// node tensor is made. A scatter of such per-edge values then folds into the
// edge_map as its reduction, and the per-edge values are not stored either.
//
//===----------------------------------------------------------------------===//

#include "FusedBody.h"

#include "gnn/Dialect/GNN/GNNOps.h"
#include "gnn/Dialect/GNN/Passes.h"

#include "mlir/IR/Builders.h"

namespace gnn {
#define GEN_PASS_DEF_FUSEEDGES
#include "gnn/Dialect/GNN/Passes.h.inc"
} // namespace gnn

using namespace mlir;
using namespace gnn;

namespace {

/// The graph whose edges an elementwise computation over `inputs` (with
/// results of `resultType`) can run on, reading its gathers in place: some
/// operand is a gather, all gathers are of one graph, and every operand has
/// a row per edge (a lower-rank operand would broadcast along the edges,
/// which edge_map does not express). Null otherwise.
Value edgeGraph(ValueRange inputs, Type resultType) {
  int64_t rank = cast<RankedTensorType>(resultType).getRank();
  Value graph;
  for (Value in : inputs) {
    if (cast<RankedTensorType>(in.getType()).getRank() != rank)
      return nullptr;
    if (auto g = in.getDefiningOp<GatherOp>()) {
      if (graph && graph != g.getGraph())
        return nullptr;
      graph = g.getGraph();
    }
  }
  return graph;
}

/// Rewrites `map` into a gnn.edge_map over `graph`.
EdgeMapOp fuseGathers(MapOp map, Value graph) {
  // (value, side) pairs, deduplicated: gathers read their node tensor.
  SmallVector<Value> inputs;
  SmallVector<StringRef> sides;
  SmallVector<unsigned> argIndex;
  for (Value in : map.getInputs()) {
    Value v = in;
    StringRef side = "edge";
    if (auto g = in.getDefiningOp<GatherOp>()) {
      v = g.getInput();
      side = g.getSide() == EdgeSide::src ? "src" : "dst";
    }
    unsigned k = 0;
    while (k < inputs.size() && !(inputs[k] == v && sides[k] == side))
      ++k;
    if (k == inputs.size()) {
      inputs.push_back(v);
      sides.push_back(side);
    }
    argIndex.push_back(k);
  }
  OpBuilder b(map);
  auto edgeMap = b.create<EdgeMapOp>(map.getLoc(), map.getResultTypes(), graph,
                                     inputs, b.getStrArrayAttr(sides),
                                     ReduceKindAttr());
  cloneBodyWithArguments(map.getBody(), edgeMap.getBody(), argIndex,
                         inputs.size());
  SmallVector<Operation *> gathers;
  for (Value in : map.getInputs())
    if (auto g = in.getDefiningOp<GatherOp>())
      gathers.push_back(g);
  map.replaceAllUsesWith(edgeMap.getResults());
  map.erase();
  for (Operation *g : gathers)
    if (g->use_empty())
      g->erase();
  return edgeMap;
}

/// Folds `scatter(edge_map)` into the edge_map's reduction when the scatter
/// is the per-edge values' only reader.
void fuseScatter(EdgeMapOp edgeMap) {
  if (edgeMap.getNumResults() != 1 || edgeMap.getReduce() ||
      !edgeMap.getResult(0).hasOneUse())
    return;
  auto scatter = dyn_cast<ScatterOp>(*edgeMap.getResult(0).getUsers().begin());
  if (!scatter || scatter.getGraph() != edgeMap.getGraph())
    return;
  edgeMap.setReduceAttr(scatter.getReduceAttr());
  edgeMap.getResult(0).setType(scatter.getType());
  edgeMap->setLoc(scatter.getLoc());
  scatter.replaceAllUsesWith(edgeMap.getResult(0));
  scatter.erase();
}

struct FuseEdgesPass : gnn::impl::FuseEdgesBase<FuseEdgesPass> {
  void runOnOperation() override {
    func::FuncOp f = getOperation();
    SmallVector<Operation *> candidates;
    for (Operation &op : f.getBody().getOps())
      if (isa<MapOp>(op) || isFusibleElementwise(&op))
        candidates.push_back(&op);
    for (Operation *op : candidates) {
      ValueRange inputs = op->getOperands();
      Value graph = edgeGraph(inputs, op->getResult(0).getType());
      if (!graph)
        continue;
      auto map = dyn_cast<MapOp>(op);
      if (!map)
        map = wrapInMap(op);
      fuseScatter(fuseGathers(map, graph));
    }
  }
};

} // namespace
