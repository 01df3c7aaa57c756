//===- GNNAttrs.cpp - gnn dialect enum attributes -------------------------===//
//
// Registers the gnn dialect's attributes and includes the generated enum
// helpers (stringifyReduceKind, symbolizeEdgeSide, ...) and the storage,
// parsers and printers of the attributes that wrap them.
//
//===----------------------------------------------------------------------===//

#include "gnn/Dialect/GNN/GNNAttrs.h"
#include "gnn/Dialect/GNN/GNNDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace gnn;

#include "gnn/Dialect/GNN/GNNEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "gnn/Dialect/GNN/GNNAttrs.cpp.inc"

void GNNDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "gnn/Dialect/GNN/GNNAttrs.cpp.inc"
      >();
}
