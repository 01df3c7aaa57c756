//===- EmitCpp.h - gnn dialect to C++ with OpenMP ---------------*- C++ -*-===//
//
// Translates a module holding `@<Model>.forward` and `@<Model>.train_step`
// (after gnnc's pipeline: autodiff and fusion) into one self-contained C++17
// translation unit that includes the gnnrt kernels and trainer headers: each
// function becomes a template over the scalar type with a planned
// workspace, elementwise ops become OpenMP loops, graph ops and GEMMs become
// gnnrt kernel calls, and a `main` hands the compiled train block to
// gnnrt::trainMain. The shapes, names and memory plan come from the
// target-independent prepare stage (gnn/Target/Common/Prepare.h).
//
//===----------------------------------------------------------------------===//

#ifndef GNN_TARGET_CPP_EMITCPP_H
#define GNN_TARGET_CPP_EMITCPP_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace gnn::cpp {

struct EmitOptions {
  /// The .gnn file, recorded in the program and in the header comment.
  std::string sourceFile;
};

/// Emits the trainer of the module's (first) model. Reports problems as
/// diagnostics on the offending op and fails.
mlir::LogicalResult emitCpp(mlir::ModuleOp module, llvm::raw_ostream &os,
                            const EmitOptions &options);

/// Registers the `--gnn-to-cpp` translation (emitCpp) with MLIR's
/// translation registry, for gnn-translate. Its option `--gnn-source-file`
/// sets EmitOptions::sourceFile.
void registerToCppTranslation();

} // namespace gnn::cpp

#endif // GNN_TARGET_CPP_EMITCPP_H
