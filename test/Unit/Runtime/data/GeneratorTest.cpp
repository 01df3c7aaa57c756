//===- GeneratorTest.cpp - Synthetic dataset properties -------------------===//
//
// The generator's promises: same seed -> identical data and identical files;
// SBM edges are homophilous; features carry the class (a nearest-mean
// classifier beats chance by far); RMAT degrees are heavy-tailed; splits
// have the requested sizes and are disjoint; bad options are rejected.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Generator.h"

#include "TestUtil.h"
#include "gnnrt/graph/Graph.h"
#include "gnnrt/io/Npy.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {
GeneratorOptions small(GraphKind kind, uint64_t seed = 1) {
  GeneratorOptions o;
  o.kind = kind;
  o.numNodes = 2000;
  o.numEdges = 20000;
  o.numFeatures = 16;
  o.numClasses = 4;
  o.seed = seed;
  return o;
}

double intraClassFraction(const Dataset &ds) {
  int64_t same = 0;
  for (int64_t e = 0; e < ds.numEdges(); ++e)
    same += ds.labels[ds.src[e]] == ds.labels[ds.dst[e]];
  return double(same) / double(ds.numEdges());
}
} // namespace

TEST(Generator, SameSeedSameData) {
  for (GraphKind kind : {GraphKind::Sbm, GraphKind::Rmat}) {
    Dataset a = generateDataset(small(kind)), b = generateDataset(small(kind));
    EXPECT_EQ(a.src, b.src);
    EXPECT_EQ(a.dst, b.dst);
    EXPECT_EQ(a.features, b.features);
    EXPECT_EQ(a.labels, b.labels);
    EXPECT_EQ(a.trainIdx, b.trainIdx);
    Dataset c = generateDataset(small(kind, 2));
    EXPECT_NE(a.dst, c.dst);
    EXPECT_NE(a.features, c.features);
  }
}

TEST(Generator, SameSeedSameFiles) {
  TempDir tmp;
  Dataset ds = generateDataset(small(GraphKind::Sbm));
  writeOgbDataset(tmp / "a", ds);
  writeOgbDataset(tmp / "b", generateDataset(small(GraphKind::Sbm)));
  writeNpyDataset(tmp / "c", ds);
  writeNpyDataset(tmp / "d", ds);
  for (const char *file :
       {"raw/edge.csv.gz", "raw/node-feat.csv.gz", "raw/node-label.csv.gz",
        "split/random/train.csv.gz"})
    EXPECT_EQ(readBytes(tmp / "a/" + file), readBytes(tmp / "b/" + file))
        << file;
  for (const char *file : {"edge_index.npy", "features.npy", "labels.npy"})
    EXPECT_EQ(readBytes(tmp / "c/" + file), readBytes(tmp / "d/" + file));
  EXPECT_GT(readBytes(tmp / "a/raw/edge.csv.gz").size(), 1000u);
}

// gnn-data writes datasets larger than memory in chunks (1M edges, 8 MiB
// of feature rows): the files are the in-memory dataset's, byte for byte,
// and hold its values, across chunk boundaries.
TEST(Generator, StreamedFilesAreTheInMemoryDatasets) {
  TempDir tmp;
  for (GraphKind kind : {GraphKind::Sbm, GraphKind::Rmat}) {
    GeneratorOptions o = small(kind);
    o.numNodes = 3001;
    o.numEdges = (int64_t(1) << 20) + 4099; // two edge chunks
    o.numFeatures = 701;                    // two feature chunks
    const Dataset ds = generateDataset(o);
    const std::string name = kind == GraphKind::Sbm ? "sbm" : "rmat";
    writeNpyDataset(tmp / (name + "-memory"), ds);
    const Dataset nodes =
        writeGeneratedDataset(o, tmp / (name + "-streamed"), /*npy=*/true);
    EXPECT_EQ(nodes.labels, ds.labels);
    EXPECT_EQ(nodes.testIdx, ds.testIdx);
    EXPECT_TRUE(nodes.features.empty() && nodes.src.empty());
    for (const char *file : {"edge_index.npy", "features.npy", "labels.npy",
                             "train_idx.npy", "valid_idx.npy", "test_idx.npy"})
      EXPECT_EQ(readBytes(tmp / (name + "-memory/") + file),
                readBytes(tmp / (name + "-streamed/") + file))
          << name << " " << file;
    // The values themselves, read back by the reader.
    const std::string streamed = tmp / (name + "-streamed");
    std::vector<int64_t> edgeIndex = readNpy(streamed + "/edge_index.npy")
                                         .toInt64(streamed + "/edge_index.npy");
    std::vector<int64_t> expected(ds.src);
    expected.insert(expected.end(), ds.dst.begin(), ds.dst.end());
    EXPECT_EQ(edgeIndex, expected) << name;
    EXPECT_EQ(readNpy(streamed + "/features.npy").toFloat32(), ds.features)
        << name;
  }
  // The OGB layout's text, from the same chunks (one here: gzip is slow).
  const GeneratorOptions o = small(GraphKind::Sbm);
  const Dataset ds = generateDataset(o);
  writeOgbDataset(tmp / "ogb-memory", ds, "random", /*gzip=*/true);
  writeGeneratedDataset(o, tmp / "ogb-streamed", /*npy=*/false);
  for (const char *file :
       {"raw/edge.csv.gz", "raw/node-feat.csv.gz", "raw/node-label.csv.gz",
        "raw/num-edge-list.csv.gz", "split/random/valid.csv.gz"})
    EXPECT_EQ(readBytes(tmp / "ogb-memory/" + file),
              readBytes(tmp / "ogb-streamed/" + file))
        << file;
}

TEST(Generator, SbmIsHomophilousAndSimpleShaped) {
  Dataset ds = generateDataset(small(GraphKind::Sbm));
  EXPECT_EQ(ds.numNodes, 2000);
  EXPECT_EQ(ds.numEdges(), 20000);
  EXPECT_EQ(ds.numClasses, 4);
  // Defaults pIn 1, pOut 0.05, 4 equal classes: 1 / (1 + 3 * 0.05) = 0.87.
  EXPECT_NEAR(intraClassFraction(ds), 0.87, 0.03);
  for (int64_t e = 0; e < ds.numEdges(); ++e)
    ASSERT_NE(ds.src[e], ds.dst[e]);
  std::set<int64_t> classes(ds.labels.begin(), ds.labels.end());
  EXPECT_EQ(classes.size(), 4u);

  GeneratorOptions mixed = small(GraphKind::Sbm);
  mixed.pIn = mixed.pOut = 1.0; // no community structure: 1/4 intra
  EXPECT_NEAR(intraClassFraction(generateDataset(mixed)), 0.25, 0.03);
}

TEST(Generator, FeaturesPredictTheClass) {
  Dataset ds = generateDataset(small(GraphKind::Sbm));
  const int64_t f = ds.numFeatures, c = ds.numClasses;
  // Nearest class mean, means estimated on the train split.
  std::vector<double> mean(size_t(c * f), 0.0), count(size_t(c), 0.0);
  for (int64_t v : ds.trainIdx) {
    count[ds.labels[v]] += 1;
    for (int64_t j = 0; j < f; ++j)
      mean[ds.labels[v] * f + j] += ds.features[v * f + j];
  }
  for (int64_t k = 0; k < c; ++k)
    for (int64_t j = 0; j < f; ++j)
      mean[k * f + j] /= count[k];
  int64_t correct = 0;
  for (int64_t v : ds.testIdx) {
    int64_t best = 0;
    double bestDist = INFINITY;
    for (int64_t k = 0; k < c; ++k) {
      double dist = 0;
      for (int64_t j = 0; j < f; ++j)
        dist += std::pow(ds.features[v * f + j] - mean[k * f + j], 2);
      if (dist < bestDist)
        bestDist = dist, best = k;
    }
    correct += best == ds.labels[v];
  }
  double accuracy = double(correct) / double(ds.testIdx.size());
  // Chance is 0.25; means 3 sigma apart make it far better, not perfect.
  EXPECT_GT(accuracy, 0.6);
  EXPECT_LT(accuracy, 0.98);
}

TEST(Generator, RmatIsHeavyTailed) {
  GeneratorOptions o = small(GraphKind::Rmat);
  o.numNodes = 3000; // not a power of two: ids must still be < 3000
  Dataset ds = generateDataset(o);
  Graph g = Graph::fromEdges(ds.numNodes, ds.src, ds.dst);
  std::vector<int64_t> deg = g.outDegrees();
  int64_t maxDeg = *std::max_element(deg.begin(), deg.end());
  double meanDeg = double(ds.numEdges()) / double(ds.numNodes);
  EXPECT_GT(double(maxDeg), 10 * meanDeg);
  for (int64_t e = 0; e < ds.numEdges(); ++e)
    ASSERT_NE(ds.src[e], ds.dst[e]);
  // Community labels: intra-class edges well above the 1/4 of random ones.
  EXPECT_GT(intraClassFraction(ds), 0.35);
  EXPECT_EQ(ds.labels.front(), 0);
  EXPECT_EQ(ds.labels.back(), 3);
}

TEST(Generator, SplitSizesAndDisjointness) {
  GeneratorOptions o = small(GraphKind::Sbm);
  o.numNodes = 1000;
  o.trainFraction = 0.5;
  o.validFraction = 0.2;
  o.testFraction = 0.1;
  Dataset ds = generateDataset(o);
  EXPECT_EQ(ds.trainIdx.size(), 500u);
  EXPECT_EQ(ds.validIdx.size(), 200u);
  EXPECT_EQ(ds.testIdx.size(), 100u);
  std::set<int64_t> all;
  for (auto *split : {&ds.trainIdx, &ds.validIdx, &ds.testIdx})
    all.insert(split->begin(), split->end());
  EXPECT_EQ(all.size(), 800u);
  EXPECT_TRUE(std::is_sorted(ds.trainIdx.begin(), ds.trainIdx.end()));
  // 3 nodes at 0.5/0.5 round to 2 + 2: the second split gets what is left.
  o.numNodes = 3;
  o.numClasses = 1;
  o.trainFraction = o.validFraction = 0.5;
  o.testFraction = 0;
  ds = generateDataset(o);
  EXPECT_EQ(ds.trainIdx.size(), 2u);
  EXPECT_EQ(ds.validIdx.size(), 1u);
  EXPECT_TRUE(ds.testIdx.empty());
}

TEST(Generator, RejectsBadOptions) {
  GeneratorOptions o;
  o.numNodes = 0;
  EXPECT_EQ(dataErrorOf([&] { generateDataset(o); }),
            "generator: nodes must be >= 1 (got 0)");
  o = GeneratorOptions();
  o.numClasses = 5000;
  EXPECT_EQ(dataErrorOf([&] { generateDataset(o); }),
            "generator: classes (5000) must not exceed nodes (1000)");
  o = GeneratorOptions();
  o.trainFraction = 0.9;
  EXPECT_EQ(dataErrorOf([&] { generateDataset(o); }),
            "generator: split fractions sum to more than 1");
}
