//===- PartitionReader.cpp - Loading one rank's part, validated -----------===//
//
// A rank reads manifest.json and its own part<k>/ directory, nothing else.
// Every file is checked against the manifest before use (present, the exact
// dtype and shape, not truncated) and every id against its range, so that a
// wrong rank count, a partition from another run or a damaged file stops
// the program before training with a message that names the file, instead
// of surfacing later as an out-of-bounds read inside a kernel.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/PartitionDirectory.h"

#include "PartitionFiles.h"
#include "gnnrt/io/Npy.h"
#include "gnnrt/support/Error.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace gnnrt {

namespace {
namespace files = partition_files;

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

/// Reads `path` as an array of exactly `type` and `shape` into `out`.
template <typename T>
void readArray(const std::string &path, NpyType type,
               const std::vector<int64_t> &shape, std::vector<T> &out) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throwDataError(path, 0, "missing partition file");
  NpyArray a = readNpy(path);
  if (a.header.type != type)
    throwDataError(path, 0,
                   std::string("expected dtype '") + npyDescr(type) +
                       "', found '" + npyDescr(a.header.type) + "'");
  if (a.header.shape != shape)
    throwDataError(path, 0,
                   "expected shape " + shapeText(shape) +
                       " (from manifest.json), found " +
                       shapeText(a.header.shape));
  out.resize(a.data.size() / sizeof(T));
  if (!a.data.empty())
    std::memcpy(out.data(), a.data.data(), a.data.size());
}

[[noreturn]] void corrupt(const std::string &path, const std::string &what) {
  throwDataError(path, 0, "corrupt partition: " + what);
}

/// Every element in [lo, hi).
template <typename T>
void checkRange(const std::string &path, const std::vector<T> &values,
                int64_t lo, int64_t hi) {
  for (size_t i = 0; i < values.size(); ++i)
    if (int64_t(values[i]) < lo || int64_t(values[i]) >= hi)
      corrupt(path, "element " + std::to_string(i) + " is " +
                        std::to_string(values[i]) + ", expected [" +
                        std::to_string(lo) + ", " + std::to_string(hi) + ")");
}

/// Offsets: start at 0, never decrease, end at `total`.
void checkOffsets(const std::string &path, const std::vector<int64_t> &offsets,
                  int64_t total) {
  for (size_t i = 0; i < offsets.size(); ++i)
    if ((i == 0 && offsets[i] != 0) || (i > 0 && offsets[i] < offsets[i - 1]))
      corrupt(path, "offsets must start at 0 and never decrease (element " +
                        std::to_string(i) + ")");
  if (offsets.back() != total)
    corrupt(path, "the last offset is " + std::to_string(offsets.back()) +
                      ", expected " + std::to_string(total));
}

void checkAscending(const std::string &path,
                    const std::vector<int64_t> &values) {
  for (size_t i = 1; i < values.size(); ++i)
    if (values[i] <= values[i - 1])
      corrupt(path, "ids must be strictly ascending (element " +
                        std::to_string(i) + ")");
}
} // namespace

PartitionManifest readPartitionManifest(const std::string &dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throwDataError(dir, 0, "no such partition directory");
  std::string path = dir + "/" + files::kManifest;
  if (!fs::is_regular_file(path, ec))
    throwDataError(path, 0,
                   "missing partition manifest (write the directory with "
                   "gnn-partition)");
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in)
    throwDataError(path, 0, "cannot read");
  return manifestFromJson(path, text.str());
}

Partition readPartition(const std::string &dirArg, int rank, int numRanks,
                        PartitionManifest *manifestOut) {
  std::string dir = dirArg;
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  PartitionManifest m = readPartitionManifest(dir);
  if (m.numParts != numRanks)
    throwDataError(dir + "/" + files::kManifest, 0,
                   "manifest has " + std::to_string(m.numParts) +
                       " partitions but " + std::to_string(numRanks) +
                       (numRanks == 1 ? " rank is" : " ranks are") +
                       " running");
  if (rank < 0 || rank >= numRanks)
    throw DataError("partition: rank " + std::to_string(rank) +
                    " out of range [0, " + std::to_string(numRanks) + ")");

  const PartCounts &c = m.parts[size_t(rank)];
  const std::string partDir = dir + "/" + partDirectoryName(rank);
  std::error_code ec;
  if (!fs::is_directory(partDir, ec))
    throwDataError(partDir, 0, "missing partition directory");
  auto at = [&](const char *name) { return partDir + "/" + name; };
  const int64_t numParts = m.numParts, local = c.ownedNodes + c.haloNodes;

  Partition p;
  p.part = rank;
  p.numParts = m.numParts;
  p.edgeAssign = m.edgeAssign;
  p.numGlobalNodes = m.numNodes;
  p.numFeatures = m.numFeatures;
  p.numClasses = m.numClasses;
  readArray(at(files::kNodes), NpyType::Int64, {c.ownedNodes}, p.ownedNodes);
  checkRange(at(files::kNodes), p.ownedNodes, 0, m.numNodes);
  checkAscending(at(files::kNodes), p.ownedNodes);

  readArray(at(files::kHaloNodes), NpyType::Int64, {c.haloNodes}, p.haloNodes);
  checkRange(at(files::kHaloNodes), p.haloNodes, 0, m.numNodes);
  readArray(at(files::kHaloOwner), NpyType::Int32, {c.haloNodes}, p.haloOwners);
  checkRange(at(files::kHaloOwner), p.haloOwners, 0, numParts);
  readArray(at(files::kRecvOffsets), NpyType::Int64, {numParts + 1},
            p.recvOffsets);
  checkOffsets(at(files::kRecvOffsets), p.recvOffsets, c.haloNodes);
  // The halo is grouped by owner exactly as recv_offsets says, ascending
  // within an owner (the order the owner's send list follows), and no halo
  // node is owned by this rank.
  for (int64_t q = 0; q < numParts; ++q)
    for (int64_t h = p.recvOffsets[size_t(q)]; h < p.recvOffsets[size_t(q) + 1];
         ++h) {
      if (p.haloOwners[size_t(h)] != q || q == rank)
        corrupt(at(files::kHaloOwner),
                "halo node " + std::to_string(h) + " has owner " +
                    std::to_string(p.haloOwners[size_t(h)]) +
                    ", which does not match recv_offsets.npy or is this part");
      if (h > p.recvOffsets[size_t(q)] &&
          p.haloNodes[size_t(h)] <= p.haloNodes[size_t(h) - 1])
        corrupt(at(files::kHaloNodes),
                "ids must ascend within an owner (element " +
                    std::to_string(h) + ")");
    }

  readArray(at(files::kIndptr), NpyType::Int64, {local + 1}, p.indptr);
  checkOffsets(at(files::kIndptr), p.indptr, c.edges);
  readArray(at(files::kIndices), NpyType::Int32, {c.edges}, p.indices);
  checkRange(at(files::kIndices), p.indices, 0, local);
  readArray(at(files::kEdgeIds), NpyType::Int64, {c.edges}, p.edgeIds);
  checkRange(at(files::kEdgeIds), p.edgeIds, 0, m.numEdges);
  if (!m.relations.empty()) {
    readArray(at(files::kEdgeTypes), NpyType::Int32, {c.edges}, p.edgeTypes);
    checkRange(at(files::kEdgeTypes), p.edgeTypes, 0,
               int64_t(m.relations.size()));
    p.nodeTypes = m.nodeTypes;
    p.relations = m.relations;
    p.targetType = m.targetType;
  }

  readArray(at(files::kSendOffsets), NpyType::Int64, {numParts + 1},
            p.sendOffsets);
  checkOffsets(at(files::kSendOffsets), p.sendOffsets, c.sendNodes);
  if (p.sendOffsets[size_t(rank) + 1] != p.sendOffsets[size_t(rank)])
    corrupt(at(files::kSendOffsets), "a part cannot send to itself");
  readArray(at(files::kSendNodes), NpyType::Int64, {c.sendNodes}, p.sendNodes);
  checkRange(at(files::kSendNodes), p.sendNodes, 0, c.ownedNodes);

  if (m.numFeatures > 0 && !m.featuresInPlace.empty()) {
    // The rows stay in the dataset's file: one slice of it, so the owned
    // ids must be one run (the file itself is checked where it is read).
    if (!p.ownedNodes.empty() &&
        p.ownedNodes.back() - p.ownedNodes.front() + 1 != c.ownedNodes)
      corrupt(at(files::kNodes),
              "the feature rows are read in place from " + m.featuresInPlace +
                  ", which needs consecutive node ids, but the ids run from " +
                  std::to_string(p.ownedNodes.front()) + " to " +
                  std::to_string(p.ownedNodes.back()) + " for " +
                  std::to_string(c.ownedNodes) + " nodes");
    p.featuresFile = m.featuresInPlace;
  } else if (m.numFeatures > 0) {
    readArray(at(files::kFeatures), NpyType::Float32,
              {c.ownedNodes, m.numFeatures}, p.features);
  }
  readArray(at(files::kLabels), NpyType::Int64, {c.ownedNodes}, p.labels);
  checkRange(at(files::kLabels), p.labels, -1, m.numClasses);
  readArray(at(files::kTrainIdx), NpyType::Int64, {c.train}, p.trainIdx);
  checkRange(at(files::kTrainIdx), p.trainIdx, 0, c.ownedNodes);
  readArray(at(files::kValidIdx), NpyType::Int64, {c.valid}, p.validIdx);
  checkRange(at(files::kValidIdx), p.validIdx, 0, c.ownedNodes);
  readArray(at(files::kTestIdx), NpyType::Int64, {c.test}, p.testIdx);
  checkRange(at(files::kTestIdx), p.testIdx, 0, c.ownedNodes);

  // The feature cache: remote nodes only, ascending, with their rows.
  if (m.cacheRatio > 0) {
    const std::string cached = at(files::kCachedNodes);
    readArray(cached, NpyType::Int64, {c.cachedNodes}, p.cachedNodes);
    checkRange(cached, p.cachedNodes, 0, m.numNodes);
    checkAscending(cached, p.cachedNodes);
    for (size_t i = 0, j = 0; i < p.cachedNodes.size(); ++i) {
      while (j < p.ownedNodes.size() && p.ownedNodes[j] < p.cachedNodes[i])
        ++j;
      if (j < p.ownedNodes.size() && p.ownedNodes[j] == p.cachedNodes[i])
        corrupt(cached, "element " + std::to_string(i) + " is node " +
                            std::to_string(p.cachedNodes[i]) +
                            ", which this part owns");
    }
    if (m.numFeatures > 0)
      readArray(at(files::kCachedFeatures), NpyType::Float32,
                {c.cachedNodes, m.numFeatures}, p.cachedFeatures);
  }

  if (manifestOut)
    *manifestOut = std::move(m);
  return p;
}

std::vector<int32_t> readPartitionBook(const std::string &dir) {
  PartitionManifest m = readPartitionManifest(dir);
  std::string path = dir + "/" + files::kNodeOwner;
  std::vector<int32_t> owner;
  readArray(path, NpyType::Int32, {m.numNodes}, owner);
  checkRange(path, owner, 0, m.numParts);
  return owner;
}

} // namespace gnnrt
