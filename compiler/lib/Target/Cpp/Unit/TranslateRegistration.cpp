//===- TranslateRegistration.cpp - the --gnn-to-cpp translation -----------===//
//
// Makes the C++ emitter a translation of MLIR's registry, so that
// gnn-translate (mlir-translate for the gnn dialect) emits C++ from a .mlir
// file that has been through gnnc's pipeline: emission is tested from
// hand-written or `gnnc --emit=train` modules, without the front end.
//
//===----------------------------------------------------------------------===//

#include "gnn/Target/Cpp/EmitCpp.h"

#include "gnn/Dialect/GNN/GNNDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;

void gnn::cpp::registerToCppTranslation() {
  // The translation's one option, registered with it (as MLIR's own
  // translations do) so that it exists only in tools that offer it.
  static llvm::cl::opt<std::string> sourceFile(
      "gnn-source-file",
      llvm::cl::desc("With --gnn-to-cpp: the .gnn file the module was "
                     "compiled from, as the generated program records it"),
      llvm::cl::value_desc("file"), llvm::cl::init("<unknown>"));
  TranslateFromMLIRRegistration registration(
      "gnn-to-cpp",
      "translate a gnn module after gnnc's pipeline into a C++ trainer",
      [](ModuleOp module, llvm::raw_ostream &os) {
        // All or nothing: a module the emitter rejects prints no half
        // program.
        std::string code;
        llvm::raw_string_ostream buffer(code);
        if (failed(emitCpp(module, buffer, {sourceFile})))
          return failure();
        os << buffer.str();
        return success();
      },
      [](DialectRegistry &registry) {
        registry.insert<gnn::GNNDialect, func::FuncDialect>();
      });
}
