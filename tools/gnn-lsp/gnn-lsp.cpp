//===- gnn-lsp.cpp - The .gnn language server's entry point ---------------===//
//
// gnn-lsp speaks the Language Server Protocol on stdin/stdout; editors start
// it (tools/editor/vscode does). Options set the import search path the way
// gnnc's do: `-I DIR` directories first, then the stdlib (`--stdlib DIR`,
// by default this source tree's stdlib/).
//
//===----------------------------------------------------------------------===//
#include "Server.h"

#include <iostream>
#include <string>
#include <vector>

#ifndef GNNC_STDLIB_DIR
#define GNNC_STDLIB_DIR "stdlib"
#endif

static const char *kUsage =
    "usage: gnn-lsp [-I DIR]... [--stdlib DIR]\n"
    "The .gnn language server: speaks LSP (JSON-RPC with Content-Length\n"
    "headers) on stdin and stdout. Supports diagnostics, hover, definition,\n"
    "completion and document symbols.\n"
    "  -I DIR        add DIR to the import search path (before the stdlib)\n"
    "  --stdlib DIR  the standard library directory (default: " GNNC_STDLIB_DIR
    ")\n";

int main(int argc, char **argv) {
  std::vector<std::string> importPaths;
  std::string stdlib = GNNC_STDLIB_DIR;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (arg == "--stdio")
      continue; // What VS Code's client passes; stdio is the only transport.
    bool isInclude = arg.rfind("-I", 0) == 0, isStdlib = arg == "--stdlib";
    if (isInclude || isStdlib) {
      std::string value = isInclude ? arg.substr(2) : "";
      if (value.empty()) {
        if (i + 1 >= argc) {
          std::cerr << "gnn-lsp: error: option '" << arg
                    << "' needs a directory\n";
          return 1;
        }
        value = argv[++i];
      }
      (isStdlib ? stdlib : importPaths.emplace_back()) = value;
      continue;
    }
    std::cerr << "gnn-lsp: error: unknown option '" << arg << "'\n" << kUsage;
    return 1;
  }
  importPaths.push_back(stdlib);
  std::ios::sync_with_stdio(false);
  gnnlsp::Server server(std::cout, importPaths);
  return server.run(std::cin);
}
