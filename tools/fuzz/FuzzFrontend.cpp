//===- FuzzFrontend.cpp - libFuzzer target for the .gnn front end ---------===//
//
// Feeds arbitrary bytes to the whole front end: lexer, ANTLR parser with
// error recovery, AST building, import loading against the real stdlib and
// Sema. Diagnostics are collected (verify mode) so nothing is printed; the
// front end's contract is that no input crashes, hangs, leaks or trips
// AddressSanitizer, whatever diagnostics it produces. Diagnostics are also
// formatted, so the caret printer sees every reported location, and a
// program without errors is dumped as --emit=ast would.
//
//===----------------------------------------------------------------------===//
#include "gnn/lang/AST.h"
#include "gnn/lang/Frontend.h"

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#ifndef GNN_STDLIB_DIR
#define GNN_STDLIB_DIR "stdlib"
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string stdlib = [] {
    const char *env = std::getenv("GNN_FUZZ_STDLIB");
    return std::string(env && *env ? env : GNN_STDLIB_DIR);
  }();
  gnn::lang::FrontendOptions options;
  options.importPaths.push_back(stdlib);
  options.verifyDiagnostics = true;
  gnn::lang::Compilation compilation(options);
  std::string text(reinterpret_cast<const char *>(data), size);
  bool ok = compilation.runOnBuffer("fuzz.gnn", text);

  std::ostringstream sink;
  for (const gnn::lang::Diagnostic &d : compilation.diagnostics().diagnostics())
    sink << compilation.diagnostics().format(d);
  if (ok && compilation.mainProgram())
    gnn::lang::printAST(*compilation.mainProgram(), compilation.sources(), sink);
  // Matching expectations is part of --verify-diagnostics: exercise it too.
  gnn::lang::verifyDiagnostics(compilation.sources(), compilation.diagnostics(),
                               sink);
  return 0;
}
