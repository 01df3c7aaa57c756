//===- FusedBody.cpp - building the bodies of fused ops -------------------===//

#include "FusedBody.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace gnn;

RankedTensorType gnn::scalarTensorType(MLIRContext *context) {
  return RankedTensorType::get({}, Float32Type::get(context));
}

void gnn::buildFusedBody(Region &region, ValueRange inputs,
                         ArrayRef<Operation *> ops, ValueRange yielded) {
  MLIRContext *context = region.getContext();
  Type scalar = scalarTensorType(context);
  Block *block = new Block();
  region.push_back(block);
  IRMapping mapping;
  for (Value in : inputs)
    mapping.map(in, block->addArgument(scalar, in.getLoc()));
  OpBuilder b = OpBuilder::atBlockEnd(block);
  for (Operation *op : ops) {
    Operation *clone = b.clone(*op, mapping);
    for (Value r : clone->getResults())
      r.setType(scalar);
  }
  SmallVector<Value> values;
  for (Value y : yielded)
    values.push_back(mapping.lookup(y));
  b.create<YieldOp>(ops.empty() ? region.getLoc() : ops.back()->getLoc(),
                    values);
}

MapOp gnn::wrapInMap(Operation *op) {
  OpBuilder b(op);
  SmallVector<Value> inputs;
  for (Value v : op->getOperands())
    if (!llvm::is_contained(inputs, v))
      inputs.push_back(v);
  auto map = b.create<MapOp>(op->getLoc(), op->getResultTypes(), inputs);
  buildFusedBody(map.getBody(), inputs, {op}, op->getResults());
  op->replaceAllUsesWith(map->getResults());
  op->erase();
  return map;
}

void gnn::cloneBodyWithArguments(Region &from, Region &to,
                                 ArrayRef<unsigned> argIndex,
                                 unsigned numArgs) {
  Type scalar = scalarTensorType(to.getContext());
  Block *block = new Block();
  to.push_back(block);
  for (unsigned i = 0; i < numArgs; ++i)
    block->addArgument(scalar, to.getLoc());
  IRMapping mapping;
  Block &old = from.front();
  for (auto [i, arg] : llvm::enumerate(old.getArguments()))
    mapping.map(arg, block->getArgument(argIndex[i]));
  OpBuilder b = OpBuilder::atBlockEnd(block);
  for (Operation &op : old)
    b.clone(op, mapping);
}
