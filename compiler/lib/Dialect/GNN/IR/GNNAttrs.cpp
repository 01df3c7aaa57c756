//===- GNNAttrs.cpp - gnn dialect enum attributes -------------------------===//
//
// Registers the gnn dialect's attributes and includes the generated enum
// helpers (stringifyReduceKind, symbolizeEdgeSide, ...) and the storage,
// parsers and printers of the attributes that wrap them and of the train
// block's attributes.
//
//===----------------------------------------------------------------------===//

#include "gnn/Dialect/GNN/GNNAttrs.h"
#include "gnn/Dialect/GNN/GNNDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace gnn;

#include "gnn/Dialect/GNN/GNNEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "gnn/Dialect/GNN/GNNAttrs.cpp.inc"

TrainAttr TrainAttr::of(Operation *op) {
  if (auto train = op->getAttrOfType<TrainAttr>(getAttrName()))
    return train;
  // The defaults are the ones the attribute's parser fills in: stated once,
  // in GNNTrainAttrs.td.
  return llvm::cast<TrainAttr>(parseAttribute("#gnn.train<>", op->getContext()));
}

void GNNDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "gnn/Dialect/GNN/GNNAttrs.cpp.inc"
      >();
}
