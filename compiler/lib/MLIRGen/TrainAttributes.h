//===- TrainAttributes.h - train blocks as MLIR attributes ------*- C++ -*-===//
#ifndef GNN_MLIRGEN_TRAINATTRIBUTES_H
#define GNN_MLIRGEN_TRAINATTRIBUTES_H

#include "gnn/lang/Sema.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace mlir {
class Builder;
}

namespace gnn::mlirgen {

/// The `gnn.train` dictionary of a checked train block: "dataset", "source"
/// (the dataset's source call), and one entry per setting (plus
/// "<key>_every" for `every N epochs`).
mlir::DictionaryAttr trainAttributes(const lang::TrainInfo &train,
                                     const lang::SemaResult &sema,
                                     mlir::Builder &builder);

} // namespace gnn::mlirgen

#endif // GNN_MLIRGEN_TRAINATTRIBUTES_H
