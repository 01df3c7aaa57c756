//===- Naming.h - identifiers and source positions for emitters -*- C++ -*-===//
//
// How generated code refers back to the .gnn program: values are named after
// the source variables they hold, which MLIRGen records as NameLocs (a
// stdlib layer's variables reach the caller through CallSiteLocs), and
// statements are commented with their source position, innermost first.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_TARGET_COMMON_NAMING_H
#define GNN_TARGET_COMMON_NAMING_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace gnn::target {

/// `file:line:col` of `loc`, through inlined call sites as
/// `callee <- caller` (`conv.gnn:13:9 <- gcn_cora.gnn:11:14`); "" if the
/// location has no file position.
std::string describeLocation(mlir::Location loc);

/// The source variable `loc` names, if MLIRGen recorded one; else "".
std::string sourceName(mlir::Location loc);

/// `s` as a C/C++ identifier: other characters become `_`, and a leading
/// digit or an empty name gets the prefix `v_`.
std::string identifierFrom(llvm::StringRef s);

} // namespace gnn::target

#endif // GNN_TARGET_COMMON_NAMING_H
