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

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
#include <vector>

using namespace llvm;
using gnnc::TrainerTarget;

static std::string fromEnvironment(const char *name, const char *fallback) {
  const char *value = std::getenv(name);
  return value && *value ? value : fallback;
}

/// The process groups of the running host compilers and the files they
/// write, for the interrupt handler: at most a trainer's two compiles at
/// once, or its link.
constexpr size_t kMaxChildren = 3;
static std::atomic<pid_t> compilerGroups[kMaxChildren];
static std::vector<std::string> tempsForSignal;

/// Runs in the signal handler (LLVM has already restored the default
/// dispositions and removed the files registered with RemoveFileOnSignal):
/// only async-signal-safe calls. A compiler driver's children (cc1plus, as,
/// ld) write the files; each driver leads a process group of its own, so
/// the whole group is stopped, and the files go once no member is left to
/// write one again.
static void stopCompilersAndExit() {
  for (std::atomic<pid_t> &group : compilerGroups)
    if (pid_t running = group.load()) {
      ::kill(-running, SIGTERM);
      ::waitpid(running, nullptr, 0);
      for (int i = 0; i < 500 && ::kill(-running, 0) == 0; ++i) {
        struct timespec pause = {0, 10'000'000};
        ::nanosleep(&pause, nullptr);
      }
    }
  for (const std::string &temp : tempsForSignal)
    ::unlink(temp.c_str());
  ::raise(SIGTERM);
}

/// Starts `args` as the leader of a new process group; -1 on failure.
static pid_t spawnGroup(const std::vector<std::string> &args,
                        std::string &error) {
  std::vector<char *> argv;
  for (const std::string &arg : args)
    argv.push_back(const_cast<char *>(arg.c_str()));
  argv.push_back(nullptr);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = -1;
  int failed = posix_spawn(&pid, argv[0], nullptr, &attributes, argv.data(),
                           environ);
  posix_spawnattr_destroy(&attributes);
  if (failed) {
    error = std::string("cannot run ") + argv[0] + ": " + std::strerror(failed);
    return -1;
  }
  return pid;
}

/// Runs `commands` at once and waits for all of them; false after printing
/// which failed. SIGTERM or SIGINT sent to gnnc alone would leave them
/// running, and a linker would write a temporary after gnnc removed it: the
/// handler stops them, then removes `temps`.
static bool runAll(const std::vector<std::vector<std::string>> &commands,
                   const std::vector<std::string> &temps, bool verbose,
                   const char *what) {
  assert(commands.size() <= kMaxChildren && "more children than slots");
  for (const std::vector<std::string> &args : commands)
    if (verbose) {
      for (size_t i = 0; i < args.size(); ++i)
        errs() << (i ? " " : "") << args[i];
      errs() << "\n";
    }
  tempsForSignal = temps;
  sys::SetInterruptFunction(stopCompilersAndExit);
  std::string error;
  std::vector<pid_t> children;
  for (const std::vector<std::string> &args : commands) {
    pid_t pid = spawnGroup(args, error);
    if (pid < 0)
      break;
    compilerGroups[children.size()].store(pid);
    children.push_back(pid);
  }
  int status = children.size() == commands.size() ? 0 : -1;
  for (size_t i = 0; i < children.size(); ++i) {
    int wstatus = 0;
    while (::waitpid(children[i], &wstatus, 0) < 0 && errno == EINTR) {
    }
    compilerGroups[i].store(0);
    int code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    if (status == 0 && code != 0) {
      status = code;
      if (WIFSIGNALED(wstatus))
        error = std::string("killed by signal ") +
                std::to_string(WTERMSIG(wstatus));
    }
  }
  sys::SetInterruptFunction(nullptr);
  if (status == 0)
    return true;
  errs() << "gnnc: error: the " << what << " compiler failed"
         << (error.empty() ? " (exit " + std::to_string(status) + ")"
                           : ": " + error)
         << "; rerun with -v to see its command line\n";
  return false;
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
  std::vector<std::string> compile = {tools.compiler, "-std=c++17",
                                      "-O" + std::to_string(options.optLevel)};
  compile.insert(compile.end(), tools.flags.begin(), tools.flags.end());
  compile.push_back("-I" + includeDir);
  std::vector<std::string> link = compile;
  std::vector<std::string> objects, temps = {std::string(temporary)};
  bool built = true;
  if (options.target == TrainerTarget::Cpu) {
    // Three translation units of the one file, compiled at once (the
    // generated file's GNNC_UNIT): main with the float32 forward, the
    // float32 train step, and the float64 entry points (--gradcheck's) at
    // -O1 (correct, and speed does not matter there). A deep model's train
    // step is the largest part; on two cores the build takes about the
    // time of that unit alone.
    const char *units[] = {"main", "step", "f64"};
    for (int unit = 1; unit <= 3; ++unit) {
      std::string object =
          std::string(temporary) + "." + units[unit - 1] + ".o";
      sys::RemoveFileOnSignal(object);
      temps.push_back(object);
      objects.push_back(object);
    }
    std::vector<std::vector<std::string>> compiles;
    for (int unit = 1; unit <= 3; ++unit) {
      std::vector<std::string> args = compile;
      if (unit == 3)
        args[2] = "-O" + std::to_string(std::min(options.optLevel, 1u));
      args.insert(args.end(), {"-DGNNC_UNIT=" + std::to_string(unit), "-c",
                               options.sourceFile, "-o", objects[unit - 1]});
      compiles.push_back(std::move(args));
    }
    built = runAll(compiles, temps, options.verbose, "C++");
  } else {
    objects = {options.sourceFile};
  }
  if (built) {
    link.insert(link.end(), objects.begin(), objects.end());
    link.insert(link.end(), tools.beforeRuntime.begin(),
                tools.beforeRuntime.end());
    link.push_back(library);
    link.insert(link.end(), tools.afterRuntime.begin(),
                tools.afterRuntime.end());
    link.push_back("-o");
    link.push_back(std::string(temporary));
    for (StringRef lib : split(StringRef(GNNRT_LINK_LIBRARIES), '|'))
      if (!lib.empty())
        link.push_back(lib.str());
    built = runAll({link}, temps, options.verbose,
                   options.target == TrainerTarget::Cuda ? "CUDA" : "C++");
  }
  for (size_t i = 1; i < temps.size(); ++i) {
    sys::fs::remove(temps[i]);
    sys::DontRemoveFileOnSignal(temps[i]);
  }
  if (!built) {
    sys::fs::remove(temporary);
    sys::DontRemoveFileOnSignal(temporary);
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
