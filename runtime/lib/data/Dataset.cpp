//===- Dataset.cpp - Format detection, post-processing, cached loading ----===//
//
// The entry point loadDataset: detect the layout, try the binary cache, else
// parse and post-process (reverse edges, self loops, dedupe) and store the
// result in the cache. The cache holds the post-processed dataset, which is
// why its name hashes the load options.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"

#include "gnnrt/data/DatasetCache.h"
#include "gnnrt/graph/Graph.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace gnnrt {

DatasetFormat detectDatasetFormat(const std::string &dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throwDataError(dir, 0, "no such dataset directory");
  if (fs::is_directory(dir + "/raw", ec))
    return DatasetFormat::Ogb;
  if (fs::is_regular_file(dir + "/edge_index.npy", ec) ||
      fs::is_regular_file(dir + "/src.npy", ec))
    return DatasetFormat::Npy;
  throwDataError(dir, 0,
                 "not a dataset directory (expected raw/edge.csv[.gz] or "
                 "edge_index.npy)");
}

void finalizeDataset(Dataset &ds, const LoadOptions &options) {
  const int64_t n = ds.numNodes;
  if (options.addReverseEdges) {
    size_t e = ds.src.size();
    ds.src.reserve(2 * e);
    ds.dst.reserve(2 * e);
    ds.src.insert(ds.src.end(), ds.dst.begin(), ds.dst.begin() + e);
    ds.dst.insert(ds.dst.end(), ds.src.begin(), ds.src.begin() + e);
  }
  if (options.addSelfLoops) {
    for (int64_t v = 0; v < n; ++v) {
      ds.src.push_back(v);
      ds.dst.push_back(v);
    }
  }
  if (options.dedupe) {
    // LSD radix sort to (src, dst) order, then drop repeats: O(N + E).
    std::vector<int64_t> order =
        countingSortOrder(n, ds.src, countingSortOrder(n, ds.dst));
    std::vector<int64_t> src, dst;
    src.reserve(order.size());
    dst.reserve(order.size());
    for (int64_t e : order) {
      if (!src.empty() && src.back() == ds.src[e] && dst.back() == ds.dst[e])
        continue;
      src.push_back(ds.src[e]);
      dst.push_back(ds.dst[e]);
    }
    ds.src = std::move(src);
    ds.dst = std::move(dst);
  }
  int64_t maxLabel = -1;
  for (int64_t label : ds.labels)
    maxLabel = std::max(maxLabel, label);
  ds.numClasses = options.numClasses > 0 ? options.numClasses : maxLabel + 1;
}

Dataset loadDataset(const std::string &path, const LoadOptions &options,
                    bool *fromCache) {
  if (fromCache)
    *fromCache = false;
  std::string dir = path;
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back(); // keep messages free of "dir//raw"
  DatasetFormat format = detectDatasetFormat(dir);
  std::string cacheFile;
  std::vector<std::string> sources;
  if (options.useCache) {
    cacheFile = datasetCachePath(dir, options);
    removeStaleCacheTemporaries(cacheFile);
    sources = datasetSourceFiles(dir);
    if (std::optional<Dataset> cached = readDatasetCache(cacheFile, sources)) {
      if (fromCache)
        *fromCache = true;
      return std::move(*cached);
    }
  }
  Dataset ds = format == DatasetFormat::Ogb ? readOgbDataset(dir, options)
                                            : readNpyDataset(dir, options);
  finalizeDataset(ds, options);
  if (options.useCache)
    writeDatasetCache(cacheFile, ds, sources);
  return ds;
}

} // namespace gnnrt
