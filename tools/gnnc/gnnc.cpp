//===- gnnc.cpp - The gnnc compiler driver --------------------------------===//
//
// gnnc reads a .gnn program, checks it, and emits the requested stage:
//   --emit=ast    the parsed and type-annotated AST
//   --emit=mlir   the gnn dialect module (each model's forward function)
//   --emit=train  the module after gnnc's pass pipeline (forward + train
//                 step, fused): gnn-train-pipeline, which gnn-opt also runs
//   --emit=cpp    the generated C++ trainer
//   --emit=cuda   the generated CUDA trainer
//   --emit=exe    (default) the trainer executable, built by the host C++
//                 compiler against the gnnrt runtime
// --verify-diagnostics checks `// expected-error {{...}}` comments instead of
// printing diagnostics: the front end's, and (up to --emit, at most the
// train pipeline) those of MLIRGen and the passes. Exit status: 0 on
// success, 1 on any error.
//
//===----------------------------------------------------------------------===//
#include "DatasetWidths.h"
#include "HostCompiler.h"

#include "gnn/MLIRGen/MLIRGen.h"
#include "gnn/Pipelines/Pipelines.h"
#include "gnn/Target/Cpp/EmitCpp.h"
#include "gnn/Target/Cuda/EmitCuda.h"
#include "gnn/Version.h"
#include "gnn/lang/Frontend.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <iostream>
#include <sstream>

namespace cl = llvm::cl;

/// gnnc's own options: the only ones --help lists (libLLVM, loaded with
/// MLIR, registers a few hundred codegen and target options of its own).
static cl::OptionCategory gnncCategory("gnnc options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<input .gnn file>"),
                                      cl::Required, cl::cat(gnncCategory));
enum class EmitKind { AST, MLIR, Train, Cpp, Cuda, Exe };
static cl::opt<EmitKind>
    emit("emit", cl::desc("Stage to produce"), cl::init(EmitKind::Exe),
         cl::values(
             clEnumValN(EmitKind::AST, "ast", "the type-checked AST"),
             clEnumValN(EmitKind::MLIR, "mlir", "the gnn dialect module"),
             clEnumValN(EmitKind::Train, "train",
                        "the module after the pass pipeline (forward and train "
                        "step)"),
             clEnumValN(EmitKind::Cpp, "cpp", "the generated C++ trainer"),
             clEnumValN(EmitKind::Cuda, "cuda",
                        "the generated CUDA trainer (--target=cuda)"),
             clEnumValN(EmitKind::Exe, "exe",
                        "the trainer executable (the default)")),
         cl::cat(gnncCategory));
enum class Target { Cpu, Cuda };
static cl::opt<Target> target(
    "target", cl::desc("Where the trainer runs"), cl::init(Target::Cpu),
    cl::values(clEnumValN(Target::Cpu, "cpu",
                          "the CPU: C++ with OpenMP (the default)"),
               clEnumValN(Target::Cuda, "cuda",
                          "a CUDA device: generated kernels built by nvcc")),
    cl::cat(gnncCategory));
static cl::opt<bool> cudaEmulate(
    "cuda-emulate",
    cl::desc("With --target=cuda: build the trainer with the host compiler "
             "over gnnrt's CUDA emulation, to run without a GPU (tests)"),
    cl::cat(gnncCategory));
static cl::opt<std::string>
    outputFile("o",
               cl::desc("Output file (default: stdout; for --emit=exe, the "
                        "input's name without .gnn)"),
               cl::value_desc("file"), cl::init(""), cl::cat(gnncCategory));
static cl::opt<unsigned>
    optLevel("O", cl::desc("Optimization level of the host C++ compiler (0-3)"),
             cl::Prefix, cl::init(2), cl::cat(gnncCategory));
static cl::opt<bool> verbose("v", cl::desc("Print the host compiler's command"),
                             cl::cat(gnncCategory));
static cl::opt<std::string>
    keepCpp("save-cpp",
            cl::desc("With --emit=exe, also keep the generated C++ here"),
            cl::value_desc("file"), cl::init(""), cl::cat(gnncCategory));
static cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check expected-error/-warning/-note comments in the input"),
    cl::cat(gnncCategory));
static cl::list<std::string>
    importPaths("I", cl::desc("Add a directory to the import search path"),
                cl::Prefix, cl::cat(gnncCategory));
static cl::opt<bool>
    noDebugLocs("no-locs", cl::desc("Print MLIR without source locations"),
                cl::cat(gnncCategory));

static cl::opt<int64_t> assumeFeatures(
    "assume-features",
    cl::desc("Input feature width the reordering cost model assumes where "
             "the dataset does not fix it"),
    cl::init(gnn::kAssumedFeatures), cl::cat(gnncCategory));
static cl::opt<int64_t> assumeClasses(
    "assume-classes",
    cl::desc("Class count the reordering cost model assumes where the "
             "dataset does not fix it"),
    cl::init(gnn::kAssumedClasses), cl::cat(gnncCategory));
static cl::opt<std::string> dataDir(
    "data",
    cl::desc("Read the input feature width and the class count the "
             "reordering cost model uses from this .npy dataset directory "
             "(the one the trainer will read); --assume-features and "
             "--assume-classes override it"),
    cl::value_desc("dir"), cl::init(""), cl::cat(gnncCategory));
static cl::opt<bool> noFusion("no-fuse",
                              cl::desc("Emit one loop or kernel call per op"),
                              cl::cat(gnncCategory));
static cl::opt<bool> noHoist(
    "no-hoist",
    cl::desc("Recompute on every step what every step computes alike "
             "(gnn-hoist-invariants is off for --target=cuda anyway)"),
    cl::cat(gnncCategory));

/// The widths `--data` read (-1 where it was not given or did not say).
static gnnc::DatasetWidths dataWidths;

/// The passes between MLIRGen and C++ (gnn-train-pipeline, the same that
/// gnn-opt runs), with the options of this command line.
static mlir::LogicalResult lowerForTraining(mlir::ModuleOp module) {
  gnn::TrainPipelineOptions options;
  options.fuse = !noFusion;
  // An explicit estimate wins over the dataset's; the dataset's over the
  // defaults.
  auto width = [](const cl::opt<int64_t> &assumed, int64_t fromData) {
    return assumed.getNumOccurrences() || fromData <= 0 ? assumed.getValue()
                                                        : fromData;
  };
  options.assumeFeatures = width(assumeFeatures, dataWidths.features);
  options.assumeClasses = width(assumeClasses, dataWidths.classes);
  // The CUDA target keeps nothing across calls (its memory is the plan's
  // one allocation).
  options.hoistInvariants = !noHoist && target != Target::Cuda;
  mlir::PassManager pm(module.getContext());
  gnn::buildTrainPipeline(pm, options);
  return pm.run(module);
}

/// Prints the passes' and the emitter's diagnostics as `file:line:col:
/// severity: message` (MLIR's default handler drops warnings).
static void printDiagnostics(mlir::MLIRContext &context) {
  context.getDiagEngine().registerHandler([](mlir::Diagnostic &diag) {
    std::string where = "gnnc";
    if (auto file = diag.getLocation()->findInstanceOf<mlir::FileLineColLoc>())
      where = (file.getFilename().str() + ":" + std::to_string(file.getLine()) +
               ":" + std::to_string(file.getColumn()));
    const char *severity =
        diag.getSeverity() == mlir::DiagnosticSeverity::Error     ? "error"
        : diag.getSeverity() == mlir::DiagnosticSeverity::Warning ? "warning"
                                                                  : "note";
    llvm::errs() << where << ": " << severity << ": " << diag.str() << "\n";
    return mlir::success();
  });
}

/// --verify-diagnostics: the passes' diagnostics join the front end's, each
/// at the source location it names, to be matched against the comments.
static void collectDiagnostics(mlir::MLIRContext &context,
                               gnn::lang::Compilation &compilation) {
  auto sourceLoc = [&compilation](mlir::Location where) {
    gnn::lang::SourceLoc loc;
    if (auto file = where->findInstanceOf<mlir::FileLineColLoc>())
      for (uint32_t id = 1; id <= compilation.sources().size(); ++id)
        if (compilation.sources().name(id) == file.getFilename().strref())
          loc = {id, file.getLine(), file.getColumn()};
    return loc;
  };
  context.getDiagEngine().registerHandler(
      [&compilation, sourceLoc](mlir::Diagnostic &diag) {
        gnn::lang::Severity severity =
            diag.getSeverity() == mlir::DiagnosticSeverity::Error
                ? gnn::lang::Severity::Error
            : diag.getSeverity() == mlir::DiagnosticSeverity::Warning
                ? gnn::lang::Severity::Warning
                : gnn::lang::Severity::Note;
        // Attached notes are left out, as printDiagnostics prints none.
        compilation.diagnostics().report(
            severity, sourceLoc(diag.getLocation()), diag.str());
        return mlir::success();
      });
}

/// --emit=exe: lower, emit C++ to a temporary file and build it.
static bool buildExecutable(gnn::lang::Compilation &compilation) {
  mlir::MLIRContext context;
  printDiagnostics(context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      gnn::mlirgen::emitModule(context, compilation);
  if (!module || mlir::failed(lowerForTraining(*module)))
    return false;

  const bool cuda = target == Target::Cuda;
  llvm::SmallString<128> cppFile;
  std::string stem = llvm::sys::path::stem(inputFile).str();
  // The name carries gnnc's pid, so that a later gnnc removes what one
  // killed by SIGKILL left in the temporary directory.
  llvm::SmallString<128> tempDir;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, tempDir);
  gnnc::removeStaleTemporaries(std::string(tempDir), "gnnc-");
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          gnnc::temporaryPrefix("gnnc-") + stem, cuda ? "cu" : "cpp",
          cppFile)) {
    llvm::errs() << "gnnc: error: cannot create a temporary file: "
                 << ec.message() << "\n";
    return false;
  }
  // SIGTERM or SIGINT during the host compile (the long part) must not
  // leave the generated C++ in /tmp: InitLLVM's handlers remove it.
  llvm::sys::RemoveFileOnSignal(cppFile);
  bool ok = false;
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(cppFile, ec);
    ok = !ec &&
         mlir::succeeded(cuda ? gnn::cuda::emitCuda(*module, os, {inputFile})
                              : gnn::cpp::emitCpp(*module, os, {inputFile}));
  }
  if (ok && !keepCpp.empty())
    ok = !llvm::sys::fs::copy_file(cppFile, keepCpp);
  if (ok) {
    gnnc::HostCompileOptions options;
    options.sourceFile = std::string(cppFile);
    options.target = !cuda         ? gnnc::TrainerTarget::Cpu
                     : cudaEmulate ? gnnc::TrainerTarget::CudaEmulated
                                   : gnnc::TrainerTarget::Cuda;
    options.outputFile = outputFile.empty() ? stem : outputFile;
    options.optLevel = optLevel;
    options.verbose = verbose;
    ok = gnnc::compileTrainer(options);
  }
  llvm::sys::fs::remove(cppFile);
  llvm::sys::DontRemoveFileOnSignal(cppFile);
  return ok;
}

/// The outputs must not be the input (`gnnc p.gnn -o p.gnn`, or another
/// spelling of the same file, would replace the program with the binary)
/// and their directory must exist: checked before compiling, so that the
/// error names the path at once. An output that is `replaced` (renamed
/// over, as the trainer is) must not be a device or a pipe: root would
/// replace `/dev/null` itself. Returns false after printing the error.
static bool checkOutputPath(const std::string &path, const char *option,
                            bool replaced = false) {
  if (path.empty() || path == "-")
    return true;
  bool same = false;
  if (!llvm::sys::fs::equivalent(inputFile, path, same) && same) {
    llvm::errs() << "gnnc: error: " << option << " " << path
                 << ": is the input file " << inputFile
                 << " (it would be overwritten)\n";
    return false;
  }
  if (llvm::sys::fs::is_directory(path)) {
    llvm::errs() << "gnnc: error: " << option << " " << path
                 << ": is a directory\n";
    return false;
  }
  llvm::sys::fs::file_status status;
  if (replaced && !llvm::sys::fs::status(path, status) &&
      status.type() != llvm::sys::fs::file_type::regular_file) {
    llvm::errs() << "gnnc: error: " << option << " " << path
                 << ": is not a regular file (the trainer replaces it; "
                    "--emit=cpp checks a program without building it)\n";
    return false;
  }
  llvm::StringRef dir = llvm::sys::path::parent_path(path);
  if (!dir.empty() && !llvm::sys::fs::is_directory(dir)) {
    llvm::errs() << "gnnc: error: " << option << " " << path
                 << ": directory '" << dir << "' does not exist\n";
    return false;
  }
  return true;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Hidden even from --help-hidden: only gnnc's options and the generic
  // ones (--help, --version) are gnnc's interface.
  cl::HideUnrelatedOptions(gnncCategory);
  cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { gnn::printVersion(os, "gnnc"); });
  cl::ParseCommandLineOptions(argc, argv, "gnnc: the .gnn compiler\n");

  gnn::lang::FrontendOptions options;
  for (const std::string &p : importPaths)
    options.importPaths.push_back(p);
  options.importPaths.push_back(GNNC_STDLIB_DIR);
  options.verifyDiagnostics = verifyDiagnostics;
  if (!verifyDiagnostics &&
      (!checkOutputPath(outputFile, "-o", emit == EmitKind::Exe) ||
       !checkOutputPath(keepCpp, "--save-cpp")))
    return 1;
  gnn::lang::Compilation compilation(options);
  bool ok = compilation.run(inputFile);

  if (verifyDiagnostics) {
    // A checked program goes on through MLIRGen and, unless --emit stops
    // before, the train pipeline: the errors those find are verified too.
    if (ok && emit != EmitKind::AST) {
      mlir::MLIRContext context;
      collectDiagnostics(context, compilation);
      mlir::OwningOpRef<mlir::ModuleOp> module =
          gnn::mlirgen::emitModule(context, compilation);
      if (module && emit != EmitKind::MLIR)
        (void)lowerForTraining(*module);
    }
    bool matched = gnn::lang::verifyDiagnostics(
        compilation.sources(), compilation.diagnostics(), std::cerr);
    return matched ? 0 : 1;
  }
  if (!ok)
    return 1;

  if (cudaEmulate && target != Target::Cuda) {
    llvm::errs() << "gnnc: error: --cuda-emulate builds a CUDA trainer: it "
                    "needs --target=cuda\n";
    return 1;
  }
  if (emit == EmitKind::Cpp && target == Target::Cuda) {
    llvm::errs() << "gnnc: error: --emit=cpp prints the CPU target's C++; "
                    "the CUDA target's source is --emit=cuda\n";
    return 1;
  }
  if (optLevel > 3) {
    llvm::errs() << "gnnc: error: -O" << optLevel << ": expected 0 to 3\n";
    return 1;
  }
  if (!dataDir.empty()) {
    std::string error;
    if (!gnnc::readDatasetWidths(dataDir, dataWidths, error)) {
      llvm::errs() << "gnnc: error: --data " << dataDir << ": " << error
                   << "\n";
      return 1;
    }
  }
  if (emit == EmitKind::Exe)
    return buildExecutable(compilation) ? 0 : 1;

  std::string error;
  auto out = mlir::openOutputFile(
      outputFile.empty() ? std::string("-") : outputFile.getValue(), &error);
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
  printDiagnostics(context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      gnn::mlirgen::emitModule(context, compilation);
  if (!module)
    return 1;
  if (emit != EmitKind::MLIR && mlir::failed(lowerForTraining(*module)))
    return 1;
  if (emit == EmitKind::Cpp || emit == EmitKind::Cuda) {
    if (mlir::failed(emit == EmitKind::Cuda
                         ? gnn::cuda::emitCuda(*module, out->os(), {inputFile})
                         : gnn::cpp::emitCpp(*module, out->os(), {inputFile})))
      return 1;
    out->keep();
    return 0;
  }
  mlir::OpPrintingFlags flags;
  if (!noDebugLocs)
    flags.enableDebugInfo(/*enable=*/true);
  module->print(out->os(), flags);
  out->keep();
  return 0;
}
