//===- Frontend.h - Loading a .gnn program with its imports -----*- C++ -*-===//
//
// A Compilation owns everything the front end produces for one main file: the
// sources, diagnostics, the parsed programs (main first, then each import
// once) and Sema's tables. `import nn` loads every .gnn file of <stdlib>/nn/,
// `import nn.conv` loads <stdlib>/nn/conv.gnn, `import "dir/file"` loads
// dir/file.gnn relative to the importing file.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_LANG_FRONTEND_H
#define GNN_LANG_FRONTEND_H

#include "gnn/lang/AST.h"
#include "gnn/lang/Diagnostics.h"
#include "gnn/lang/Sema.h"

#include <memory>
#include <string>
#include <vector>

namespace gnn::lang {

struct FrontendOptions {
  /// Directories searched for `import a.b` (the stdlib directory by default).
  std::vector<std::string> importPaths;
  /// Collect diagnostics for --verify-diagnostics instead of printing them.
  bool verifyDiagnostics = false;
};

class Compilation {
public:
  explicit Compilation(FrontendOptions options);

  /// Parses `path`, its imports, and runs Sema. Returns false on any error.
  bool run(const std::string &path);
  /// Same for in-memory text (fuzzer, tests).
  bool runOnBuffer(const std::string &name, const std::string &text);

  SourceManager &sources() { return sourceManager; }
  DiagnosticEngine &diagnostics() { return diags; }
  const Program *mainProgram() const {
    return programs.empty() ? nullptr : programs.front().get();
  }
  const SemaResult &sema() const { return semaResult; }
  /// Every parsed program: the main file first, then each import once.
  const std::vector<std::unique_ptr<Program>> &allPrograms() const {
    return programs;
  }
  /// The files `decl` names when imported from the file `importer` (empty
  /// when none exists), as loading resolves them.
  std::vector<std::string> resolveImport(const ImportDecl &decl,
                                         const std::string &importer);

private:
  bool process(uint32_t mainFile);
  void loadImports(const Program &program);

  FrontendOptions options;
  SourceManager sourceManager;
  DiagnosticEngine diags;
  std::vector<std::unique_ptr<Program>> programs;
  std::vector<std::string> importAliases;
  SemaResult semaResult;
};

} // namespace gnn::lang

#endif // GNN_LANG_FRONTEND_H
