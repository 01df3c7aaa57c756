//===- InputRowsInPlace.cpp - input rows a sampled step reads in place ----===//
//
// A sampled step's features argument is a row per source of block 0. When
// the step reads it only through block 0's sum or mean (a row per in-edge,
// no self loop) and as block 0's destinations' rows (gnn.dst), a single
// process need not copy every source's row into the batch: the aggregation
// gathers from the dataset's rows through a block whose edges name rows of
// that table, and the batch holds the destinations' rows alone:
//
//   %a = gnn.aggregate mean %b0, %x : tensor<?x128xf32> -> tensor<?x128xf32>
//   // kernels::aggregate<T>(ctx.inputTable ? *ctx.inputTableBlock
//   //                                      : ctx.blocks[0], Reduce::Mean,
//   //                       false, ctx.inputTable ? ctx.inputTable : x,
//   //                       features, nullptr, 1, a);
//
// The same rows are summed in the same order either way: the same bits.
//
//===----------------------------------------------------------------------===//

#include "TrainerUnit.h"

#include "gnn/Dialect/GNN/GNNOps.h"

using namespace mlir;
using namespace gnn;

namespace {

bool isFirstBlock(Value graph) {
  auto block = graph.getDefiningOp<BlockOp>();
  return block && block.getLayer() == 0;
}

} // namespace

bool gnn::cpp::aggregatesInputInPlace(AggregateOp op) {
  auto fn = op->getParentOfType<func::FuncOp>();
  return fn && fn->hasAttr("gnn.blocks") && fn.getNumArguments() > 1 &&
         op.getInput() == fn.getArgument(1) && isFirstBlock(op.getGraph()) &&
         !op.getSelfLoops() &&
         (op.getReduce() == ReduceKind::sum ||
          op.getReduce() == ReduceKind::mean);
}

bool gnn::cpp::readsInputRowsInPlace(func::FuncOp fn) {
  if (!fn->hasAttr("gnn.blocks") || fn.getNumArguments() < 2)
    return false;
  Value features = fn.getArgument(1);
  bool aggregated = false;
  for (Operation *user : features.getUsers()) {
    if (auto aggregate = dyn_cast<AggregateOp>(user);
        aggregate && aggregatesInputInPlace(aggregate)) {
      aggregated = true;
      continue;
    }
    if (auto dst = dyn_cast<DstOp>(user);
        dst && dst.getInput() == features && isFirstBlock(dst.getGraph()))
      continue;
    return false;
  }
  return aggregated;
}
