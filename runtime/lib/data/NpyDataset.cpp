//===- NpyDataset.cpp - Reader for a directory of NumPy arrays ------------===//
//
// The layout most Python pipelines can produce with a few np.save calls:
// edge_index.npy (or src.npy + dst.npy), features.npy, labels.npy and
// {train,valid,test}_idx.npy. Shapes and ids are validated against each
// other with errors that name the array and the offending element.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"

#include "gnnrt/io/Npy.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

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

static void checkIds(const std::string &path, const std::vector<int64_t> &ids,
                     int64_t n, bool unique) {
  std::vector<bool> seen(unique ? size_t(n) : 0);
  for (size_t i = 0; i < ids.size(); ++i) {
    int64_t id = ids[i];
    if (id < 0 || id >= n)
      throwDataError(path, 0,
                     "element " + std::to_string(i) + ": node id " +
                         std::to_string(id) + " out of range [0, " +
                         std::to_string(n) + ")");
    if (unique) {
      if (seen[id])
        throwDataError(path, 0,
                       "element " + std::to_string(i) + ": node id " +
                           std::to_string(id) + " is listed twice");
      seen[id] = true;
    }
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
    if (a.header.shape.size() != 2 || isIntegral(a.header.type))
      throwDataError(featFile, 0,
                     "expected a float array of shape [N, F], found " +
                         shapeText(a.header.shape) + " of " +
                         npyDescr(a.header.type));
    ds.numNodes = a.header.shape[0];
    ds.numFeatures = a.header.shape[1];
    ds.features = a.toFloat32();
    // nan or inf would surface epochs later as "training diverged".
    for (size_t k = 0; k < ds.features.size(); ++k)
      if (!std::isfinite(ds.features[k]))
        throwDataError(featFile, 0,
                       "feature " + std::to_string(int64_t(k) % ds.numFeatures) +
                           " of node (row) " +
                           std::to_string(int64_t(k) / ds.numFeatures) +
                           " is " + (std::isnan(ds.features[k]) ? "nan" : "inf") +
                           " (features must be finite numbers)");
    nodeSource = "features.npy";
  }
  std::string labelFile = dir + "/labels.npy";
  if (exists(labelFile)) {
    NpyArray a = readNpy(labelFile);
    if (a.header.shape.size() != 1)
      throwDataError(labelFile, 0,
                     "expected a 1-d array, found shape " +
                         shapeText(a.header.shape));
    const int64_t unlabeled = -1;
    ds.labels = a.toInt64(labelFile, &unlabeled);
    if (ds.numNodes >= 0 && int64_t(ds.labels.size()) != ds.numNodes)
      throwDataError(labelFile, 0,
                     "expected " + std::to_string(ds.numNodes) +
                         " rows (one per node, as in " + nodeSource +
                         "), found " + std::to_string(ds.labels.size()));
    ds.numNodes = int64_t(ds.labels.size());
    for (size_t i = 0; i < ds.labels.size(); ++i) {
      int64_t label = ds.labels[i];
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
    }
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

} // namespace gnnrt
