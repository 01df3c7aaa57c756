//===- gnnc.cpp - The gnnc compiler driver --------------------------------===//
//
// gnnc reads a .gnn program, checks it, and emits the requested stage:
//   --emit=ast    the parsed and type-annotated AST
//   --emit=mlir   the gnn dialect module (each model's forward function)
// --verify-diagnostics checks `// expected-error {{...}}` comments instead of
// printing diagnostics. Exit status: 0 on success, 1 on any error.
//
//===----------------------------------------------------------------------===//
#include "gnn/MLIRGen/MLIRGen.h"
#include "gnn/lang/Frontend.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <iostream>
#include <sstream>

namespace cl = llvm::cl;

static cl::opt<std::string>
    inputFile(cl::Positional, cl::desc("<input .gnn file>"), cl::Required);
enum class EmitKind { AST, MLIR };
static cl::opt<EmitKind> emit(
    "emit", cl::desc("Stage to print"), cl::init(EmitKind::MLIR),
    cl::values(clEnumValN(EmitKind::AST, "ast", "the type-checked AST"),
               clEnumValN(EmitKind::MLIR, "mlir", "the gnn dialect module")));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::init("-"));
static cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check expected-error/-warning/-note comments in the input"));
static cl::list<std::string>
    importPaths("I", cl::desc("Add a directory to the import search path"),
                cl::Prefix);
static cl::opt<bool>
    noDebugLocs("no-locs", cl::desc("Print MLIR without source locations"));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "gnnc: the .gnn compiler\n");

  gnn::lang::FrontendOptions options;
  for (const std::string &p : importPaths)
    options.importPaths.push_back(p);
  options.importPaths.push_back(GNNC_STDLIB_DIR);
  options.verifyDiagnostics = verifyDiagnostics;
  gnn::lang::Compilation compilation(options);
  bool ok = compilation.run(inputFile);

  if (verifyDiagnostics) {
    bool matched = gnn::lang::verifyDiagnostics(
        compilation.sources(), compilation.diagnostics(), std::cerr);
    return matched ? 0 : 1;
  }
  if (!ok)
    return 1;

  std::string error;
  auto out = mlir::openOutputFile(outputFile, &error);
  if (!out) {
    llvm::errs() << "gnnc: error: " << error << "\n";
    return 1;
  }
  if (emit == EmitKind::AST) {
    std::ostringstream os;
    gnn::lang::printAST(*compilation.mainProgram(), compilation.sources(), os);
    out->os() << os.str();
    out->keep();
    return 0;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      gnn::mlirgen::emitModule(context, compilation);
  if (!module)
    return 1;
  mlir::OpPrintingFlags flags;
  if (!noDebugLocs)
    flags.enableDebugInfo(/*prettyForm=*/true);
  module->print(out->os(), flags);
  out->keep();
  return 0;
}
