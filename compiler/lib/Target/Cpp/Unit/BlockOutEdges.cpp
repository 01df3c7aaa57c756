//===- BlockOutEdges.cpp - blocks whose out-edge lists no one reads -------===//
//
// A sampled block carries its edges twice: by destination (in-edges, what
// forward aggregations walk) and by source (out-edges, what the adjoints of
// aggregations and gathers, source degrees and edge ops walk). The first
// block of SAGE, whose input needs no gradient, is read only by its
// aggregation and its destinations' rows: a CPU trainer's sampler then
// builds it without out-edges (CompiledProgram::blocksWithoutOutEdges),
// which saves sorting its largest edge list a second time every batch.
//
//===----------------------------------------------------------------------===//

#include "TrainerUnit.h"

#include "gnn/Dialect/GNN/GNNOps.h"

using namespace mlir;
using namespace gnn;

namespace {

/// Whether `op` reads a block through its in-edges alone.
bool readsInEdgesOnly(Operation *op) {
  if (isa<DstOp>(op))
    return true;
  auto aggregate = dyn_cast<AggregateOp>(op);
  return aggregate && (aggregate.getReduce() == ReduceKind::sum ||
                       aggregate.getReduce() == ReduceKind::mean);
}

} // namespace

uint64_t gnn::cpp::blocksWithoutOutEdges(ArrayRef<func::FuncOp> entryPoints,
                                         int64_t numBlocks) {
  uint64_t without =
      numBlocks >= 64 ? ~uint64_t(0) : (uint64_t(1) << numBlocks) - 1;
  for (func::FuncOp fn : entryPoints)
    fn.walk([&](BlockOp block) {
      const uint64_t layer = block.getLayer();
      if (layer >= 64)
        return;
      for (Operation *user : block.getResult().getUsers())
        if (!readsInEdgesOnly(user))
          without &= ~(uint64_t(1) << layer);
    });
  return without;
}
