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
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringExtras.h" // GNN_StringParameter's printer
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

/// A relation's own fanouts sample per relation and cover every layer.
LogicalResult
SamplerAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                    ArrayRef<int64_t> fanouts, int64_t batch, bool replace,
                    bool shuffle, bool perRelation,
                    ArrayAttr relationFanouts) {
  if (!relationFanouts)
    return success();
  if (!perRelation)
    return emitError() << "relation_fanouts needs per_relation = true";
  for (Attribute entry : relationFanouts) {
    auto relation = llvm::dyn_cast<RelationFanoutAttr>(entry);
    if (!relation)
      return emitError() << "expects #gnn.relation_fanout entries, got "
                         << entry;
    if (relation.getFanouts().size() != fanouts.size())
      return emitError() << "relation '" << relation.getName() << "' has "
                         << relation.getFanouts().size()
                         << " fanouts, expected " << fanouts.size()
                         << " (one per layer)";
  }
  return success();
}
