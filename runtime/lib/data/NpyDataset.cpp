//===- NpyDataset.cpp - Reader for a directory of NumPy arrays ------------===//
//
// The layout most Python pipelines can produce with a few np.save calls:
// edge_index.npy (or src.npy + dst.npy), features.npy, labels.npy and
// {train,valid,test}_idx.npy. Shapes and ids are validated against each
// other with errors that name the array and the offending element.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"
#include "gnnrt/data/DatasetSlice.h"

#include "gnnrt/io/Npy.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <tuple>

namespace fs = std::filesystem;

namespace gnnrt {

static bool exists(const std::string &path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

static std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

static bool isIntegral(NpyType t) {
  return t != NpyType::Float32 && t != NpyType::Float64;
}

/// Reads a 1-d integer array.
static std::vector<int64_t> readIds(const std::string &path) {
  NpyArray a = readNpy(path);
  if (a.header.shape.size() != 1 || !isIntegral(a.header.type))
    throwDataError(path, 0,
                   "expected a 1-d integer array, found shape " +
                       shapeText(a.header.shape) + " of " +
                       npyDescr(a.header.type));
  return a.toInt64(path);
}

/// Checks ids against [0, n) (and repeats if `unique`); `first` is the
/// position in the file of ids[0], for the messages.
static void checkIds(const std::string &path, const std::vector<int64_t> &ids,
                     int64_t n, bool unique, int64_t first = 0) {
  std::vector<bool> seen(unique ? size_t(n) : 0);
  for (size_t i = 0; i < ids.size(); ++i) {
    int64_t id = ids[i];
    if (id < 0 || id >= n)
      throwDataError(path, 0,
                     "element " + std::to_string(first + int64_t(i)) +
                         ": node id " + std::to_string(id) +
                         " out of range [0, " + std::to_string(n) + ")");
    if (unique) {
      if (seen[id])
        throwDataError(path, 0,
                       "element " + std::to_string(i) + ": node id " +
                           std::to_string(id) + " is listed twice");
      seen[id] = true;
    }
  }
}

static void checkFinite(const std::string &path, const std::vector<float> &rows,
                        int64_t width, int64_t firstRow) {
  checkFiniteRows(path, rows.data(), int64_t(rows.size()), width, firstRow);
}

/// The shape of features.npy, checked: [N, F] of a float type.
static NpyHeader featureHeader(const std::string &featFile,
                               const NpyHeader &h) {
  if (h.shape.size() != 2 || isIntegral(h.type))
    throwDataError(featFile, 0,
                   "expected a float array of shape [N, F], found " +
                       shapeText(h.shape) + " of " + npyDescr(h.type));
  return h;
}

/// labels.npy, checked against `numNodes` (from `nodeSource`) when >= 0 and
/// against options.numClasses.
static std::vector<int64_t> readLabelArray(const std::string &labelFile,
                                           const LoadOptions &options,
                                           int64_t numNodes,
                                           const std::string &nodeSource) {
  NpyArray a = readNpy(labelFile);
  if (a.header.shape.size() != 1)
    throwDataError(labelFile, 0,
                   "expected a 1-d array, found shape " +
                       shapeText(a.header.shape));
  const int64_t unlabeled = -1;
  std::vector<int64_t> labels = a.toInt64(labelFile, &unlabeled);
  if (numNodes >= 0 && int64_t(labels.size()) != numNodes)
    throwDataError(labelFile, 0,
                   "expected " + std::to_string(numNodes) +
                       " rows (one per node, as in " + nodeSource +
                       "), found " + std::to_string(labels.size()));
  for (size_t i = 0; i < labels.size(); ++i) {
    int64_t label = labels[i];
    if (label < -1)
      throwDataError(labelFile, 0,
                     "element " + std::to_string(i) + ": label " +
                         std::to_string(label) +
                         " is negative (only -1 or nan mark an unlabeled "
                         "node)");
    if (options.numClasses > 0 && label >= options.numClasses)
      throwDataError(labelFile, 0,
                     "element " + std::to_string(i) + ": label " +
                         std::to_string(label) + " out of range [0, " +
                         std::to_string(options.numClasses) + ")");
    if (label > kMaxClassId)
      throwDataError(labelFile, 0,
                     "element " + std::to_string(i) + ": " +
                         classIdTooLarge(label));
  }
  return labels;
}

/// Reads the split arrays that exist, each checked against [0, n) and for
/// repeats.
template <typename Out>
static void readSplitArrays(const std::string &dir, int64_t n, Out &out) {
  struct {
    const char *name;
    std::vector<int64_t> *ids;
  } splits[] = {{"train_idx.npy", &out.trainIdx},
                {"valid_idx.npy", &out.validIdx},
                {"test_idx.npy", &out.testIdx}};
  for (auto &split : splits) {
    std::string path = dir + "/" + split.name;
    if (!exists(path))
      continue;
    *split.ids = readIds(path);
    checkIds(path, *split.ids, n, true);
  }
}

Dataset readNpyDataset(const std::string &dir, const LoadOptions &options) {
  Dataset ds;
  std::string edgeFile = dir + "/edge_index.npy";
  if (exists(edgeFile)) {
    NpyArray a = readNpy(edgeFile);
    const std::vector<int64_t> &shape = a.header.shape;
    if (shape.size() != 2 || shape[0] != 2 || !isIntegral(a.header.type))
      throwDataError(edgeFile, 0,
                     "expected an integer array of shape [2, E], found " +
                         shapeText(shape) + " of " + npyDescr(a.header.type));
    std::vector<int64_t> both = a.toInt64(edgeFile);
    ds.src.assign(both.begin(), both.begin() + shape[1]);
    ds.dst.assign(both.begin() + shape[1], both.end());
  } else if (exists(dir + "/src.npy")) {
    ds.src = readIds(dir + "/src.npy");
    if (!exists(dir + "/dst.npy"))
      throwDataError(dir + "/dst.npy", 0, "no such file (src.npy needs it)");
    ds.dst = readIds(dir + "/dst.npy");
    if (ds.src.size() != ds.dst.size())
      throwDataError(dir + "/dst.npy", 0,
                     "has " + std::to_string(ds.dst.size()) +
                         " elements but src.npy has " +
                         std::to_string(ds.src.size()));
  } else {
    throwDataError(edgeFile, 0, "no such file (nor src.npy/dst.npy)");
  }

  // The node count comes from the per-node arrays; without any, from ids.
  ds.numNodes = -1;
  std::string nodeSource;
  std::string featFile = dir + "/features.npy";
  if (exists(featFile)) {
    NpyArray a = readNpy(featFile);
    featureHeader(featFile, a.header);
    ds.numNodes = a.header.shape[0];
    ds.numFeatures = a.header.shape[1];
    ds.features = a.toFloat32();
    checkFinite(featFile, ds.features, ds.numFeatures, 0);
    nodeSource = "features.npy";
  }
  std::string labelFile = dir + "/labels.npy";
  if (exists(labelFile)) {
    ds.labels = readLabelArray(labelFile, options, ds.numNodes, nodeSource);
    ds.numNodes = int64_t(ds.labels.size());
  }
  if (ds.numNodes < 0) {
    ds.numNodes = 0;
    for (size_t e = 0; e < ds.src.size(); ++e)
      ds.numNodes = std::max({ds.numNodes, ds.src[e] + 1, ds.dst[e] + 1});
  }
  if (ds.labels.empty())
    ds.labels.assign(size_t(ds.numNodes), -1);
  checkIds(exists(edgeFile) ? edgeFile : dir + "/src.npy", ds.src, ds.numNodes,
           false);
  checkIds(exists(edgeFile) ? edgeFile : dir + "/dst.npy", ds.dst, ds.numNodes,
           false);

  struct {
    const char *name;
    std::vector<int64_t> *ids;
  } splits[] = {{"train_idx.npy", &ds.trainIdx},
                {"valid_idx.npy", &ds.validIdx},
                {"test_idx.npy", &ds.testIdx}};
  ds.splitSource = dir;
  for (size_t k = 0; k < 3; ++k) {
    auto &split = splits[k];
    std::string path = dir + "/" + split.name;
    ds.hasSplits[k] = exists(path);
    if (!ds.hasSplits[k])
      continue;
    *split.ids = readIds(path);
    checkIds(path, *split.ids, ds.numNodes, true);
  }
  return ds;
}

DatasetCounts readNpyDatasetCounts(const std::string &dir,
                                   const LoadOptions &options) {
  DatasetCounts counts;
  const std::string featFile = dir + "/features.npy";
  const std::string labelFile = dir + "/labels.npy";
  std::string nodeSource;
  counts.numNodes = -1;
  if (exists(featFile)) {
    NpyHeader h = featureHeader(featFile, readNpyHeader(featFile));
    counts.numNodes = h.shape[0];
    counts.numFeatures = h.shape[1];
    nodeSource = "features.npy";
  }
  if (exists(labelFile)) {
    std::vector<int64_t> labels =
        readLabelArray(labelFile, options, counts.numNodes, nodeSource);
    counts.numNodes = int64_t(labels.size());
    for (int64_t label : labels)
      counts.numClasses = std::max(counts.numClasses, label + 1);
  }
  if (counts.numNodes < 0)
    throwDataError(dir, 0,
                   "the distributed reader needs features.npy or labels.npy "
                   "(the node count); edge ids alone are spread over the "
                   "ranks");
  if (exists(dir + "/edge_index.npy")) {
    NpyHeader h = readNpyHeader(dir + "/edge_index.npy");
    counts.numEdges = h.shape.size() == 2 ? h.shape[1] : 0;
  } else if (exists(dir + "/src.npy")) {
    counts.numEdges = readNpyHeader(dir + "/src.npy").numElements();
  }
  return counts;
}

DatasetSlice readNpyDatasetSlice(const std::string &dir,
                                 const LoadOptions &options, int rank,
                                 int numRanks, bool withFeatures) {
  DatasetSlice slice;
  std::string featFile = dir + "/features.npy";
  std::string labelFile = dir + "/labels.npy";
  std::string nodeSource;
  slice.numNodes = -1;
  NpyHeader features;
  if (exists(featFile)) {
    features = featureHeader(featFile, readNpyHeader(featFile));
    slice.numNodes = features.shape[0];
    slice.numFeatures = features.shape[1];
    nodeSource = "features.npy";
  }
  if (exists(labelFile)) {
    slice.labels =
        readLabelArray(labelFile, options, slice.numNodes, nodeSource);
    slice.numNodes = int64_t(slice.labels.size());
  }
  if (slice.numNodes < 0)
    throwDataError(dir, 0,
                   "the distributed reader needs features.npy or labels.npy "
                   "(the node count); edge ids alone are spread over the "
                   "ranks");
  if (slice.labels.empty())
    slice.labels.assign(size_t(slice.numNodes), -1);
  std::tie(slice.nodeBegin, slice.nodeEnd) =
      nodeBlock(slice.numNodes, rank, numRanks);
  if (slice.numFeatures > 0 && withFeatures) {
    const int64_t f = slice.numFeatures;
    slice.features = readNpySlice(featFile, slice.nodeBegin * f,
                                  (slice.nodeEnd - slice.nodeBegin) * f)
                         .toFloat32();
    checkFinite(featFile, slice.features, f, slice.nodeBegin);
  }

  // This rank's block of the edge list; ids are checked with their
  // positions in the whole file.
  auto readBlock = [&](const std::string &path, int64_t offset, int64_t begin,
                       int64_t end) {
    std::vector<int64_t> ids =
        readNpySlice(path, offset + begin, end - begin).toInt64(path);
    checkIds(path, ids, slice.numNodes, false, begin);
    return ids;
  };
  std::string edgeFile = dir + "/edge_index.npy";
  if (exists(edgeFile)) {
    NpyHeader h = readNpyHeader(edgeFile);
    if (h.shape.size() != 2 || h.shape[0] != 2 || !isIntegral(h.type))
      throwDataError(edgeFile, 0,
                     "expected an integer array of shape [2, E], found " +
                         shapeText(h.shape) + " of " + npyDescr(h.type));
    const int64_t e = h.shape[1];
    auto [begin, end] = nodeBlock(e, rank, numRanks);
    slice.src = readBlock(edgeFile, 0, begin, end);
    slice.dst = readBlock(edgeFile, e, begin, end);
  } else if (exists(dir + "/src.npy")) {
    std::string srcFile = dir + "/src.npy", dstFile = dir + "/dst.npy";
    if (!exists(dstFile))
      throwDataError(dstFile, 0, "no such file (src.npy needs it)");
    NpyHeader hs = readNpyHeader(srcFile), hd = readNpyHeader(dstFile);
    for (auto [path, h] : {std::pair{&srcFile, &hs}, std::pair{&dstFile, &hd}})
      if (h->shape.size() != 1 || !isIntegral(h->type))
        throwDataError(*path, 0,
                       "expected a 1-d integer array, found shape " +
                           shapeText(h->shape) + " of " + npyDescr(h->type));
    if (hs.shape[0] != hd.shape[0])
      throwDataError(dstFile, 0,
                     "has " + std::to_string(hd.shape[0]) +
                         " elements but src.npy has " +
                         std::to_string(hs.shape[0]));
    auto [begin, end] = nodeBlock(hs.shape[0], rank, numRanks);
    slice.src = readBlock(srcFile, 0, begin, end);
    slice.dst = readBlock(dstFile, 0, begin, end);
  } else {
    throwDataError(edgeFile, 0, "no such file (nor src.npy/dst.npy)");
  }
  readSplitArrays(dir, slice.numNodes, slice);
  return slice;
}

} // namespace gnnrt
