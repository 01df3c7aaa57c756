//===- AssignmentCache.cpp - Partitionings kept beside the data -----------===//
//
// File layout (little-endian): the magic "GNNPARTS", format version,
// numNodes, numParts, the checksum of the owners, then numNodes int32
// owners.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/AssignmentCache.h"

#include "gnnrt/support/Checksum.h"
#include "gnnrt/support/TempFiles.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

namespace gnnrt {

namespace {

constexpr char kMagic[8] = {'G', 'N', 'N', 'P', 'A', 'R', 'T', 'S'};
constexpr uint64_t kFormatVersion = 1;

struct Header {
  char magic[8];
  uint64_t version;
  int64_t numNodes, numParts;
  uint64_t checksum;
};

uint64_t ownersChecksum(const std::vector<int32_t> &owner) {
  Checksum sum;
  sum.addVector(owner);
  return sum.value();
}

struct FileCloser {
  void operator()(std::FILE *f) const { std::fclose(f); }
};

} // namespace

bool assignmentWorthCaching(const PartitionOptions &options) {
  return options.method == PartitionMethod::Metis ||
         options.method == PartitionMethod::Frequency;
}

std::string assignmentCachePath(const std::string &dir, const Dataset &ds,
                                const PartitionOptions &options) {
  Checksum key;
  key.addValue(kFormatVersion);
  // The graph as partitionNodes sees it.
  key.addValue(ds.numNodes);
  key.addVector(ds.src);
  key.addVector(ds.dst);
  key.addVector(ds.trainIdx);
  key.addVector(ds.edgeType);
  for (const NodeType &type : ds.nodeTypes) {
    key.addString(type.name);
    key.addValue(type.offset);
    key.addValue(type.count);
  }
  // Every option the methods worth caching read.
  key.addValue(int32_t(options.method));
  key.addValue(int32_t(options.numParts));
  for (BalanceConstraint c : options.balance)
    key.addValue(int32_t(c));
  key.addValue(int32_t(options.edgeAssign));
  key.addValue(options.seed);
  key.addValue(options.ufactor);
  key.addVector(options.fanouts);
  key.addValue(options.batchSize);
  char name[64];
  std::snprintf(name, sizeof(name), ".gnnrt-parts-%016" PRIx64 ".bin",
                key.value());
  return (dir.empty() ? std::string(".") : dir) + "/" + name;
}

std::optional<std::vector<int32_t>>
readAssignmentCache(const std::string &path, int64_t numNodes, int numParts) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file)
    return std::nullopt;
  Header header;
  if (std::fread(&header, sizeof(header), 1, file.get()) != 1 ||
      std::memcmp(header.magic, kMagic, sizeof(kMagic)) != 0 ||
      header.version != kFormatVersion || header.numNodes != numNodes ||
      header.numParts != numParts)
    return std::nullopt;
  std::vector<int32_t> owner(static_cast<size_t>(numNodes));
  if (std::fread(owner.data(), sizeof(int32_t), owner.size(), file.get()) !=
          owner.size() ||
      std::fgetc(file.get()) != EOF || ownersChecksum(owner) != header.checksum)
    return std::nullopt;
  for (int32_t part : owner)
    if (part < 0 || part >= numParts)
      return std::nullopt;
  return owner;
}

bool writeAssignmentCache(const std::string &path,
                          const std::vector<int32_t> &owner, int numParts) {
  Header header;
  std::memcpy(header.magic, kMagic, sizeof(kMagic));
  header.version = kFormatVersion;
  header.numNodes = int64_t(owner.size());
  header.numParts = numParts;
  header.checksum = ownersChecksum(owner);
  // Jobs sharing the dataset may write the same file at once: each writes
  // its own temporary, named so that a later writer removes a killed one's.
  const std::filesystem::path target(path);
  const std::string dir = target.parent_path().string();
  const std::string prefix = "." + target.filename().string() + ".tmp-";
  removeStaleTemporaries(dir.empty() ? "." : dir, prefix);
  const std::string temp =
      (target.parent_path() / (prefix + temporaryTag() + "w")).string();
  registerTempFile(temp);
  bool ok = false;
  if (std::FILE *f = std::fopen(temp.c_str(), "wb")) {
    ok = std::fwrite(&header, sizeof(header), 1, f) == 1 &&
         std::fwrite(owner.data(), sizeof(int32_t), owner.size(), f) ==
             owner.size();
    ok = std::fclose(f) == 0 && ok;
  }
  ok = ok && std::rename(temp.c_str(), path.c_str()) == 0;
  if (!ok)
    std::remove(temp.c_str());
  unregisterTempFile(temp);
  return ok;
}

} // namespace gnnrt
