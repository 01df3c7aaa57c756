//===- TranslateRegistration.cpp - the --gnn-to-cuda translation ----------===//
//
// The CUDA emitter as a translation of MLIR's registry, for gnn-translate:
// CUDA emission is tested from `.mlir` modules as the C++ target's is.
// `--gnn-source-file` is the C++ translation's option (registered first).
//
//===----------------------------------------------------------------------===//

#include "gnn/Target/Cuda/EmitCuda.h"

#include "gnn/Dialect/GNN/GNNDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;

void gnn::cuda::registerToCudaTranslation() {
  TranslateFromMLIRRegistration registration(
      "gnn-to-cuda",
      "translate a gnn module after gnnc's pipeline into a CUDA trainer",
      [](ModuleOp module, llvm::raw_ostream &os) {
        // The value of --gnn-source-file, if the C++ translation registered
        // it.
        std::string sourceFile = "<unknown>";
        auto &options = llvm::cl::getRegisteredOptions();
        if (auto *opt = options.lookup("gnn-source-file"))
          if (auto *text = static_cast<llvm::cl::opt<std::string> *>(opt))
            sourceFile = text->getValue();
        // All or nothing, as --gnn-to-cpp.
        std::string code;
        llvm::raw_string_ostream buffer(code);
        if (failed(emitCuda(module, buffer, {sourceFile})))
          return failure();
        os << buffer.str();
        return success();
      },
      [](DialectRegistry &registry) {
        registry.insert<gnn::GNNDialect, func::FuncDialect>();
      });
}
