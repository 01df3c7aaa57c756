//===- CommandLine.h - The command line of a generated trainer --*- C++ -*-===//
//
// Internal to gnnrt. Every generated trainer takes the same options. Those
// that override a train setting (TrainSettings.def's FLAGs: a flag given
// replaces the train block's value) write the effective settings, a copy of
// the compiled ones, once; leaving them out trains as written. The others are
// run-only options (DriverOptions). Options are listed once, in a table
// that both the parser and `--help` read.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_COMMANDLINE_H
#define GNNRT_LIB_TRAIN_COMMANDLINE_H

#include "gnnrt/train/Program.h"

#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace gnnrt {

/// A bad command line; what() is the message without the program name.
/// The trainer exits with status 2.
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The options of a run that are no train setting.
struct DriverOptions {
  bool help = false;
  std::string dataDir;
  int threads = 0; ///< 0: the OpenMP / OpenBLAS defaults
  /// The CUDA device of a trainer built with gnnc --target=cuda (-1: not
  /// given, device 0).
  int device = -1;
  /// Sampled training's background sampler threads (0: none), and whether
  /// the command line chose them (under several ranks sampling is
  /// collective and runs in the training thread unless the command line
  /// asks for 1 thread; more are refused there rather than ignored).
  int samplerThreads = 1;
  /// --sample-on host: a CUDA trainer samples and gathers its batches on
  /// the host (default: on its device).
  bool hostSampling = false;
  bool samplerThreadsGiven = false;
  /// --steps-per-epoch: a sampled program trains at most this many batches
  /// of each epoch (0: all).
  int64_t maxStepsPerEpoch = 0;
  /// With sampler ranks (TrainSettings::samplers): batch requests each
  /// trainer keeps in flight.
  int prefetch = 2;
  /// --node-order: how one process numbers the nodes of a full graph it
  /// trains on, "auto" (the cache model picks) or a NodeOrder's name
  /// (graph/Reorder.h).
  std::string nodeOrder = "auto";
  std::string metricsFile, saveFile, loadFile, predictFile;
  /// With --predict, a link-prediction program's pairs to score.
  std::string pairsFile;
  /// A link-prediction program's node representations (.npy).
  std::string embeddingsFile;
  /// The resumable checkpoint to continue from.
  std::string resumeFile;
  /// The flags that overrode a train setting (named in messages about it).
  std::set<std::string> overrides;
  bool evalOnly = false, stats = false;
  bool gradcheck = false;
  int64_t gradcheckNodes = 12;
  /// Seconds between the batch lines of a long epoch on a non-terminal.
  double progressEvery = 5.0;
  /// --fold K: cross-validated data (graph collections) trains fold K only
  /// (0-based); none: every fold in turn.
  std::optional<int64_t> fold;
};

/// A byte count written as a number with an optional binary unit: 512M,
/// 1G, 1.5GiB, 4096. Throws UsageError naming `option` otherwise.
int64_t parseByteSize(const std::string &option, const std::string &text);

/// The program name to print: argv[0] without its directory.
std::string programName(const char *argv0);

/// Parses the arguments after argv[0]; accepts `--opt value` and
/// `--opt=value`. The options that override a train setting write it in
/// `settings` (the compiled ones on entry, the effective ones on return).
/// Throws UsageError for an unknown option, a missing or malformed value,
/// or a combination that cannot work.
DriverOptions parseCommandLine(const std::vector<std::string> &args,
                               TrainSettings &settings);

/// The `--help` text: every option, then the model and train settings
/// compiled into `program`.
std::string usageText(const std::string &programName,
                      const CompiledProgram &program);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_COMMANDLINE_H
