//===- PartitionWriter.cpp - Writing a partition directory atomically -----===//
//
// A partitioning is many files that are only meaningful together, so it is
// written into a temporary sibling directory (same file system, hence
// rename-able) and moved into place when complete. Any error on the way
// removes the temporary directory, and so does SIGTERM, SIGINT or SIGHUP
// (support/TempFiles.h); its name carries the writer's pid, so that the next
// run removes what a writer killed by SIGKILL left. The target is never
// half-written, and an earlier partitioning under that name survives a
// failed run. The directories get the permissions the umask gives, as
// `mkdir` would (mkdtemp makes them private). Parts are
// extracted and written one at a time, so peak memory is the dataset plus
// the plan plus one part.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/PartitionDirectory.h"

#include "PartitionFiles.h"
#include "PartitionWriting.h"
#include "gnnrt/data/DatasetSlice.h"
#include "gnnrt/io/AtomicFile.h"
#include "gnnrt/io/Npy.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/TempFiles.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace gnnrt {

namespace files = partition_files;

TreeGuard::~TreeGuard() {
  if (!dir.empty()) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    unregisterTempFile(dir);
  }
}

namespace {
/// Strips trailing slashes, so that messages and siblings name the target.
std::string targetName(const std::string &outDir) {
  std::string outName = outDir;
  while (outName.size() > 1 && outName.back() == '/')
    outName.pop_back();
  return outName;
}

/// The directory `target` is in, and the prefix of its siblings' names.
std::string parentOf(const fs::path &target) {
  fs::path parent = target.parent_path();
  return (parent.empty() ? fs::path(".") : parent).string();
}
std::string siblingPrefix(const fs::path &target, const char *tag) {
  return "." + target.filename().string() + "." + tag + "-";
}

/// A new empty directory next to `target`, named .<name>.<tag>-<pid>-XXXXXX,
/// with the umask's permissions; a `temporary` one is removed if a signal
/// ends the run (an earlier partitioning moved aside is not: a signal between
/// the two renames must not lose it).
std::string makeSibling(const fs::path &target, const char *tag,
                        bool temporary) {
  std::string pattern = parentOf(target) + "/" + siblingPrefix(target, tag) +
                        temporaryTag() + "XXXXXX";
  if (!mkdtemp(pattern.data()))
    throwDataError(target.string(), 0,
                   std::string("cannot create a directory beside it: ") +
                       std::strerror(errno));
  if (temporary)
    registerTempDirectory(pattern);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::chmod(pattern.c_str(), 0777 & ~mask);
  return pattern;
}

void writeInt64(const std::string &path, const std::vector<int64_t> &v) {
  writeNpy(path, NpyType::Int64, {int64_t(v.size())}, v.data());
}
void writeInt32(const std::string &path, const std::vector<int32_t> &v) {
  writeNpy(path, NpyType::Int32, {int64_t(v.size())}, v.data());
}
} // namespace

void writePartDirectory(const std::string &root, const Partition &p,
                        bool withCache, bool withFeatures) {
  const std::string dir = root + "/" + partDirectoryName(p.part);
  std::error_code ec;
  fs::create_directory(dir, ec);
  if (ec)
    throwDataError(dir, 0, "cannot create directory: " + ec.message());
  auto at = [&](const char *name) { return dir + "/" + name; };
  writeInt64(at(files::kNodes), p.ownedNodes);
  writeInt64(at(files::kHaloNodes), p.haloNodes);
  writeInt32(at(files::kHaloOwner), p.haloOwners);
  writeInt64(at(files::kIndptr), p.indptr);
  writeInt32(at(files::kIndices), p.indices);
  writeInt64(at(files::kEdgeIds), p.edgeIds);
  if (!p.relations.empty())
    writeInt32(at(files::kEdgeTypes), p.edgeTypes);
  writeInt64(at(files::kRecvOffsets), p.recvOffsets);
  writeInt64(at(files::kSendOffsets), p.sendOffsets);
  writeInt64(at(files::kSendNodes), p.sendNodes);
  if (withFeatures && p.numFeatures > 0 && p.featuresFile.empty())
    writeNpy(at(files::kFeatures), NpyType::Float32,
             {p.numOwned(), p.numFeatures}, p.features.data());
  writeInt64(at(files::kLabels), p.labels);
  writeInt64(at(files::kTrainIdx), p.trainIdx);
  writeInt64(at(files::kValidIdx), p.validIdx);
  writeInt64(at(files::kTestIdx), p.testIdx);
  if (withCache) {
    writeInt64(at(files::kCachedNodes), p.cachedNodes);
    if (p.numFeatures > 0)
      writeNpy(at(files::kCachedFeatures), NpyType::Float32,
               {p.numCached(), p.numFeatures}, p.cachedFeatures.data());
  }
}

void writePartFeatureRows(const std::string &root, const Partition &p,
                          const std::string &datasetFeatures) {
  const int64_t f = p.numFeatures;
  const NpyHeader h = readNpyHeader(datasetFeatures);
  if (h.type != NpyType::Float32 || h.shape.size() != 2 ||
      h.shape[0] != p.numGlobalNodes || h.shape[1] != f)
    throwDataError(datasetFeatures, 0,
                   "expected float32 rows of shape [" +
                       std::to_string(p.numGlobalNodes) + ", " +
                       std::to_string(f) + "]");
  std::ifstream in(datasetFeatures, std::ios::binary);
  if (!in)
    throwDataError(datasetFeatures, 0, "cannot open for reading");
  NpyWriter out(root + "/" + partDirectoryName(p.part) + "/" + files::kFeatures,
                NpyType::Float32, {p.numOwned(), f});
  const size_t rowBytes = size_t(f) * sizeof(float);
  const int64_t chunkRows =
      std::max<int64_t>(1, int64_t((size_t(4) << 20) / rowBytes));
  std::vector<float> rows(size_t(chunkRows * f));
  for (int64_t first = 0; first < p.numOwned(); first += chunkRows) {
    const int64_t count = std::min(chunkRows, p.numOwned() - first);
    // Runs of consecutive owned ids are one read each.
    for (int64_t i = 0; i < count;) {
      const int64_t node = p.ownedNodes[size_t(first + i)];
      int64_t run = 1;
      while (i + run < count &&
             p.ownedNodes[size_t(first + i + run)] == node + run)
        ++run;
      float *at = rows.data() + i * f;
      in.seekg(std::streamoff(h.dataOffset + size_t(node) * rowBytes));
      in.read(reinterpret_cast<char *>(at),
              std::streamsize(run) * std::streamsize(rowBytes));
      if (!in)
        throwDataError(datasetFeatures, 0,
                       "short read of the rows of nodes " +
                           std::to_string(node) + " to " +
                           std::to_string(node + run - 1));
      checkFiniteRows(datasetFeatures, at, run * f, f, node);
      i += run;
    }
    out.write(first * f, rows.data(), count * f);
  }
  out.close();
}

std::string startPartitionDirectory(const std::string &outDir) {
  const std::string outName = targetName(outDir);
  const fs::path target(outName);
  std::error_code ec;
  if (fs::exists(target, ec)) {
    if (!fs::is_directory(target, ec))
      throwDataError(outName, 0, "exists and is not a directory");
    if (!fs::is_empty(target, ec) && !fs::exists(target / files::kManifest, ec))
      throwDataError(outName, 0,
                     "refusing to replace a non-empty directory that holds "
                     "no partition manifest");
  } else if (!target.parent_path().empty()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec)
      throwDataError(target.parent_path().string(), 0,
                     "cannot create directory: " + ec.message());
  }
  // What writers killed by SIGKILL left: their half-written directories, and
  // an earlier partitioning moved aside once the new one is in place.
  removeStaleTemporaries(parentOf(target), siblingPrefix(target, "tmp"));
  if (fs::exists(target / files::kManifest, ec))
    removeStaleTemporaries(parentOf(target), siblingPrefix(target, "old"));
  return makeSibling(target, "tmp", /*temporary=*/true);
}

void writePartitionBookAndManifest(const std::string &dir,
                                   const std::vector<int32_t> &owner,
                                   const PartitionManifest &manifest) {
  writeInt32(dir + "/" + files::kNodeOwner, owner);
  AtomicFile file(dir + "/" + files::kManifest);
  std::string text = manifestToJson(manifest);
  file.write(text.data(), text.size());
  file.commit();
}

void finishPartitionDirectory(const std::string &temp,
                              const std::string &outDir) {
  // POSIX rename replaces an empty directory; a previous partitioning is
  // first moved aside, then removed.
  const std::string outName = targetName(outDir);
  const fs::path target(outName);
  std::error_code ec;
  std::string aside;
  if (fs::exists(target, ec) && !fs::is_empty(target, ec)) {
    aside = makeSibling(target, "old", /*temporary=*/false);
    fs::rename(target, aside, ec);
    if (ec) {
      std::string problem = ec.message();
      fs::remove(aside, ec);
      throwDataError(outName, 0, "cannot replace: " + problem);
    }
  }
  fs::rename(temp, target, ec);
  if (ec) {
    std::string problem = ec.message();
    if (!aside.empty())
      fs::rename(aside, target, ec); // put the old one back
    throwDataError(outName, 0, "cannot write: " + problem);
  }
  unregisterTempFile(temp);
  if (!aside.empty())
    fs::remove_all(aside, ec);
}

void writePartitions(const std::string &outDir, const Dataset &ds,
                     const PartitionPlan &plan,
                     const PartitionManifest &manifest) {
  // The cache files exist exactly when the manifest announces a cache.
  if ((manifest.cacheRatio > 0) != (plan.cacheRatio > 0) ||
      manifest.parts != plan.counts)
    throw DataError("partition: the manifest does not describe the plan "
                    "(fill it with fillManifestCounts)");
  std::string temp = startPartitionDirectory(outDir);
  TreeGuard removeTemp(temp);
  for (int k = 0; k < plan.numParts; ++k)
    writePartDirectory(temp, extractPartition(ds, plan, k),
                       manifest.cacheRatio > 0);
  writePartitionBookAndManifest(temp, plan.owner, manifest);
  finishPartitionDirectory(temp, outDir);
  removeTemp.release();
}

} // namespace gnnrt
