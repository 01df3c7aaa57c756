//===- HostCompiler.h - compile generated C++ into a trainer ----*- C++ -*-===//
#ifndef GNNC_HOSTCOMPILER_H
#define GNNC_HOSTCOMPILER_H

#include <string>

namespace gnnc {

/// What the generated source is and what builds it.
enum class TrainerTarget {
  /// C++ with OpenMP, by $CXX.
  Cpu,
  /// CUDA, by nvcc for sm_80 and sm_90, linked with gnnrt's CUDA kernels.
  Cuda,
  /// The same CUDA source by $CXX over gnnrt's emulation layer
  /// (docs/cuda-emulation.md): a trainer that runs without a GPU.
  CudaEmulated,
};

struct HostCompileOptions {
  std::string sourceFile; ///< the generated .cpp or .cu
  TrainerTarget target = TrainerTarget::Cpu;
  std::string outputFile; ///< the executable to produce
  unsigned optLevel = 2;
  bool verbose = false; ///< print the command line before running it
};

/// Compiles and links the generated trainer against gnnrt with the host C++
/// compiler ($CXX, else c++), or nvcc ($NVCC, else the one gnnc was built
/// with) for TrainerTarget::Cuda: one argument vector, no shell. The executable
/// appears under its final name only if the compiler succeeds. Returns false
/// after printing an error (missing compiler or runtime, compiler failure).
bool compileTrainer(const HostCompileOptions &options);

/// "<prefix><pid>-": how a temporary of this gnnc starts, so that a later
/// gnnc can tell a killed one's leftovers from a running one's.
std::string temporaryPrefix(const std::string &prefix);

/// Removes the files of `dir` named "<prefix><pid>-..." whose gnnc no longer
/// runs: what SIGKILL left (SIGTERM and SIGINT remove them at once). Best
/// effort: errors are ignored.
void removeStaleTemporaries(const std::string &dir, const std::string &prefix);

} // namespace gnnc

#endif // GNNC_HOSTCOMPILER_H
