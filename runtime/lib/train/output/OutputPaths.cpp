//===- OutputPaths.cpp - The outputs, checked before training -------------===//
//
// See OutputPaths.h. Files are compared by device and inode, so another
// spelling of the same file (`./w.st`, a symbolic link) is still the same.
//
//===----------------------------------------------------------------------===//

#include "OutputPaths.h"

#include "gnnrt/data/DatasetCache.h"
#include "gnnrt/support/Error.h"

#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace gnnrt {

namespace {

struct Output {
  std::string option, path;
};

/// The same file, existing (same inode) or to be created (the same path
/// once `.`, `..` and symbolic links are resolved).
bool sameFile(const std::string &a, const std::string &b) {
  struct stat sa, sb;
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ea, eb;
  fs::path ca = fs::weakly_canonical(a, ea), cb = fs::weakly_canonical(b, eb);
  return !ea && !eb && ca == cb;
}

bool isSpecial(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode) &&
         !S_ISDIR(info.st_mode);
}

[[noreturn]] void fail(const Output &out, const std::string &problem) {
  throw DataError(out.option + " " + out.path + ": cannot write: " + problem);
}

void checkOne(const Output &out) {
  std::error_code ec;
  if (fs::is_directory(out.path, ec))
    fail(out, "it is a directory");
  if (isSpecial(out.path)) {
    if (::access(out.path.c_str(), W_OK) != 0)
      fail(out, "permission denied");
    return;
  }
  // A regular file is written beside itself and renamed over: its
  // directory must exist and be writable.
  fs::path parent = fs::path(out.path).parent_path();
  std::string dir = parent.empty() ? "." : parent.string();
  if (!fs::exists(dir, ec))
    fail(out, "directory '" + dir + "' does not exist");
  if (!fs::is_directory(dir, ec))
    fail(out, "'" + dir + "' is not a directory");
  if (::access(dir.c_str(), W_OK) != 0)
    fail(out, "directory '" + dir + "' is not writable");
}

} // namespace

void checkOutputPaths(const DriverOptions &options,
                      const TrainSettings &settings) {
  std::vector<Output> outputs;
  auto add = [&](const char *option, const std::string &path) {
    if (!path.empty())
      outputs.push_back({option, path});
  };
  // --eval-only writes the predictions only.
  if (!options.evalOnly) {
    add("--metrics", options.metricsFile);
    add("--save", options.saveFile);
    // Named as the user gave it: the flag, or the train block's setting.
    add(options.overrides.count("--checkpoint") ? "--checkpoint" : "checkpoint",
        settings.checkpointFile);
  }
  add("--predict", options.predictFile);

  std::vector<std::string> inputs;
  if (!options.dataDir.empty())
    inputs = datasetSourceFiles(options.dataDir);
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Output &out = outputs[i];
    checkOne(out);
    if (isSpecial(out.path))
      continue; // /dev/null may be named by every output
    for (const std::string &input : inputs)
      if (sameFile(out.path, input))
        fail(out, "it is the dataset file " + input);
    // --save or the checkpoint over --load replaces the weights with their
    // trained version, as intended; predictions or metrics would lose them.
    if ((out.option == "--predict" || out.option == "--metrics") &&
        !options.loadFile.empty() &&
        sameFile(out.path, options.loadFile))
      fail(out, "it is the --load file");
    if ((out.option == "--predict" || out.option == "--metrics") &&
        !options.resumeFile.empty() &&
        sameFile(out.path, options.resumeFile))
      fail(out, "it is the --resume file");
    for (size_t j = 0; j < i; ++j)
      if (sameFile(outputs[j].path, out.path))
        fail(out, "it is also the " + outputs[j].option + " file");
  }
}

} // namespace gnnrt
