//===- MagGeneratorTest.cpp - The ogbn-mag-shaped generator ---------------===//
//
// The mag generator's promises: ogbn-mag's node types, relations and
// proportions at any scale; the same bytes for a seed at any thread count;
// labels, features and the split on papers only; learnable labels (cites is
// homophilous, an author writes mostly in one class, features carry the
// class); written and read back through the heterogeneous layout unchanged.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Generator.h"

#include "TestUtil.h"

#include <algorithm>
#include <map>

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace gnnrt;
using namespace gnnrt::test;

namespace {
GeneratorOptions magOptions(int64_t nodes = 20000, uint64_t seed = 1) {
  GeneratorOptions o;
  o.kind = GraphKind::Mag;
  o.numNodes = nodes;
  o.numEdges = -1;
  o.numFeatures = 8;
  o.numClasses = 10;
  o.seed = seed;
  return o;
}

int64_t edgesOf(const Dataset &ds, int32_t relation) {
  return std::count(ds.edgeType.begin(), ds.edgeType.end(), relation);
}
} // namespace

TEST(MagGenerator, TypesAndRelationsAreOgbnMags) {
  Dataset ds = generateDataset(magOptions());
  ASSERT_TRUE(ds.isHeterogeneous());
  const char *types[] = {"author", "field_of_study", "institution", "paper"};
  // ogbn-mag's counts scaled to 20000 nodes: 1134649 / 1939743 * 20000 ...
  const int64_t counts[] = {11699, 618, 90, 7593};
  ASSERT_EQ(ds.nodeTypes.size(), 4u);
  int64_t offset = 0;
  for (size_t t = 0; t < 4; ++t) {
    EXPECT_EQ(ds.nodeTypes[t].name, types[t]);
    EXPECT_EQ(ds.nodeTypes[t].count, counts[t]);
    EXPECT_EQ(ds.nodeTypes[t].offset, offset);
    EXPECT_EQ(ds.nodeTypes[t].hasFeatures, t == 3);
    offset += counts[t];
  }
  EXPECT_EQ(offset, 20000);
  EXPECT_EQ(ds.targetType, 3);

  struct {
    const char *name;
    int32_t src, dst;
    int64_t full; // ogbn-mag's edge count
  } relations[] = {{"affiliated_with", 0, 2, 1043998},
                   {"writes", 0, 3, 7145660},
                   {"cites", 3, 3, 5416271},
                   {"has_topic", 3, 1, 7505078}};
  ASSERT_EQ(ds.relations.size(), 4u);
  for (int32_t r = 0; r < 4; ++r) {
    EXPECT_EQ(ds.relations[r].name, relations[r].name);
    EXPECT_EQ(ds.relations[r].srcType, relations[r].src);
    EXPECT_EQ(ds.relations[r].dstType, relations[r].dst);
    // ogbn-mag's density: its edges per node times 20000 nodes.
    EXPECT_NEAR(double(edgesOf(ds, r)),
                double(relations[r].full) * 20000 / 1939743, 1.0);
  }
  ASSERT_EQ(ds.edgeType.size(), ds.src.size());
  for (int64_t e = 0; e < ds.numEdges(); ++e) {
    const RelationType &r = ds.relations[size_t(ds.edgeType[size_t(e)])];
    ASSERT_EQ(ds.nodeTypeOf(ds.src[size_t(e)]), r.srcType);
    ASSERT_EQ(ds.nodeTypeOf(ds.dst[size_t(e)]), r.dstType);
    if (r.srcType == r.dstType)
      ASSERT_NE(ds.src[size_t(e)], ds.dst[size_t(e)]); // no self citations
  }

  // --edges splits a total in ogbn-mag's proportions, exactly.
  GeneratorOptions o = magOptions();
  o.numEdges = 50001;
  Dataset scaled = generateDataset(o);
  EXPECT_EQ(scaled.numEdges(), 50001);
  EXPECT_NEAR(double(edgesOf(scaled, 2)), 50001.0 * 5416271 / 21110997, 1.0);
}

TEST(MagGenerator, PapersCarryLabelsFeaturesAndSplit) {
  Dataset ds = generateDataset(magOptions());
  const NodeType &paper = ds.nodeTypes[3];
  for (int64_t v = 0; v < ds.numNodes; ++v) {
    bool isPaper = v >= paper.offset;
    ASSERT_EQ(ds.labels[size_t(v)] >= 0, isPaper) << v;
    bool zeroRow = std::all_of(ds.features.begin() + v * 8,
                               ds.features.begin() + v * 8 + 8,
                               [](float x) { return x == 0.f; });
    ASSERT_EQ(zeroRow, !isPaper) << v;
  }
  EXPECT_EQ(ds.numClasses, 10);
  size_t split = ds.trainIdx.size() + ds.validIdx.size() + ds.testIdx.size();
  EXPECT_EQ(split, size_t(paper.count)); // 0.6 + 0.2 + 0.2
  for (const auto *ids : {&ds.trainIdx, &ds.validIdx, &ds.testIdx})
    for (int64_t v : *ids)
      ASSERT_EQ(ds.nodeTypeOf(v), 3);
}

TEST(MagGenerator, LabelsAreLearnable) {
  Dataset ds = generateDataset(magOptions());
  // Citations join papers of one class with probability `homophily` (0.8):
  // the other draws exclude the source's class.
  int64_t same = 0, cites = 0;
  for (int64_t e = 0; e < ds.numEdges(); ++e)
    if (ds.edgeType[size_t(e)] == 2) {
      ++cites;
      same += ds.labels[size_t(ds.src[size_t(e)])] ==
              ds.labels[size_t(ds.dst[size_t(e)])];
    }
  EXPECT_NEAR(double(same) / double(cites), 0.8, 0.02);

  // An author writes mostly in one class: over authors with 3+ papers, the
  // commonest class holds most of them.
  std::map<int64_t, std::map<int64_t, int64_t>> classesOf;
  for (int64_t e = 0; e < ds.numEdges(); ++e)
    if (ds.edgeType[size_t(e)] == 1)
      ++classesOf[ds.src[size_t(e)]][ds.labels[size_t(ds.dst[size_t(e)])]];
  int64_t modal = 0, written = 0;
  for (const auto &[author, counts] : classesOf) {
    int64_t total = 0, best = 0;
    for (const auto &[label, count] : counts) {
      total += count;
      best = std::max(best, count);
    }
    if (total >= 3) {
      modal += best;
      written += total;
    }
  }
  ASSERT_GT(written, 10000);
  EXPECT_GT(double(modal) / double(written), 0.75);

  // Features: nearest class mean (estimated on train) beats chance by far.
  const int64_t f = ds.numFeatures, c = ds.numClasses;
  std::vector<double> mean(size_t(c * f), 0.0), count(size_t(c), 0.0);
  for (int64_t v : ds.trainIdx) {
    count[size_t(ds.labels[size_t(v)])] += 1;
    for (int64_t j = 0; j < f; ++j)
      mean[size_t(ds.labels[size_t(v)] * f + j)] +=
          ds.features[size_t(v * f + j)];
  }
  for (int64_t k = 0; k < c * f; ++k)
    mean[size_t(k)] /= count[size_t(k / f)];
  int64_t correct = 0;
  for (int64_t v : ds.testIdx) {
    int64_t best = 0;
    double bestDist = 1e300;
    for (int64_t k = 0; k < c; ++k) {
      double dist = 0;
      for (int64_t j = 0; j < f; ++j) {
        double d = ds.features[size_t(v * f + j)] - mean[size_t(k * f + j)];
        dist += d * d;
      }
      if (dist < bestDist)
        bestDist = dist, best = k;
    }
    correct += best == ds.labels[size_t(v)];
  }
  EXPECT_GT(double(correct) / double(ds.testIdx.size()), 0.4); // chance 0.1
}

TEST(MagGenerator, SameSeedSameDataAtAnyThreadCount) {
#ifdef _OPENMP
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
#endif
  Dataset one = generateDataset(magOptions());
#ifdef _OPENMP
  omp_set_num_threads(4);
#endif
  Dataset four = generateDataset(magOptions());
#ifdef _OPENMP
  omp_set_num_threads(saved);
#endif
  EXPECT_EQ(one.src, four.src);
  EXPECT_EQ(one.dst, four.dst);
  EXPECT_EQ(one.edgeType, four.edgeType);
  EXPECT_EQ(one.features, four.features);
  EXPECT_EQ(one.labels, four.labels);
  EXPECT_EQ(one.trainIdx, four.trainIdx);
  Dataset other = generateDataset(magOptions(20000, 2));
  EXPECT_NE(one.dst, other.dst);
  EXPECT_NE(one.labels, other.labels);
}

TEST(MagGenerator, WrittenAndReadBack) {
  TempDir tmp;
  Dataset ds = generateDataset(magOptions(2000));
  writeOgbDataset(tmp / "a", ds, "random");
  writeOgbDataset(tmp / "b", generateDataset(magOptions(2000)), "random");
  for (const char *file :
       {"raw/num-node-dict.csv.gz", "raw/triplet-type-list.csv.gz",
        "raw/relations/paper___cites___paper/edge.csv.gz",
        "raw/node-feat/paper/node-feat.csv.gz",
        "split/random/paper/train.csv.gz"})
    EXPECT_EQ(readBytes(tmp / "a/" + file), readBytes(tmp / "b/" + file))
        << file;
  LoadOptions options;
  options.useCache = false;
  Dataset back = loadDataset(tmp / "a", options);
  EXPECT_EQ(back.numNodes, ds.numNodes);
  EXPECT_EQ(back.src, ds.src);
  EXPECT_EQ(back.dst, ds.dst);
  EXPECT_EQ(back.edgeType, ds.edgeType);
  EXPECT_EQ(back.features, ds.features);
  EXPECT_EQ(back.labels, ds.labels);
  EXPECT_EQ(back.trainIdx, ds.trainIdx);
  EXPECT_EQ(back.testIdx, ds.testIdx);
  EXPECT_EQ(back.targetType, 3);
  EXPECT_EQ(back.numClasses, 10);
}

TEST(MagGenerator, RejectsBadOptions) {
  GeneratorOptions o = magOptions(100);
  o.numClasses = 349; // ogbn-mag's default, for 38 papers
  EXPECT_EQ(dataErrorOf([&] { generateDataset(o); }),
            "generator: classes (349) must not exceed papers (38 of 100 "
            "nodes)");
  o = magOptions(5);
  EXPECT_EQ(dataErrorOf([&] { generateDataset(o); }),
            "generator: nodes must be >= 10 (got 5)");
  o = magOptions();
  o.homophily = 1.5;
  EXPECT_EQ(dataErrorOf([&] { generateDataset(o); }),
            "generator: homophily must lie in [0, 1]");
  o = magOptions();
  o.numEdges = -2;
  EXPECT_EQ(dataErrorOf([&] { generateDataset(o); }),
            "generator: edges must be >= 0 (got -2)");
}
