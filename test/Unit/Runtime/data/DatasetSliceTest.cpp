//===- DatasetSliceTest.cpp - Every rank's slice, together, is the dataset ===//
//
// readDatasetSlice for P ranks must cover the dataset exactly once: the
// union of the edge stripes is the edge list (as a multiset), the feature
// blocks concatenate to the feature matrix, and every rank holds the same
// labels and splits. Checked against the whole-dataset readers on the
// bundled Cora (OGB layout, gzip csv) and a generated graph in .npy.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/DatasetSlice.h"

#include "TestUtil.h"
#include "gnnrt/data/Generator.h"

#include <algorithm>
#include <filesystem>
#include <utility>

namespace gnnrt {
namespace {

LoadOptions raw() {
  LoadOptions o;
  o.useCache = false;
  return o;
}

void expectSlicesCover(const std::string &dir, const Dataset &whole,
                       int numRanks) {
  std::vector<std::pair<int64_t, int64_t>> edges, expected;
  std::vector<float> features;
  for (int r = 0; r < numRanks; ++r) {
    DatasetSlice s = readDatasetSlice(dir, raw(), r, numRanks);
    EXPECT_EQ(s.numNodes, whole.numNodes);
    EXPECT_EQ(s.numFeatures, whole.numFeatures);
    EXPECT_EQ(std::make_pair(s.nodeBegin, s.nodeEnd),
              nodeBlock(whole.numNodes, r, numRanks));
    EXPECT_EQ(int64_t(s.features.size()),
              (s.nodeEnd - s.nodeBegin) * s.numFeatures);
    features.insert(features.end(), s.features.begin(), s.features.end());
    EXPECT_EQ(s.labels, whole.labels);
    EXPECT_EQ(s.trainIdx, whole.trainIdx);
    EXPECT_EQ(s.validIdx, whole.validIdx);
    EXPECT_EQ(s.testIdx, whole.testIdx);
    for (size_t e = 0; e < s.src.size(); ++e)
      edges.emplace_back(s.src[e], s.dst[e]);
  }
  for (int64_t e = 0; e < whole.numEdges(); ++e)
    expected.emplace_back(whole.src[size_t(e)], whole.dst[size_t(e)]);
  std::sort(edges.begin(), edges.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(edges, expected) << numRanks << " ranks";
  EXPECT_EQ(features, whole.features) << numRanks << " ranks";
}

TEST(DatasetSlice, NodeBlocksPartitionTheNodes) {
  for (int p : {1, 2, 3, 7})
    for (int64_t n : {0, 1, 5, 2708}) {
      int64_t next = 0;
      for (int r = 0; r < p; ++r) {
        auto [begin, end] = nodeBlock(n, r, p);
        EXPECT_EQ(begin, next);
        EXPECT_LE(end - begin, n / p + 1);
        EXPECT_GE(end - begin, n / p);
        next = end;
      }
      EXPECT_EQ(next, n);
    }
}

TEST(DatasetSlice, OgbSlicesCoverCora) {
  const Dataset whole = readOgbDataset(test::coraDir(), raw());
  for (int p : {1, 2, 3})
    expectSlicesCover(test::coraDir(), whole, p);
}

TEST(DatasetSlice, NpySlicesCoverAGeneratedGraph) {
  GeneratorOptions g;
  g.numNodes = 500;
  g.numEdges = 3001;
  g.numFeatures = 5;
  g.numClasses = 3;
  g.seed = 2;
  const Dataset ds = generateDataset(g);
  test::TempDir dir;
  writeNpyDataset(dir.path(), ds);
  const Dataset whole = readNpyDataset(dir.path(), raw());
  for (int p : {1, 2, 4})
    expectSlicesCover(dir.path(), whole, p);
}

// The counts the out-of-core start-up sizes its partitions by, read
// without loading: those of the whole-dataset readers.
void expectCountsOf(const std::string &dir, const Dataset &whole) {
  const DatasetCounts c = readDatasetCounts(dir, raw());
  EXPECT_EQ(c.numNodes, whole.numNodes) << dir;
  EXPECT_EQ(c.numEdges, whole.numEdges()) << dir;
  EXPECT_EQ(c.numFeatures, whole.numFeatures) << dir;
  EXPECT_EQ(c.numClasses,
            *std::max_element(whole.labels.begin(), whole.labels.end()) + 1)
      << dir;
}

TEST(DatasetSlice, CountsWithoutLoading) {
  expectCountsOf(test::coraDir(), readOgbDataset(test::coraDir(), raw()));
  // Without num-edge-list.csv the edge rows are counted.
  test::TempDir dir;
  GeneratorOptions g;
  g.numNodes = 300;
  g.numEdges = 1234;
  g.numFeatures = 3;
  g.numClasses = 5;
  const Dataset ds = generateDataset(g);
  writeOgbDataset(dir / "ogb", ds, "random", /*gzip=*/false);
  std::filesystem::remove(dir / "ogb/raw/num-edge-list.csv");
  expectCountsOf(dir / "ogb", ds);
  writeNpyDataset(dir / "npy", ds);
  expectCountsOf(dir / "npy", ds);
}

TEST(DatasetSlice, NpyNeedsANodeCount) {
  test::TempDir dir;
  Dataset ds;
  ds.numNodes = 3;
  ds.src = {0, 1};
  ds.dst = {1, 2};
  writeNpyDataset(dir.path(), ds);
  std::filesystem::remove(dir.path() + "/features.npy");
  std::filesystem::remove(dir.path() + "/labels.npy");
  try {
    readDatasetSlice(dir.path(), raw(), 0, 2);
    FAIL() << "expected a DataError";
  } catch (const DataError &e) {
    EXPECT_NE(std::string(e.what()).find("the distributed reader needs "
                                         "features.npy or labels.npy"),
              std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace gnnrt
