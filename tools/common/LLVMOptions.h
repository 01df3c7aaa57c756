//===- LLVMOptions.h - keep libLLVM's options out of --help -----*- C++ -*-===//
//
// Loading libMLIR loads libLLVM, whose static initializers register a few
// hundred codegen and target options (AMDGPU, Hexagon, ...) that no gnn tool
// reads. gnnc hides them with its own option category; gnn-opt and
// gnn-translate register their options (MLIR's, the passes', the
// translations') only when their main runs, so they hide whatever exists
// before that instead.
//
//===----------------------------------------------------------------------===//

#ifndef GNNC_TOOLS_COMMON_LLVMOPTIONS_H
#define GNNC_TOOLS_COMMON_LLVMOPTIONS_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"

namespace gnntools {

/// Hides from --help and --help-hidden every option registered so far
/// except the generic ones (--help, --version, ...). The options still
/// parse; they are just not advertised.
inline void hideLLVMOptions() {
  llvm::StringMap<llvm::cl::Option *> &options =
      llvm::cl::getRegisteredOptions();
  // The generic options' category, as LLVM does not export it.
  llvm::cl::Option *help = options.lookup("help");
  if (!help)
    return;
  llvm::cl::OptionCategory *generic = help->Categories.front();
  for (auto &entry : options)
    if (!llvm::is_contained(entry.second->Categories, generic))
      entry.second->setHiddenFlag(llvm::cl::ReallyHidden);
}

} // namespace gnntools

#endif // GNNC_TOOLS_COMMON_LLVMOPTIONS_H
