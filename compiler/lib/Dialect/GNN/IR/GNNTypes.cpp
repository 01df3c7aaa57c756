//===- GNNTypes.cpp - gnn dialect types -----------------------------------===//
//
// Registers the gnn dialect's types and includes their generated storage,
// parsers and printers. `!gnn.graph` has no parameters, so there is no
// hand-written logic here.
//
//===----------------------------------------------------------------------===//

#include "gnn/Dialect/GNN/GNNTypes.h"
#include "gnn/Dialect/GNN/GNNDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace gnn;

#define GET_TYPEDEF_CLASSES
#include "gnn/Dialect/GNN/GNNOpsTypes.cpp.inc"

void GNNDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "gnn/Dialect/GNN/GNNOpsTypes.cpp.inc"
      >();
}
