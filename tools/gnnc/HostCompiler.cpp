//===- HostCompiler.cpp - compile generated C++ into a trainer ------------===//
//
// The runtime's location and link line are fixed when gnnc is built
// (GNNRT_INCLUDE_DIR, GNNRT_LIBRARY, GNNRT_LINK_LIBRARIES); GNNRT_LIBRARY and
// GNNRT_INCLUDE_DIR in the environment override them, for an installed or
// relocated runtime. Trainers of the CUDA target also link gnnrt's CUDA
// kernels: gnnrt_kernels_cuda, built by nvcc (GNNRT_CUDA_LIBRARY), or for
// --cuda-emulate gnnrt_kernels_cuda_emulated and the emulation layer
// (GNNRT_CUDA_EMULATED_LIBRARY, GNNRT_CUDAEMU_LIBRARY). GNNRT_LIBRARY is one
// archive holding every runtime library (libgnnrt.a); generated code includes
// gnnrt/kernels/Kernels.h and gnnrt/train/Program.h from GNNRT_INCLUDE_DIR.
//
//===----------------------------------------------------------------------===//

#include "HostCompiler.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace llvm;
using gnnc::TrainerTarget;

static std::string fromEnvironment(const char *name, const char *fallback) {
  const char *value = std::getenv(name);
  return value && *value ? value : fallback;
}

/// The running host compiler and its output, for the interrupt handler.
static std::atomic<sys::procid_t> compilerPid{0};
static std::string tempForSignal;

/// Runs in the signal handler (LLVM has already restored the default
/// dispositions and removed the files registered with RemoveFileOnSignal):
/// only async-signal-safe calls.
static void stopCompilerAndExit() {
  if (sys::procid_t pid = compilerPid.load()) {
    ::kill(pid, SIGTERM);
    ::waitpid(pid, nullptr, 0);
    ::unlink(tempForSignal.c_str());
  }
  ::raise(SIGTERM);
}

/// Whether each archive exists; prints an error naming the first missing
/// one and the target that builds it.
static bool archivesExist(ArrayRef<std::string> archives,
                          ArrayRef<const char *> targets) {
  for (auto [archive, target] : llvm::zip(archives, targets))
    if (!sys::fs::exists(archive)) {
      errs() << "gnnc: error: the gnnrt library '" << archive
             << "' does not exist (build the " << target << " target)\n";
      return false;
    }
  return true;
}

/// How a target's trainer is built: the compiler, its flags before the
/// source, and the libraries around the runtime archive, in the order they
/// call each other.
struct Toolchain {
  std::string compiler;
  std::vector<std::string> flags;
  /// Between the source and libgnnrt.a: what calls the runtime.
  std::vector<std::string> beforeRuntime;
  /// After libgnnrt.a (and before the runtime's system libraries).
  std::vector<std::string> afterRuntime;
};

/// The toolchain of `target`; false after printing an error.
static bool toolchainFor(TrainerTarget target, const std::string &includeDir,
                         Toolchain &tools) {
  const bool nvcc = target == TrainerTarget::Cuda;
  std::string name =
      nvcc ? fromEnvironment("NVCC", GNNC_NVCC) : fromEnvironment("CXX", "c++");
  if (nvcc && name.empty()) {
    errs() << "gnnc: error: --target=cuda needs nvcc, and gnnc was built "
              "without CUDA (set NVCC, or use --cuda-emulate)\n";
    return false;
  }
  ErrorOr<std::string> found = sys::findProgramByName(name);
  // findProgramByName returns a name with a slash unchecked.
  if (!found || !sys::fs::can_execute(*found)) {
    errs() << "gnnc: error: cannot find the "
           << (nvcc ? "CUDA compiler '" : "C++ compiler '") << name
           << (nvcc ? "' (install the CUDA toolkit or set NVCC)\n"
                    : "' (install g++ or set CXX)\n");
    return false;
  }
  tools.compiler = *found;
  switch (target) {
  case TrainerTarget::Cpu:
    // Generated elementwise loops compute both sides of a select (ReLU's
    // mask, its adjoint) before choosing; with trapping math GCC sinks the
    // arithmetic into a branch and leaves the loop scalar. The values are
    // the same either way: only FP exception flags, which nothing reads,
    // could differ.
    tools.flags = {"-fopenmp", "-fno-trapping-math"};
    return true;
  case TrainerTarget::Cuda: {
    std::string kernels =
        fromEnvironment("GNNRT_CUDA_LIBRARY", GNNRT_CUDA_LIBRARY);
    if (kernels.empty()) {
      errs() << "gnnc: error: gnnc was built without CUDA: there is no "
                "gnnrt_kernels_cuda to link (set GNNRT_CUDA_LIBRARY, or use "
                "--cuda-emulate)\n";
      return false;
    }
    if (!archivesExist({kernels}, {"gnnrt_kernels_cuda"}))
      return false;
    // The two architectures gnnrt's CUDA kernels are built for; generated
    // kernels call std::max and friends, constexpr host functions.
    // The source is a .cu file, which nvcc compiles as CUDA.
    tools.flags = {"--expt-relaxed-constexpr",
                   "-gencode",
                   "arch=compute_80,code=sm_80",
                   "-gencode",
                   "arch=compute_90,code=sm_90",
                   "-Xcompiler",
                   "-fopenmp"};
    tools.beforeRuntime = {kernels};
    tools.afterRuntime = {"-lcublasLt", "-lcublas", "-lcudart", "-lgomp"};
    // The ranks' collectives between GPUs (gnnrt/comm/NcclCommunicator.h).
    if (std::string nccl = GNNRT_NCCL_LIBRARY; !nccl.empty())
      tools.afterRuntime.insert(tools.afterRuntime.begin(), nccl);
    return true;
  }
  case TrainerTarget::CudaEmulated: {
    // The flags runtime/CudaKernels.cmake builds every .cu file with for
    // the emulation.
    std::string kernels = fromEnvironment("GNNRT_CUDA_EMULATED_LIBRARY",
                                          GNNRT_CUDA_EMULATED_LIBRARY);
    std::string emulation =
        fromEnvironment("GNNRT_CUDAEMU_LIBRARY", GNNRT_CUDAEMU_LIBRARY);
    if (!archivesExist({kernels, emulation},
                       {"gnnrt_kernels_cuda_emulated", "gnnrt_cudaemu"}))
      return false;
    tools.flags = {"-fopenmp",
                   "-x",
                   "c++",
                   "-I" + includeDir + "/gnnrt/cudaemu/shim",
                   "-DGNNRT_CUDA_EMULATION=1",
                   "-ffp-contract=off",
                   "-include",
                   "gnnrt/cudaemu/Cuda.h"};
    // `-x none`: the archives after the .cu source are not C++.
    tools.beforeRuntime = {"-x", "none", kernels};
    tools.afterRuntime = {emulation, "-lboost_context"};
    return true;
  }
  }
  return false;
}

std::string gnnc::temporaryPrefix(const std::string &prefix) {
  return prefix + std::to_string(sys::Process::getProcessId()) + "-";
}

void gnnc::removeStaleTemporaries(const std::string &dir,
                                  const std::string &prefix) {
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir.empty() ? "." : dir, ec), end;
       it != end && !ec; it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    if (!name.consume_front(prefix))
      continue;
    auto [digits, rest] = name.split('-');
    unsigned long long pid = 0;
    if (rest.empty() || getAsUnsignedInteger(digits, 10, pid) || pid == 0)
      continue;
    // ESRCH only when no such process exists; a live gnnc of another user
    // answers EPERM and keeps its files.
    if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH)
      continue;
    sys::fs::remove(it->path());
  }
}

bool gnnc::compileTrainer(const HostCompileOptions &options) {
  std::string includeDir =
      fromEnvironment("GNNRT_INCLUDE_DIR", GNNRT_INCLUDE_DIR);
  std::string library = fromEnvironment("GNNRT_LIBRARY", GNNRT_LIBRARY);
  Toolchain tools;
  if (!toolchainFor(options.target, includeDir, tools))
    return false;
  if (!sys::fs::exists(includeDir + "/gnnrt/train/Program.h")) {
    errs() << "gnnc: error: the gnnrt headers are not in '" << includeDir
           << "' (set GNNRT_INCLUDE_DIR)\n";
    return false;
  }
  if (!sys::fs::exists(library)) {
    errs() << "gnnc: error: the gnnrt runtime library '" << library
           << "' does not exist (build the gnnrt target or set "
              "GNNRT_LIBRARY)\n";
    return false;
  }

  // Link into a temporary next to the output, renamed on success, so that a
  // failed build never leaves a half-written executable under its name. Its
  // name carries gnnc's pid: the next gnnc removes a killed one's.
  SmallString<256> temporary;
  const std::string outputName =
      sys::path::filename(options.outputFile).str() + ".tmp-";
  removeStaleTemporaries(sys::path::parent_path(options.outputFile).str(),
                         outputName);
  if (std::error_code ec = sys::fs::createUniqueFile(
          temporaryPrefix(options.outputFile + ".tmp-") + "%%%%%%",
          temporary)) {
    errs() << "gnnc: error: cannot create '" << options.outputFile
           << ".tmp-*': " << ec.message() << "\n";
    return false;
  }

  // Removed if SIGTERM or SIGINT ends gnnc while the compiler runs.
  sys::RemoveFileOnSignal(temporary);
  std::vector<std::string> args = {tools.compiler, "-std=c++17",
                                   "-O" + std::to_string(options.optLevel)};
  args.insert(args.end(), tools.flags.begin(), tools.flags.end());
  args.push_back("-I" + includeDir);
  args.push_back(options.sourceFile);
  args.insert(args.end(), tools.beforeRuntime.begin(),
              tools.beforeRuntime.end());
  args.push_back(library);
  args.insert(args.end(), tools.afterRuntime.begin(), tools.afterRuntime.end());
  args.push_back("-o");
  args.push_back(std::string(temporary));
  for (StringRef lib : split(StringRef(GNNRT_LINK_LIBRARIES), '|'))
    if (!lib.empty())
      args.push_back(lib.str());

  if (options.verbose) {
    for (size_t i = 0; i < args.size(); ++i)
      errs() << (i ? " " : "") << args[i];
    errs() << "\n";
  }
  std::vector<StringRef> argv(args.begin(), args.end());
  std::string error;
  int status = -1;
  sys::ProcessInfo child = sys::ExecuteNoWait(
      tools.compiler, argv, /*Env=*/std::nullopt, /*Redirects=*/{}, 0, &error);
  if (child.Pid != sys::ProcessInfo::InvalidPid) {
    // SIGTERM or SIGINT sent to gnnc alone would leave the compiler running,
    // and the linker would write the temporary after gnnc removed it: stop
    // the compiler, wait for it, then remove what it wrote.
    compilerPid.store(child.Pid);
    tempForSignal = std::string(temporary);
    sys::SetInterruptFunction(stopCompilerAndExit);
    sys::ProcessInfo done = sys::Wait(child, std::nullopt, &error);
    sys::SetInterruptFunction(nullptr);
    compilerPid.store(0);
    status = done.ReturnCode;
  }
  if (status != 0) {
    sys::fs::remove(temporary);
    sys::DontRemoveFileOnSignal(temporary);
    errs() << "gnnc: error: the "
           << (options.target == TrainerTarget::Cuda ? "CUDA" : "C++")
           << " compiler failed"
           << (error.empty() ? " (exit " + std::to_string(status) + ")"
                             : ": " + error)
           << "; rerun with -v to see its command line\n";
    return false;
  }
  std::error_code renamed = sys::fs::rename(temporary, options.outputFile);
  sys::DontRemoveFileOnSignal(temporary);
  if (std::error_code ec = renamed) {
    sys::fs::remove(temporary);
    errs() << "gnnc: error: cannot write '" << options.outputFile
           << "': " << ec.message() << "\n";
    return false;
  }
  return true;
}
