//===- GNNDialect.cpp - gnn dialect registration --------------------------===//
//
// Defines ::gnn::GNNDialect: its constructor registers the ops, the
// `!gnn.graph` type and the enum attributes; the generated dialect
// definitions (type/attribute parse and print dispatch) are included here.
//
//===----------------------------------------------------------------------===//

#include "gnn/Dialect/GNN/GNNDialect.h"
#include "gnn/Dialect/GNN/GNNOps.h"

using namespace mlir;
using namespace gnn;

#include "gnn/Dialect/GNN/GNNOpsDialect.cpp.inc"

void GNNDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "gnn/Dialect/GNN/GNNOps.cpp.inc"
      >();
  registerTypes();
  registerAttributes();
}
