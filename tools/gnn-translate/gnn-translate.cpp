//===- gnn-translate.cpp - gnn dialect translation driver -----------------===//
//
// gnn-translate is mlir-translate restricted to gnnc's targets: it parses a
// .mlir module in the func and gnn dialects and runs one registered
// translation on it. `--gnn-to-cpp` is the C++ emitter that gnnc's
// `--emit=cpp` runs after its pipeline, so `gnnc --emit=train` output (or a
// hand-written module at that level) translates to the same trainer:
//
//   gnnc --emit=train model.gnn | gnn-translate --gnn-to-cpp \
//     --gnn-source-file=model.gnn
//
// The lit tests of the emitter (test/Target/Cpp) drive it.
//
//===----------------------------------------------------------------------===//

#include "gnn/Target/Cpp/EmitCpp.h"
#include "gnn/Target/Cuda/EmitCuda.h"
#include "gnn/Version.h"

#include "LLVMOptions.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  // Before the translations' options exist: what is registered now is
  // libLLVM's.
  gnntools::hideLLVMOptions();
  llvm::cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { gnn::printVersion(os, "gnn-translate"); });
  gnn::cpp::registerToCppTranslation();
  gnn::cuda::registerToCudaTranslation();
  mlir::LogicalResult result =
      mlir::mlirTranslateMain(argc, argv, "gnn translation driver\n");
  return mlir::succeeded(result) ? 0 : 1;
}
