//===- FuseGemmEpilogue.cpp - elementwise consumers into the GEMM ---------===//
//
// The gnn-fuse-gemm-epilogue pass. When a gnn.matmul's only reader is an
// elementwise computation of the product's shape (a gnn.map or a single
// elementwise op), the two become a gnn.matmul_map: the generated code
// applies the elementwise body to each block of product rows right after
// the GEMM writes it, while the block is still in cache.
//
//===----------------------------------------------------------------------===//

#include "FusedBody.h"

#include "gnn/Dialect/GNN/GNNOps.h"
#include "gnn/Dialect/GNN/Passes.h"

#include "mlir/IR/Builders.h"

namespace gnn {
#define GEN_PASS_DEF_FUSEGEMMEPILOGUE
#include "gnn/Dialect/GNN/Passes.h.inc"
} // namespace gnn

using namespace mlir;
using namespace gnn;

namespace {

/// The product `op` can take as its epilogue's accumulator, or null.
MatmulOp fusibleProduct(Operation *op) {
  for (Value in : op->getOperands())
    if (auto m = in.getDefiningOp<MatmulOp>())
      if (m->hasOneUse() && in.getType() == op->getResult(0).getType())
        return m;
  return nullptr;
}

void fuse(MapOp map, MatmulOp product) {
  SmallVector<Value> epilogue;
  SmallVector<unsigned> argIndex;
  for (Value in : map.getInputs()) {
    if (in == product.getResult()) {
      argIndex.push_back(0);
      continue;
    }
    argIndex.push_back(1 + epilogue.size());
    epilogue.push_back(in);
  }
  OpBuilder b(map);
  auto fused = b.create<MatmulMapOp>(
      map.getLoc(), map.getResultTypes(), product.getLhs(), product.getRhs(),
      epilogue, product.getTransposeLhsAttr(), product.getTransposeRhsAttr());
  cloneBodyWithArguments(map.getBody(), fused.getBody(), argIndex,
                         epilogue.size() + 1);
  map.replaceAllUsesWith(fused.getResults());
  map.erase();
  product.erase();
}

struct FuseGemmEpiloguePass
    : gnn::impl::FuseGemmEpilogueBase<FuseGemmEpiloguePass> {
  void runOnOperation() override {
    SmallVector<Operation *> candidates;
    for (Operation &op : getOperation().getBody().getOps())
      if (isa<MapOp>(op) || isFusibleElementwise(&op))
        candidates.push_back(&op);
    for (Operation *op : candidates) {
      MatmulOp product = fusibleProduct(op);
      if (!product)
        continue;
      auto map = dyn_cast<MapOp>(op);
      fuse(map ? map : wrapInMap(op), product);
    }
  }
};

} // namespace
