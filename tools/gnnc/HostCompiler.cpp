//===- HostCompiler.cpp - compile generated C++ into a trainer ------------===//
//
// The runtime's location and link line are fixed when gnnc is built
// (GNNRT_INCLUDE_DIR, GNNRT_LIBRARY, GNNRT_LINK_LIBRARIES); GNNRT_LIBRARY and
// GNNRT_INCLUDE_DIR in the environment override them, for an installed or
// relocated runtime. GNNRT_LIBRARY is one archive holding every runtime
// library (libgnnrt.a); generated code includes gnnrt/kernels/Kernels.h and
// gnnrt/train/Program.h from GNNRT_INCLUDE_DIR.
//
//===----------------------------------------------------------------------===//

#include "HostCompiler.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace llvm;

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

bool gnnc::compileTrainer(const HostCompileOptions &options) {
  std::string compilerName = fromEnvironment("CXX", "c++");
  ErrorOr<std::string> compiler = sys::findProgramByName(compilerName);
  // findProgramByName returns a name with a slash unchecked.
  if (!compiler || !sys::fs::can_execute(*compiler)) {
    errs() << "gnnc: error: cannot find the C++ compiler '" << compilerName
           << "' (install g++ or set CXX)\n";
    return false;
  }
  std::string includeDir =
      fromEnvironment("GNNRT_INCLUDE_DIR", GNNRT_INCLUDE_DIR);
  std::string library = fromEnvironment("GNNRT_LIBRARY", GNNRT_LIBRARY);
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
  // failed build never leaves a half-written executable under its name.
  SmallString<256> temporary;
  if (std::error_code ec = sys::fs::createUniqueFile(
          options.outputFile + ".tmp-%%%%%%", temporary)) {
    errs() << "gnnc: error: cannot create '" << options.outputFile
           << ".tmp-*': " << ec.message() << "\n";
    return false;
  }

  // Removed if SIGTERM or SIGINT ends gnnc while the compiler runs.
  sys::RemoveFileOnSignal(temporary);
  std::vector<std::string> args = {*compiler,
                                   "-std=c++17",
                                   "-O" + std::to_string(options.optLevel),
                                   "-fopenmp",
                                   "-I" + includeDir,
                                   options.sourceFile,
                                   library,
                                   "-o",
                                   std::string(temporary)};
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
      *compiler, argv, /*Env=*/std::nullopt, /*Redirects=*/{}, 0, &error);
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
    errs() << "gnnc: error: the C++ compiler failed"
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
