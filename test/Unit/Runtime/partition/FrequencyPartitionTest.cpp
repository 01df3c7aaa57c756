//===- FrequencyPartitionTest.cpp - Frequency partitioning and caches -----===//
//
// GLT's FrequencyPartitioner and the feature cache: the assignment is a
// deterministic, complete, capacity-respecting function of the options that
// keeps training nodes where they were sampled; it fetches fewer remote rows
// per sampled epoch than random placement (the reason it exists), and a
// cache serves part of the rest. Cache lists hold only remote nodes, as
// many as asked for, and survive the write / read round trip; a damaged
// cache file or manifest is an exact error.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/Partition.h"
#include "gnnrt/partition/PartitionDirectory.h"
#include "gnnrt/partition/PartitionManifest.h"
#include "gnnrt/partition/PartitionPlan.h"
#include "gnnrt/partition/PartitionSampling.h"
#include "gnnrt/partition/Partitioner.h"

#include "TestUtil.h"
#include "gnnrt/data/Generator.h"
#include "gnnrt/io/Npy.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

/// A sparse SBM graph loaded as the trainer loads one (reverse edges, no
/// repeats); 5% training nodes, so parts' sampled neighbourhoods differ.
Dataset sparseDataset(int64_t nodes, int64_t edges, uint64_t seed) {
  return loadedGraph(nodes, edges, seed, 0.05, 0.1, 0.1);
}

PartitionOptions frequencyOptions(int parts) {
  PartitionOptions o;
  o.method = PartitionMethod::Frequency;
  o.numParts = parts;
  o.fanouts = {5, 5};
  o.batchSize = 32;
  o.seed = 7;
  return o;
}

PartitionPlan planOf(const Dataset &ds, const PartitionOptions &o) {
  PartitionPlan plan =
      buildPartitionPlan(ds, partitionNodes(ds, o), o.numParts, o.edgeAssign);
  addFeatureCache(plan, ds, o);
  return plan;
}

std::vector<int64_t> partSizes(const std::vector<int32_t> &owner, int parts) {
  std::vector<int64_t> sizes(static_cast<size_t>(parts), 0);
  for (int32_t p : owner)
    ++sizes[size_t(p)];
  return sizes;
}

class Frequency : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    ds = new Dataset(sparseDataset(8000, 16000, 3));
  }
  static void TearDownTestSuite() {
    delete ds;
    ds = nullptr;
  }
  static Dataset *ds;
};
Dataset *Frequency::ds = nullptr;

} // namespace

TEST_F(Frequency, DeterministicInTheSeed) {
  PartitionOptions o = frequencyOptions(4);
  std::vector<int32_t> a = partitionNodes(*ds, o);
  EXPECT_EQ(partitionNodes(*ds, o), a);
  EXPECT_EQ(frequencyPartition(*ds, o), a);
  o.seed = 8;
  EXPECT_NE(partitionNodes(*ds, o), a);
}

TEST_F(Frequency, EveryNodeAssignedWithinCapacity) {
  for (int parts : {1, 3, 4}) {
    PartitionOptions o = frequencyOptions(parts);
    std::vector<int32_t> owner = partitionNodes(*ds, o);
    ASSERT_EQ(int64_t(owner.size()), ds->numNodes);
    for (int32_t p : owner)
      ASSERT_TRUE(p >= 0 && p < parts) << p;
    // ceil(N / P) x 1.03 (ufactor 30).
    const int64_t fair = (ds->numNodes + parts - 1) / parts;
    const int64_t capacity = int64_t(std::floor(double(fair) * 1.03));
    for (int64_t size : partSizes(owner, parts))
      EXPECT_LE(size, capacity) << parts << " parts";
  }
  // A tighter tolerance is honoured too.
  PartitionOptions o = frequencyOptions(4);
  o.ufactor = 1;
  for (int64_t size : partSizes(partitionNodes(*ds, o), 4))
    EXPECT_LE(size, 2000 * 1001 / 1000);
}

TEST_F(Frequency, TrainingNodesStaySplitEvenly) {
  PartitionOptions o = frequencyOptions(4);
  AccessCounts hot;
  std::vector<int32_t> owner = frequencyPartition(*ds, o, &hot);
  std::vector<int64_t> train(4, 0);
  for (int64_t t : ds->trainIdx)
    ++train[size_t(owner[size_t(t)])];
  auto [lo, hi] = std::minmax_element(train.begin(), train.end());
  EXPECT_LE(*hi - *lo, 1);
  // Every training node is read by its own part (it is a seed there).
  for (int64_t t : ds->trainIdx)
    EXPECT_GE(hot.at(owner[size_t(t)], t), 1);
  // The counts handed out are those of the returned assignment.
  EXPECT_EQ(sampleAccessCounts(*ds, owner, 4, o).counts, hot.counts);
}

TEST_F(Frequency, FewerRemoteRowsThanRandomAndCacheServesSome) {
  PartitionOptions o = frequencyOptions(4);
  RemoteRowEstimate frequency = estimateRemoteRows(*ds, planOf(*ds, o), o);
  o.method = PartitionMethod::Random;
  RemoteRowEstimate random = estimateRemoteRows(*ds, planOf(*ds, o), o);
  // Random placement: about 3/4 of the rows of 4 parts are remote.
  EXPECT_GT(random.remoteRows, random.inputRows / 2);
  EXPECT_LT(frequency.remoteRows, random.remoteRows * 8 / 10)
      << frequency.remoteRows << " vs random " << random.remoteRows;
  EXPECT_EQ(frequency.cacheHits, 0);

  o.method = PartitionMethod::Frequency;
  o.cacheRatio = 0.2;
  RemoteRowEstimate cached = estimateRemoteRows(*ds, planOf(*ds, o), o);
  EXPECT_EQ(cached.remoteRows, frequency.remoteRows); // same assignment
  EXPECT_GT(cached.cacheHits, frequency.remoteRows / 10);
  EXPECT_LE(cached.cacheHits, cached.remoteRows);

  // A cache helps any method: hotness comes from the same pre-sampling.
  o.method = PartitionMethod::Random;
  RemoteRowEstimate randomCached = estimateRemoteRows(*ds, planOf(*ds, o), o);
  EXPECT_EQ(randomCached.remoteRows, random.remoteRows);
  EXPECT_GT(randomCached.cacheHits, 0);
}

TEST_F(Frequency, CacheListsAreRemoteAndOfTheRequestedSize) {
  for (PartitionMethod method :
       {PartitionMethod::Frequency, PartitionMethod::Random,
        PartitionMethod::Metis}) {
    PartitionOptions o = frequencyOptions(4);
    o.method = method;
    o.cacheRatio = 0.15;
    PartitionPlan plan = planOf(*ds, o);
    ASSERT_EQ(plan.cacheOffsets.size(), 5u);
    EXPECT_EQ(plan.cacheRatio, 0.15);
    for (int p = 0; p < 4; ++p) {
      const PartCounts &c = plan.counts[size_t(p)];
      std::vector<int64_t> cache(
          plan.cachedNodes.begin() + plan.cacheOffsets[size_t(p)],
          plan.cachedNodes.begin() + plan.cacheOffsets[size_t(p) + 1]);
      EXPECT_EQ(int64_t(cache.size()),
                int64_t(std::floor(0.15 * double(c.ownedNodes) + 1e-9)))
          << partitionMethodName(method) << " part " << p;
      EXPECT_EQ(c.cachedNodes, int64_t(cache.size()));
      EXPECT_TRUE(std::is_sorted(cache.begin(), cache.end()));
      EXPECT_EQ(std::adjacent_find(cache.begin(), cache.end()), cache.end());
      for (int64_t v : cache)
        EXPECT_NE(plan.owner[size_t(v)], p) << "part " << p << " caches " << v;
      Partition part = extractPartition(*ds, plan, p);
      EXPECT_EQ(part.cachedNodes, cache);
      ASSERT_EQ(part.cachedFeatures.size(), cache.size() * 3);
      for (size_t i = 0; i < cache.size(); ++i)
        for (int64_t f = 0; f < 3; ++f)
          EXPECT_EQ(part.cachedFeatures[i * 3 + size_t(f)],
                    ds->features[size_t(cache[i] * 3 + f)]);
    }
  }
}

TEST_F(Frequency, CacheHoldsTheHottestRemoteNodes) {
  PartitionOptions o = frequencyOptions(2);
  o.method = PartitionMethod::Random;
  PartitionPlan plan =
      buildPartitionPlan(*ds, partitionNodes(*ds, o), 2, EdgeAssign::Dst);
  AccessCounts hot = sampleAccessCounts(*ds, plan.owner, 2, o);
  selectFeatureCache(plan, hot, 0.1);
  for (int p = 0; p < 2; ++p) {
    // Every cached node is at least as hot as every uncached remote one.
    int32_t coldestCached = INT32_MAX, hottestLeft = 0;
    std::vector<char> cached(size_t(ds->numNodes), 0);
    for (int64_t k = plan.cacheOffsets[size_t(p)];
         k < plan.cacheOffsets[size_t(p) + 1]; ++k) {
      cached[size_t(plan.cachedNodes[size_t(k)])] = 1;
      coldestCached =
          std::min(coldestCached, hot.at(p, plan.cachedNodes[size_t(k)]));
    }
    for (int64_t v = 0; v < ds->numNodes; ++v)
      if (!cached[size_t(v)] && plan.owner[size_t(v)] != p)
        hottestLeft = std::max(hottestLeft, hot.at(p, v));
    EXPECT_GE(coldestCached, hottestLeft);
    EXPECT_GT(coldestCached, 0);
  }
  selectFeatureCache(plan, hot, 0);
  EXPECT_TRUE(plan.cachedNodes.empty());
  EXPECT_EQ(plan.counts[0].cachedNodes, 0);
}

TEST_F(Frequency, OptionErrors) {
  PartitionOptions o = frequencyOptions(4);
  o.fanouts = {};
  EXPECT_EQ(dataErrorOf([&] { partitionNodes(*ds, o); }),
            "partition: frequency partitioning needs the training fanouts");
  o.method = PartitionMethod::Random;
  o.cacheRatio = 0.1;
  EXPECT_EQ(dataErrorOf([&] { partitionNodes(*ds, o); }),
            "partition: a feature cache needs the training fanouts (its "
            "hotness comes from pre-sampling)");
  o = frequencyOptions(4);
  o.cacheRatio = 1.5;
  EXPECT_EQ(dataErrorOf([&] { partitionNodes(*ds, o); }),
            "partition: the cache ratio must lie in [0, 1] (got 1.5)");
  o.cacheRatio = -0.25;
  EXPECT_EQ(dataErrorOf([&] { checkSamplingOptions(o); }),
            "partition: the cache ratio must lie in [0, 1] (got -0.25)");
  o = frequencyOptions(4);
  o.fanouts = {5, 0};
  EXPECT_EQ(dataErrorOf([&] { partitionNodes(*ds, o); }),
            "partition: fanout 1 is 0, expected > 0 or -1 (all neighbours)");
  o.fanouts = {-1, 5};
  EXPECT_EQ(dataErrorOf([&] { checkSamplingOptions(o); }), "<no error>");
  o.batchSize = 0;
  EXPECT_EQ(dataErrorOf([&] { partitionNodes(*ds, o); }),
            "partition: the batch size must be at least 1 (got 0)");
  o = frequencyOptions(4);
  Dataset untrained = *ds;
  untrained.trainIdx.clear();
  EXPECT_EQ(dataErrorOf([&] { partitionNodes(untrained, o); }),
            "partition: frequency partitioning samples from the training "
            "nodes, and the dataset has none");
}

namespace {
/// Partitions and writes `ds` the way gnn-partition does.
PartitionManifest writeParts(const std::string &dir, const Dataset &ds,
                             const PartitionOptions &o) {
  PartitionManifest m;
  m.method = o.method;
  m.seed = o.seed;
  m.fanouts = o.fanouts;
  m.batchSize = o.batchSize;
  m.dataset = "synthetic";
  PartitionPlan plan = planOf(ds, o);
  fillManifestCounts(m, ds, plan);
  writePartitions(dir, ds, plan, m);
  return m;
}
} // namespace

TEST_F(Frequency, CacheFilesRoundTrip) {
  PartitionOptions o = frequencyOptions(3);
  o.cacheRatio = 0.25;
  TempDir tmp;
  PartitionManifest written = writeParts(tmp / "out", *ds, o);
  EXPECT_EQ(written.cacheRatio, 0.25);
  PartitionPlan plan = planOf(*ds, o);
  for (int k = 0; k < 3; ++k) {
    PartitionManifest m;
    Partition read = readPartition(tmp / "out", k, 3, &m);
    Partition made = extractPartition(*ds, plan, k);
    EXPECT_GT(read.numCached(), 0);
    EXPECT_EQ(read.cachedNodes, made.cachedNodes);
    EXPECT_EQ(read.cachedFeatures, made.cachedFeatures);
    EXPECT_EQ(read.ownedNodes, made.ownedNodes);
    EXPECT_EQ(m.method, PartitionMethod::Frequency);
    EXPECT_EQ(m.fanouts, (std::vector<int64_t>{5, 5}));
    EXPECT_EQ(m.batchSize, 32);
    EXPECT_EQ(m.cacheRatio, 0.25);
    EXPECT_EQ(m.parts, written.parts);
    EXPECT_EQ(manifestToJson(m), manifestToJson(written));
  }
  EXPECT_EQ(readPartitionBook(tmp / "out"), plan.owner);
  std::string text = readBytes(tmp / "out/manifest.json");
  EXPECT_NE(text.find("\"method\": \"frequency\""), std::string::npos);
  EXPECT_NE(text.find("\"fanouts\": [5, 5],\n  \"batch_size\": 32,\n  "
                      "\"cache_ratio\": 0.25,"),
            std::string::npos)
      << text;

  // Without a cache there are no cache files, and nothing to read.
  o.cacheRatio = 0;
  writeParts(tmp / "plain", *ds, o);
  EXPECT_FALSE(std::filesystem::exists(tmp / "plain/part0/cached_nodes.npy"));
  EXPECT_FALSE(
      std::filesystem::exists(tmp / "plain/part0/cached_features.npy"));
  EXPECT_EQ(readPartition(tmp / "plain", 0, 3).numCached(), 0);
}

TEST_F(Frequency, ManifestsWithoutSamplingFieldsStillRead) {
  PartitionOptions o = frequencyOptions(2);
  o.method = PartitionMethod::Random;
  o.fanouts = {};
  TempDir tmp;
  writeParts(tmp / "out", *ds, o);
  std::string path = tmp / "out/manifest.json";
  std::string text = readBytes(path);
  // As written before frequency partitioning existed.
  for (const char *field :
       {"  \"fanouts\": [],\n", "  \"batch_size\": 32,\n",
        "  \"cache_ratio\": 0,\n", ", \"cached_nodes\": 0"}) {
    size_t at;
    while ((at = text.find(field)) != std::string::npos)
      text.erase(at, std::string(field).size());
  }
  writeFile(path, text);
  PartitionManifest m;
  EXPECT_EQ(dataErrorOf([&] { readPartition(tmp / "out", 1, 2, &m); }),
            "<no error>");
  EXPECT_TRUE(m.fanouts.empty());
  EXPECT_EQ(m.cacheRatio, 0);
}

namespace {
class BadCache : public ::testing::Test {
protected:
  void SetUp() override {
    Dataset ds = sparseDataset(2000, 5000, 5);
    PartitionOptions o = frequencyOptions(2);
    o.cacheRatio = 0.1;
    writeParts(dir(), ds, o);
  }
  std::string dir() const { return tmp / "parts"; }
  std::string file(const std::string &rel) const { return dir() + "/" + rel; }
  std::string read() const {
    return dataErrorOf([&] { readPartition(dir(), 1, 2); });
  }
  void editManifest(const std::string &from, const std::string &to) {
    std::string text = readBytes(file("manifest.json"));
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    writeFile(file("manifest.json"), text.replace(at, from.size(), to));
  }
  TempDir tmp;
};
} // namespace

TEST_F(BadCache, ValidBaselineLoads) {
  EXPECT_EQ(read(), "<no error>");
  PartitionManifest m;
  Partition p = readPartition(dir(), 1, 2, &m);
  EXPECT_EQ(p.numCached(), m.parts[1].cachedNodes);
  EXPECT_EQ(p.numCached(), p.numOwned() / 10);
}

TEST_F(BadCache, MissingCacheFile) {
  std::filesystem::remove(file("part1/cached_features.npy"));
  EXPECT_EQ(read(),
            file("part1/cached_features.npy") + ": missing partition file");
}

TEST_F(BadCache, CachedNodeOwnedByThePart) {
  Partition p = readPartition(dir(), 1, 2);
  p.cachedNodes[4] = p.ownedNodes[0];
  std::sort(p.cachedNodes.begin(), p.cachedNodes.end());
  size_t at = size_t(
      std::find(p.cachedNodes.begin(), p.cachedNodes.end(), p.ownedNodes[0]) -
      p.cachedNodes.begin());
  writeNpy(file("part1/cached_nodes.npy"), NpyType::Int64, {p.numCached()},
           p.cachedNodes.data());
  EXPECT_EQ(read(), file("part1/cached_nodes.npy") +
                        ": corrupt partition: element " + std::to_string(at) +
                        " is node " + std::to_string(p.ownedNodes[0]) +
                        ", which this part owns");
}

TEST_F(BadCache, CachedNodesNotAscendingOrOutOfRange) {
  Partition p = readPartition(dir(), 1, 2);
  std::swap(p.cachedNodes[2], p.cachedNodes[3]);
  writeNpy(file("part1/cached_nodes.npy"), NpyType::Int64, {p.numCached()},
           p.cachedNodes.data());
  EXPECT_EQ(read(), file("part1/cached_nodes.npy") +
                        ": corrupt partition: ids must be strictly ascending "
                        "(element 3)");
  p.cachedNodes[3] = 2000;
  writeNpy(file("part1/cached_nodes.npy"), NpyType::Int64, {p.numCached()},
           p.cachedNodes.data());
  EXPECT_EQ(read(), file("part1/cached_nodes.npy") +
                        ": corrupt partition: element 3 is 2000, expected "
                        "[0, 2000)");
}

TEST_F(BadCache, CacheFileOfWrongShape) {
  std::vector<float> rows(10 * 3);
  writeNpy(file("part1/cached_features.npy"), NpyType::Float32, {10, 3},
           rows.data());
  const int64_t cached = readPartitionManifest(dir()).parts[1].cachedNodes;
  EXPECT_EQ(read(), file("part1/cached_features.npy") + ": expected shape (" +
                        std::to_string(cached) +
                        ", 3) (from manifest.json), found (10, 3)");
}

TEST_F(BadCache, ManifestCacheFields) {
  editManifest("\"cache_ratio\": 0.1", "\"cache_ratio\": 2");
  EXPECT_EQ(read(), file("manifest.json") +
                        ": corrupt manifest: field 'cache_ratio' must be a "
                        "number in [0, 1]");
  editManifest("\"cache_ratio\": 2", "\"cache_ratio\": 0");
  EXPECT_EQ(read(), file("manifest.json") +
                        ": corrupt manifest: field 'parts[0].cached_nodes' "
                        "must be 0 without a cache (cache_ratio 0)");
  editManifest("\"cache_ratio\": 0", "\"cache_ratio\": 0.1");
  editManifest("\"fanouts\": [5, 5]", "\"fanouts\": [5, 0]");
  EXPECT_EQ(read(), file("manifest.json") +
                        ": corrupt manifest: field 'fanouts' must hold "
                        "integers > 0 or -1");
  editManifest("\"fanouts\": [5, 0]", "\"fanouts\": []");
  EXPECT_EQ(read(), file("manifest.json") +
                        ": corrupt manifest: method 'frequency' needs the "
                        "'fanouts' it sampled with");
}

TEST_F(Frequency, WriterRefusesAManifestWithoutTheCache) {
  PartitionOptions o = frequencyOptions(2);
  o.cacheRatio = 0.1;
  PartitionPlan plan = planOf(*ds, o);
  PartitionManifest m;
  fillManifestCounts(m, *ds, plan);
  m.cacheRatio = 0; // as if the cache were forgotten
  TempDir tmp;
  EXPECT_EQ(dataErrorOf([&] { writePartitions(tmp / "out", *ds, plan, m); }),
            "partition: the manifest does not describe the plan (fill it "
            "with fillManifestCounts)");
  EXPECT_FALSE(std::filesystem::exists(tmp / "out"));
}
