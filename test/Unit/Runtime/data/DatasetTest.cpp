//===- DatasetTest.cpp - Loading cora, options, cache and writers ---------===//
//
// Loads the bundled cora (OGB raw layout, gzip) and checks the published
// sizes and a few known values; then the edge options, the binary cache
// (equal round trip, invalidation when a source changes, corrupt caches
// ignored, killed writers' temporaries removed) and that both writers read
// back to the same dataset.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"

#include "TestUtil.h"
#include "gnnrt/data/DatasetCache.h"
#include "gnnrt/data/Generator.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

using namespace gnnrt;
using namespace gnnrt::test;
namespace fs = std::filesystem;

namespace {
LoadOptions noCache() {
  LoadOptions options;
  options.useCache = false;
  return options;
}

void expectSameDataset(const Dataset &a, const Dataset &b) {
  EXPECT_EQ(a.numNodes, b.numNodes);
  EXPECT_EQ(a.numFeatures, b.numFeatures);
  EXPECT_EQ(a.numClasses, b.numClasses);
  EXPECT_EQ(a.features, b.features);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.trainIdx, b.trainIdx);
  EXPECT_EQ(a.validIdx, b.validIdx);
  EXPECT_EQ(a.testIdx, b.testIdx);
  EXPECT_EQ(a.src, b.src);
  EXPECT_EQ(a.dst, b.dst);
}

std::vector<std::string> cacheFiles(const std::string &dir) {
  std::vector<std::string> found;
  for (const auto &entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().rfind(".gnnrt-cache-", 0) == 0)
      found.push_back(entry.path().string());
  return found;
}

/// A copy of the bundled Cora without the caches earlier runs left beside
/// it (of other load options, or of an older cache format).
void copyCora(const std::string &dir) {
  fs::copy(coraDir(), dir, fs::copy_options::recursive);
  for (const std::string &cache : cacheFiles(dir))
    fs::remove(cache);
}
} // namespace

TEST(Dataset, LoadsCora) {
  Dataset ds = loadDataset(coraDir(), noCache());
  EXPECT_EQ(ds.numNodes, 2708);
  EXPECT_EQ(ds.numEdges(), 10556);
  EXPECT_EQ(ds.numFeatures, 1433);
  EXPECT_EQ(ds.numClasses, 7);
  EXPECT_EQ(ds.features.size(), size_t(2708 * 1433));
  EXPECT_EQ(ds.trainIdx.size(), 140u);
  EXPECT_EQ(ds.validIdx.size(), 500u);
  EXPECT_EQ(ds.testIdx.size(), 1000u);
  // Values from the files' first lines.
  EXPECT_EQ(ds.src[0], 0);
  EXPECT_EQ(ds.dst[0], 633);
  EXPECT_EQ(ds.labels[0], 3);
  EXPECT_EQ(ds.labels[1], 4);
  EXPECT_EQ(ds.features[19], 1.0f);
  EXPECT_EQ(ds.trainIdx.front(), 0);
  EXPECT_EQ(ds.validIdx.front(), 140);
  EXPECT_EQ(ds.testIdx.front(), 1708);
  EXPECT_TRUE(std::all_of(ds.labels.begin(), ds.labels.end(),
                          [](int64_t l) { return l >= 0 && l < 7; }));
  // Bag-of-words features are 0/1.
  EXPECT_TRUE(std::all_of(ds.features.begin(), ds.features.end(),
                          [](float f) { return f == 0.0f || f == 1.0f; }));
}

TEST(Dataset, EdgeOptions) {
  LoadOptions options = noCache();
  options.addReverseEdges = true;
  Dataset reversed = loadDataset(coraDir(), options);
  ASSERT_EQ(reversed.numEdges(), 2 * 10556);
  EXPECT_EQ(reversed.src[10556], 633); // first reversed copy of (0, 633)
  EXPECT_EQ(reversed.dst[10556], 0);
  // Cora already lists both directions: dedupe brings it back to 10556.
  options.dedupe = true;
  Dataset deduped = loadDataset(coraDir(), options);
  EXPECT_EQ(deduped.numEdges(), 10556);
  std::set<std::pair<int64_t, int64_t>> seen;
  for (int64_t e = 0; e < deduped.numEdges(); ++e)
    seen.insert({deduped.src[e], deduped.dst[e]});
  EXPECT_EQ(seen.size(), 10556u);
  EXPECT_TRUE(std::is_sorted(deduped.src.begin(), deduped.src.end()));
  options.addSelfLoops = true;
  Dataset loops = loadDataset(coraDir(), options);
  EXPECT_EQ(loops.numEdges(), 10556 + 2708);
}

TEST(Dataset, CacheRoundTrip) {
  TempDir tmp;
  std::string dir = tmp / "cora";
  copyCora(dir);
  LoadOptions options;
  options.addReverseEdges = true;
  options.dedupe = true;
  Dataset first = loadDataset(dir, options);
  std::vector<std::string> caches = cacheFiles(dir);
  ASSERT_EQ(caches.size(), 1u);
  EXPECT_EQ(caches[0], datasetCachePath(dir, options));
  // The second load is served from the cache, and equals the parse.
  ASSERT_TRUE(readDatasetCache(caches[0], datasetSourceFiles(dir)));
  Dataset second = loadDataset(dir, options);
  expectSameDataset(first, second);
  expectSameDataset(first, loadDataset(dir, [&] {
                      LoadOptions o = options;
                      o.useCache = false;
                      return o;
                    }()));
  // Other options get their own cache file.
  loadDataset(dir);
  EXPECT_EQ(cacheFiles(dir).size(), 2u);
}

TEST(Dataset, CacheInvalidatedBySourceChange) {
  TempDir tmp;
  writeFile(tmp / "raw/num-node-list.csv", "3\n");
  writeFile(tmp / "raw/edge.csv", "0,1\n");
  loadDataset(tmp.path());
  std::string cache = datasetCachePath(tmp.path(), LoadOptions());
  ASSERT_TRUE(fs::exists(cache));
  writeFile(tmp / "raw/edge.csv", "0,1\n1,2\n");
  // Make the edit unambiguously newer than the cache.
  fs::last_write_time(tmp / "raw/edge.csv",
                      fs::last_write_time(cache) + std::chrono::seconds(2));
  EXPECT_FALSE(readDatasetCache(cache, datasetSourceFiles(tmp.path())));
  EXPECT_EQ(loadDataset(tmp.path()).numEdges(), 2);
}

TEST(Dataset, CorruptCacheIsIgnored) {
  TempDir tmp;
  writeFile(tmp / "raw/num-node-list.csv", "3\n");
  writeFile(tmp / "raw/edge.csv", "0,1\n1,2\n");
  std::string cache = datasetCachePath(tmp.path(), LoadOptions());
  writeFile(cache, "GNNRTDS1 but truncated");
  fs::last_write_time(cache, fs::file_time_type::clock::now() +
                                 std::chrono::seconds(5));
  EXPECT_FALSE(readDatasetCache(cache, datasetSourceFiles(tmp.path())));
  Dataset ds = loadDataset(tmp.path());
  EXPECT_EQ(ds.numEdges(), 2);
  EXPECT_TRUE(readDatasetCache(cache, datasetSourceFiles(tmp.path())));
}

/// The pid of a process that has exited (and been reaped).
pid_t exitedPid() {
  pid_t child = ::fork();
  if (child == 0)
    ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

TEST(Dataset, KilledWritersTemporariesAreRemoved) {
  // A load killed with SIGKILL leaves CACHE.tmp.HOST.PID (hundreds of MB on
  // a large graph): the next load removes it, and only what is stale.
  TempDir tmp;
  writeFile(tmp / "raw/num-node-list.csv", "3\n");
  writeFile(tmp / "raw/edge.csv", "0,1\n1,2\n");
  const std::string cache = datasetCachePath(tmp.path(), LoadOptions());
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  const std::string dead = std::to_string(exitedPid());
  const std::string killed = cache + ".tmp." + host + "." + dead;
  const std::string older = cache + ".tmp." + dead; // an older version's name
  // A live writer: the test's parent (this process's own name is the one
  // the load writes and renames).
  const std::string writing =
      cache + ".tmp." + host + "." + std::to_string(::getppid());
  const std::string remote = cache + ".tmp.other-host." + dead;
  const std::string abandoned = cache + ".tmp.another-host." + dead;
  for (const std::string &path : {killed, older, writing, remote, abandoned})
    writeFile(path, "partial cache");
  fs::last_write_time(abandoned, fs::file_time_type::clock::now() -
                                     std::chrono::hours(25));
  Dataset ds = loadDataset(tmp.path());
  EXPECT_EQ(ds.numEdges(), 2);
  EXPECT_FALSE(fs::exists(killed));
  EXPECT_FALSE(fs::exists(older));
  EXPECT_FALSE(fs::exists(abandoned));
  EXPECT_TRUE(fs::exists(writing)) << "its writer is alive";
  EXPECT_TRUE(fs::exists(remote)) << "another host's writer may be alive";
  EXPECT_TRUE(fs::exists(cache));
  // Nothing else is touched, and a second pass finds nothing to remove.
  EXPECT_EQ(removeStaleCacheTemporaries(cache), 0);
  fs::remove(writing);
  fs::remove(remote);
}

TEST(Dataset, SharedCacheDirectory) {
  TempDir data, caches;
  writeFile(data / "raw/num-node-list.csv", "2\n");
  writeFile(data / "raw/edge.csv", "0,1\n");
  LoadOptions options;
  options.cacheDir = caches.path();
  loadDataset(data.path(), options);
  EXPECT_TRUE(cacheFiles(data.path()).empty());
  EXPECT_EQ(cacheFiles(caches.path()).size(), 1u);
}

TEST(Dataset, DefaultSplitIsFirstByName) {
  TempDir tmp;
  writeFile(tmp / "raw/num-node-list.csv.gz", "3\n");
  writeFile(tmp / "raw/edge.csv.gz", "0,1\n");
  for (const char *name : {"zeta", "alpha"}) {
    std::string split = tmp / "split/" + name;
    writeFile(split + "/train.csv", name[0] == 'a' ? "0\n" : "1\n");
    writeFile(split + "/valid.csv", "");
    writeFile(split + "/test.csv", "2\n");
  }
  Dataset ds = loadDataset(tmp.path(), noCache());
  EXPECT_EQ(ds.trainIdx, (std::vector<int64_t>{0}));
  LoadOptions options = noCache();
  options.splitName = "zeta";
  EXPECT_EQ(loadDataset(tmp.path(), options).trainIdx,
            (std::vector<int64_t>{1}));
  // No label file: every node unlabeled.
  EXPECT_EQ(ds.labels, (std::vector<int64_t>{-1, -1, -1}));
  EXPECT_EQ(ds.numClasses, 0);
}

TEST(Dataset, WritersRoundTrip) {
  GeneratorOptions gen;
  gen.numNodes = 200;
  gen.numEdges = 900;
  gen.numFeatures = 5;
  gen.numClasses = 3;
  Dataset ds = generateDataset(gen);
  TempDir tmp;
  for (bool gzip : {true, false}) {
    std::string dir = tmp / (gzip ? "ogbgz" : "ogb");
    writeOgbDataset(dir, ds, "random", gzip);
    EXPECT_TRUE(
        fs::exists(dir + (gzip ? "/raw/edge.csv.gz" : "/raw/edge.csv")));
    expectSameDataset(ds, loadDataset(dir, noCache()));
  }
  writeNpyDataset(tmp / "npy", ds);
  expectSameDataset(ds, loadDataset(tmp / "npy", noCache()));
}

/// The registry recognises each layout and says what it can do: the one
/// that schedules ask instead of checking file names.
TEST(Dataset, FormatRegistryCapabilities) {
  GeneratorOptions gen;
  gen.numNodes = 50;
  gen.numEdges = 200;
  gen.numFeatures = 3;
  gen.numClasses = 2;
  Dataset ds = generateDataset(gen);
  TempDir tmp;
  const std::string ogb = tmp / "ogb", npy = tmp / "npy";
  writeOgbDataset(ogb, ds, "random", /*gzip=*/true);
  writeNpyDataset(npy, ds);

  const DatasetFormatInfo &ogbFormat = datasetFormat(ogb);
  EXPECT_EQ(ogbFormat.format, DatasetFormat::Ogb);
  EXPECT_STREQ(ogbFormat.name, "ogb");
  EXPECT_TRUE(ogbFormat.readSlice && ogbFormat.readCounts);
  EXPECT_TRUE(ogbFormat.convertToNpy); // gzip text: no seeking to a row
  EXPECT_FALSE(ogbFormat.featuresInPlace);

  const DatasetFormatInfo &npyFormat = datasetFormat(npy);
  EXPECT_EQ(npyFormat.format, DatasetFormat::Npy);
  EXPECT_STREQ(datasetFormatName(npyFormat.format), "npy");
  EXPECT_FALSE(npyFormat.convertToNpy);
  ASSERT_TRUE(npyFormat.featuresInPlace && npyFormat.countsWithoutEdges);
  EXPECT_EQ(fs::path(npyFormat.featuresInPlace(npy)).filename(),
            "features.npy");
  EXPECT_TRUE(npyFormat.countsWithoutEdges(npy));
  fs::remove(npy + "/features.npy");
  EXPECT_EQ(npyFormat.featuresInPlace(npy), "");
  EXPECT_TRUE(npyFormat.countsWithoutEdges(npy)); // labels.npy still counts
  fs::remove(npy + "/labels.npy");
  EXPECT_FALSE(npyFormat.countsWithoutEdges(npy));

  EXPECT_THROW(datasetFormat(tmp / "missing"), DataError);
}

/// Cache files that pass the old size-only check but hold other data: each
/// is rebuilt from the sources, never trusted.
TEST(Dataset, EditedCacheIsRebuilt) {
  TempDir tmp;
  std::string dir = tmp / "cora";
  copyCora(dir);
  Dataset parsed = loadDataset(dir);
  std::string cache = datasetCachePath(dir, LoadOptions());
  ASSERT_TRUE(readDatasetCache(cache, datasetSourceFiles(dir)));
  const std::string original = readBytes(cache);
  auto patched = [&](size_t offsetFromEnd, int64_t value) {
    std::string bytes = original;
    std::memcpy(&bytes[bytes.size() - offsetFromEnd], &value, sizeof value);
    writeFile(cache, bytes);
  };
  // The last dst id out of range (it is just before the checksum), then a
  // flipped checksum: both are rejected, and a load rebuilds an equal cache.
  patched(16, int64_t(1) << 40);
  EXPECT_FALSE(readDatasetCache(cache, datasetSourceFiles(dir)));
  patched(8, 12345);
  EXPECT_FALSE(readDatasetCache(cache, datasetSourceFiles(dir)));
  bool fromCache = true;
  expectSameDataset(parsed, loadDataset(dir, LoadOptions(), &fromCache));
  EXPECT_FALSE(fromCache);
  EXPECT_EQ(readBytes(cache), original);
  // A source file touched (same content, new time) or gone: rebuilt.
  fs::last_write_time(dir + "/raw/node-label.csv.gz",
                      fs::last_write_time(dir + "/raw/node-label.csv.gz") -
                          std::chrono::seconds(10));
  EXPECT_FALSE(readDatasetCache(cache, datasetSourceFiles(dir)));
  loadDataset(dir);
  ASSERT_TRUE(readDatasetCache(cache, datasetSourceFiles(dir)));
  std::vector<std::string> fewer = datasetSourceFiles(dir);
  fewer.pop_back();
  EXPECT_FALSE(readDatasetCache(cache, fewer));
}

/// A cache written by an older gnnrt (format 1, no header of sources; format
/// 2, no types) is
/// rebuilt, not read.
TEST(Dataset, OldFormatCacheIsRebuilt) {
  TempDir tmp;
  writeFile(tmp / "raw/num-node-list.csv", "3\n");
  writeFile(tmp / "raw/edge.csv", "0,1\n1,2\n");
  std::string cache = datasetCachePath(tmp.path(), LoadOptions());
  std::string old = "GNNRTDS1" + std::string(9 * 8, '\0');
  writeFile(cache, old);
  EXPECT_FALSE(readDatasetCache(cache, datasetSourceFiles(tmp.path())));
  EXPECT_EQ(loadDataset(tmp.path()).numEdges(), 2);
  // Format 2 had no node or edge types: a file of it is rebuilt too.
  writeFile(cache, "GNNRTDS2" + readBytes(cache).substr(8));
  EXPECT_FALSE(readDatasetCache(cache, datasetSourceFiles(tmp.path())));
  bool fromCache = true;
  EXPECT_EQ(loadDataset(tmp.path(), LoadOptions(), &fromCache).numEdges(), 2);
  EXPECT_FALSE(fromCache);
  EXPECT_EQ(readBytes(cache).substr(0, 8), "GNNRTDS3");
}
