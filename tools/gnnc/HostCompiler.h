//===- HostCompiler.h - compile generated C++ into a trainer ----*- C++ -*-===//
#ifndef GNNC_HOSTCOMPILER_H
#define GNNC_HOSTCOMPILER_H

#include <string>

namespace gnnc {

struct HostCompileOptions {
  std::string sourceFile; ///< the generated .cpp
  std::string outputFile; ///< the executable to produce
  unsigned optLevel = 2;
  bool verbose = false; ///< print the command line before running it
};

/// Compiles and links the generated trainer against gnnrt with the host C++
/// compiler ($CXX, else c++): one argument vector, no shell. The executable
/// appears under its final name only if the compiler succeeds. Returns false
/// after printing an error (missing compiler or runtime, compiler failure).
bool compileTrainer(const HostCompileOptions &options);

} // namespace gnnc

#endif // GNNC_HOSTCOMPILER_H
