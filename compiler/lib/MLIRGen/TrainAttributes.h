//===- TrainAttributes.h - train blocks as MLIR attributes ------*- C++ -*-===//
#ifndef GNN_MLIRGEN_TRAINATTRIBUTES_H
#define GNN_MLIRGEN_TRAINATTRIBUTES_H

#include "gnn/Dialect/GNN/GNNAttrs.h"
#include "gnn/lang/Sema.h"
#include "gnn/lang/SourceManager.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace mlir {
class Builder;
}

namespace gnn::mlirgen {

/// The `#gnn.train` attribute of a checked train block, defaults resolved.
/// `sources` names the files of settings whose location the trainer reports
/// (a relation's own fanouts, checked against the data at start-up).
gnn::TrainAttr trainAttributes(const lang::TrainInfo &train,
                               const lang::SemaResult &sema,
                               const lang::SourceManager &sources,
                               mlir::Builder &builder);

} // namespace gnn::mlirgen

#endif // GNN_MLIRGEN_TRAINATTRIBUTES_H
