//===- DatasetCache.h - Binary cache of parsed datasets ---------*- C++ -*-===//
//
// Parsing text is by far the slowest part of loading (cora: 3.9M feature
// tokens; ogbn-products: 250M), so after the first load gnnrt stores the
// final Dataset as one flat binary file, `.gnnrt-cache-<hash>.bin`, where
// <hash> covers the load options and the cache format version. A cache is
// used only if it records the dataset's source files with their current
// sizes and modification times, its size is exact, its checksum matches and
// its arrays agree with its counts; otherwise the data is parsed again and
// the cache rewritten. Files are written to a temporary name and renamed,
// so a crash or a concurrent rank never leaves a truncated cache behind
// under the real name; a temporary left by a killed load is removed by the
// next one.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_DATASETCACHE_H
#define GNNRT_DATA_DATASETCACHE_H

#include "gnnrt/data/Dataset.h"

#include <optional>
#include <string>
#include <vector>

namespace gnnrt {

/// The cache file for dataset `dir` loaded with `options`.
std::string datasetCachePath(const std::string &dir,
                             const LoadOptions &options);

/// The files a dataset of `dir` is read from (that exist), for staleness
/// checks: raw/* and split/*/* for OGB, *.npy (and types.json) for NumPy.
std::vector<std::string> datasetSourceFiles(const std::string &dir);

/// Reads a cache file if it exists, was written from exactly `sources` as
/// they are now (paths, sizes, modification times) and passes its checksum
/// and consistency checks; std::nullopt otherwise (never throws for a bad
/// cache: the caller re-parses the sources).
std::optional<Dataset>
readDatasetCache(const std::string &cacheFile,
                 const std::vector<std::string> &sources);

/// Removes the temporaries of `cacheFile` whose writers are gone: a load
/// killed with SIGKILL (which no handler sees) leaves its partial cache,
/// hundreds of MB for a large graph, under `CACHE.tmp.HOST.PID`. One of this
/// host whose process no longer exists is removed, one of another host (a
/// shared file system) once unchanged for a day. Returns how many were
/// removed; never throws.
int removeStaleCacheTemporaries(const std::string &cacheFile);

/// Writes `ds`, parsed from `sources`, to `cacheFile` atomically (temp file
/// + rename to `cacheFile`). Returns false if the file cannot be written (e.g. a read-only
/// dataset directory), which only costs the next load its speed-up.
bool writeDatasetCache(const std::string &cacheFile, const Dataset &ds,
                       const std::vector<std::string> &sources);

} // namespace gnnrt

#endif // GNNRT_DATA_DATASETCACHE_H
