//===- EmitSettings.h - the train block as TrainSettings code ---*- C++ -*-===//
//
// Internal to the C++ target: the part of the generated main that fills
// gnnrt::TrainSettings, and the C++ literals both it and EmitCpp.cpp write.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_TARGET_CPP_EMITSETTINGS_H
#define GNN_TARGET_CPP_EMITSETTINGS_H

#include "gnn/Dialect/GNN/GNNAttrs.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/IndentedOstream.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace gnn::cpp {

/// A double literal that round-trips exactly.
std::string cppDouble(double v);

/// A string literal with quotes and backslashes escaped.
std::string cppString(llvm::StringRef s);

/// A bool literal.
inline const char *cppBool(bool b) { return b ? "true" : "false"; }

/// `TrainSettings &s = program.settings;` and one assignment per field, from
/// the forward's `#gnn.train`.
void emitTrainSettings(mlir::raw_indented_ostream &os, gnn::TrainAttr train);

} // namespace gnn::cpp

#endif // GNN_TARGET_CPP_EMITSETTINGS_H
