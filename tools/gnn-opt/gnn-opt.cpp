//===- gnn-opt.cpp - gnn dialect optimizer driver -------------------------===//
//
// gnn-opt is mlir-opt restricted to what gnnc uses: it parses and verifies
// .mlir files in the func and gnn dialects, runs the gnn-* passes, gnnc's
// whole pipeline (--gnn-train-pipeline) and MLIR's generic transformation
// passes (canonicalize, cse, ...) and prints the result. The lit tests of
// every gnn pass drive it. --help lists MLIR's options and the passes, not
// libLLVM's codegen options.
//
//===----------------------------------------------------------------------===//

#include "gnn/Dialect/GNN/GNNDialect.h"
#include "gnn/Dialect/GNN/Passes.h"
#include "gnn/Pipelines/Pipelines.h"
#include "gnn/Version.h"

#include "LLVMOptions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  // Before any MLIR option exists: what is registered now is libLLVM's.
  gnntools::hideLLVMOptions();
  llvm::cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { gnn::printVersion(os, "gnn-opt"); });
  mlir::registerTransformsPasses();
  gnn::registerGNNPasses();
  gnn::registerGNNPipelines();

  mlir::DialectRegistry registry;
  registry.insert<gnn::GNNDialect, mlir::func::FuncDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "gnn optimizer driver\n", registry));
}
