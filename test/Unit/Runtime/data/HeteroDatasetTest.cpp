//===- HeteroDatasetTest.cpp - Loading aifb, typed edge options, cache ----===//
//
// Loads the bundled aifb (OGB's raw heterogeneous layout) and checks the
// published sizes, the node types and their id ranges, the relations and
// the edges' types against the files; then the typed edge options (inverse
// relations, the self relation, dedupe of (src, dst, relation) triples),
// the split presence, the cache round trip and the writer round trip.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"

#include "TestUtil.h"
#include "gnnrt/data/DatasetCache.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <tuple>

using namespace gnnrt;
using namespace gnnrt::test;
namespace fs = std::filesystem;

namespace {
LoadOptions noCache() {
  LoadOptions options;
  options.useCache = false;
  return options;
}

void expectSameTypes(const Dataset &a, const Dataset &b) {
  ASSERT_EQ(a.nodeTypes.size(), b.nodeTypes.size());
  for (size_t t = 0; t < a.nodeTypes.size(); ++t) {
    EXPECT_EQ(a.nodeTypes[t].name, b.nodeTypes[t].name);
    EXPECT_EQ(a.nodeTypes[t].offset, b.nodeTypes[t].offset);
    EXPECT_EQ(a.nodeTypes[t].count, b.nodeTypes[t].count);
    EXPECT_EQ(a.nodeTypes[t].hasFeatures, b.nodeTypes[t].hasFeatures);
  }
  ASSERT_EQ(a.relations.size(), b.relations.size());
  for (size_t r = 0; r < a.relations.size(); ++r) {
    EXPECT_EQ(a.relations[r].name, b.relations[r].name);
    EXPECT_EQ(a.relations[r].srcType, b.relations[r].srcType);
    EXPECT_EQ(a.relations[r].dstType, b.relations[r].dstType);
    EXPECT_EQ(a.relations[r].inverseOf, b.relations[r].inverseOf);
  }
  EXPECT_EQ(a.edgeType, b.edgeType);
  EXPECT_EQ(a.targetType, b.targetType);
  EXPECT_EQ(a.hasSplits, b.hasSplits);
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
  expectSameTypes(a, b);
}

/// Every edge runs between nodes of its relation's endpoint types.
void expectEdgesMatchTypes(const Dataset &ds) {
  ASSERT_EQ(ds.edgeType.size(), ds.src.size());
  for (int64_t e = 0; e < ds.numEdges(); ++e) {
    const RelationType &r = ds.relations[size_t(ds.edgeType[size_t(e)])];
    if (r.srcType < 0) {
      ASSERT_EQ(ds.src[size_t(e)], ds.dst[size_t(e)]) << "edge " << e;
      continue;
    }
    ASSERT_EQ(ds.nodeTypeOf(ds.src[size_t(e)]), r.srcType) << "edge " << e;
    ASSERT_EQ(ds.nodeTypeOf(ds.dst[size_t(e)]), r.dstType) << "edge " << e;
  }
}

/// A copy of the bundled aifb without caches earlier runs left beside it.
void copyAifb(const std::string &dir) {
  fs::copy(aifbDir(), dir, fs::copy_options::recursive);
  for (const auto &entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().rfind(".gnnrt-cache-", 0) == 0)
      fs::remove(entry.path());
}
} // namespace

TEST(HeteroDataset, LoadsAifb) {
  EXPECT_EQ(detectDatasetFormat(aifbDir()), DatasetFormat::OgbHetero);
  Dataset ds = loadDataset(aifbDir(), noCache());
  ASSERT_TRUE(ds.isHeterogeneous());
  // examples/data/aifb/README.md: 7262 nodes, 52 relations, 24405 edges.
  EXPECT_EQ(ds.numNodes, 7262);
  EXPECT_EQ(ds.numEdges(), 24405);
  EXPECT_EQ(ds.relations.size(), 52u);
  EXPECT_EQ(ds.numFeatures, 0);
  EXPECT_TRUE(ds.features.empty());
  EXPECT_EQ(ds.numClasses, 4);

  const std::vector<std::string> names = {
      "Forschungsgebiete", "Forschungsgruppen", "Kooperationen", "Personen",
      "Projekte",          "Publikationen",     "literal"};
  const std::vector<int64_t> counts = {146, 5, 28, 237, 78, 1318, 5450};
  ASSERT_EQ(ds.nodeTypes.size(), 7u);
  int64_t offset = 0;
  for (size_t t = 0; t < 7; ++t) {
    EXPECT_EQ(ds.nodeTypes[t].name, names[t]);
    EXPECT_EQ(ds.nodeTypes[t].count, counts[t]);
    EXPECT_EQ(ds.nodeTypes[t].offset, offset);
    EXPECT_FALSE(ds.nodeTypes[t].hasFeatures);
    offset += counts[t];
  }

  // Relations in triplet-type-list order; `name` exists for four types.
  const RelationType &first = ds.relations[0];
  EXPECT_EQ(first.name, "dealtWithIn");
  EXPECT_EQ(first.srcType, 0); // Forschungsgebiete
  EXPECT_EQ(first.dstType, 4); // Projekte
  EXPECT_EQ(first.inverseOf, -1);
  EXPECT_EQ(ds.relations[2].name, "name");
  EXPECT_EQ(ds.relations[8].name, "name");
  EXPECT_EQ(ds.relations[8].srcType, 1);
  EXPECT_EQ(ds.relations[51].name, "year");
  // The relation's first rows, "0,0" and "0,1", in global ids.
  EXPECT_EQ(ds.edgeType[0], 0);
  EXPECT_EQ(ds.src[0], 0);
  EXPECT_EQ(ds.dst[0], 416);
  EXPECT_EQ(ds.dst[1], 417);
  EXPECT_EQ(std::count(ds.edgeType.begin(), ds.edgeType.end(), 0), 357);
  expectEdgesMatchTypes(ds);

  // The target type, its labels and the `rdf` split: train and test only.
  ASSERT_EQ(ds.targetType, 3);
  EXPECT_EQ(ds.trainIdx.size(), 140u);
  EXPECT_EQ(ds.testIdx.size(), 36u);
  EXPECT_TRUE(ds.validIdx.empty());
  EXPECT_TRUE(ds.hasSplit("train"));
  EXPECT_FALSE(ds.hasSplit("valid"));
  EXPECT_TRUE(ds.hasSplit("test"));
  EXPECT_EQ(ds.splitSource, aifbDir() + "/split/rdf/Personen");
  EXPECT_EQ(ds.labels[179], 1); // Personen's first label row
  for (int64_t v : ds.trainIdx) {
    EXPECT_EQ(ds.nodeTypeOf(v), 3);
    EXPECT_GE(ds.labels[size_t(v)], 0);
  }
  int64_t labeledOutside = 0;
  for (int64_t v = 0; v < ds.numNodes; ++v)
    labeledOutside += ds.nodeTypeOf(v) != 3 && ds.labels[size_t(v)] >= 0;
  EXPECT_EQ(labeledOutside, 0);
}

TEST(HeteroDataset, SplitPresence) {
  LoadOptions options = noCache();
  options.splitName = "rdf-tuning";
  Dataset tuning = loadDataset(aifbDir(), options);
  EXPECT_EQ(tuning.trainIdx.size(), 112u);
  EXPECT_EQ(tuning.validIdx.size(), 28u);
  EXPECT_EQ(tuning.testIdx.size(), 36u);
  EXPECT_EQ(dataErrorOf([&] {
              requireSplits(tuning, {"valid", "test"});
            }),
            "<no error>");

  Dataset rdf = loadDataset(aifbDir(), noCache());
  EXPECT_EQ(dataErrorOf([&] { requireSplits(rdf, {"test"}); }), "<no error>");
  EXPECT_EQ(dataErrorOf([&] {
              requireSplits(rdf, {"valid", "test"});
            }),
            "split 'valid' is not in " + aifbDir() +
                "/split/rdf/Personen: the dataset has train, test");
}

TEST(HeteroDataset, InverseRelations) {
  LoadOptions options = noCache();
  options.addReverseEdges = true;
  Dataset ds = loadDataset(aifbDir(), options);
  const int64_t e = 24405;
  ASSERT_EQ(ds.numEdges(), 2 * e);
  ASSERT_EQ(ds.relations.size(), 104u);
  // R_inv has id R + 52, swapped endpoints, and remembers R.
  const RelationType &inv = ds.relations[52];
  EXPECT_EQ(inv.name, "dealtWithIn_inv");
  EXPECT_EQ(inv.srcType, 4);
  EXPECT_EQ(inv.dstType, 0);
  EXPECT_EQ(inv.inverseOf, 0);
  EXPECT_EQ(ds.relations[103].name, "year_inv");
  EXPECT_EQ(ds.relations[103].inverseOf, 51);
  // The reversed edges follow all originals, in the same order.
  for (int64_t k = 0; k < e; ++k) {
    ASSERT_EQ(ds.src[size_t(e + k)], ds.dst[size_t(k)]);
    ASSERT_EQ(ds.dst[size_t(e + k)], ds.src[size_t(k)]);
    ASSERT_EQ(ds.edgeType[size_t(e + k)], ds.edgeType[size_t(k)] + 52);
  }
  expectEdgesMatchTypes(ds);
}

TEST(HeteroDataset, SelfRelation) {
  LoadOptions options = noCache();
  options.addReverseEdges = true;
  options.addSelfLoops = true;
  Dataset ds = loadDataset(aifbDir(), options);
  ASSERT_EQ(ds.numEdges(), 2 * 24405 + 7262);
  ASSERT_EQ(ds.relations.size(), 105u);
  const RelationType &self = ds.relations[104];
  EXPECT_EQ(self.name, "self");
  EXPECT_EQ(self.srcType, -1);
  EXPECT_EQ(self.dstType, -1);
  EXPECT_EQ(self.inverseOf, -1);
  // One loop per node, after everything else.
  for (int64_t v = 0; v < 7262; ++v) {
    size_t k = size_t(2 * 24405 + v);
    ASSERT_EQ(ds.src[k], v);
    ASSERT_EQ(ds.dst[k], v);
    ASSERT_EQ(ds.edgeType[k], 104);
  }
  expectEdgesMatchTypes(ds);
}

/// Dedupe drops a repeated (src, dst, relation) but keeps the same pair
/// under another relation, and sorts by (relation, src, dst).
TEST(HeteroDataset, DedupeKeepsPairsOfDifferentRelations) {
  TempDir tmp;
  writeFile(tmp / "raw/num-node-dict.csv", "a,b\n2,2\n");
  writeFile(tmp / "raw/triplet-type-list.csv", "a,r,b\na,s,b\n");
  writeFile(tmp / "raw/relations/a___r___b/edge.csv", "1,0\n0,1\n1,0\n");
  writeFile(tmp / "raw/relations/a___s___b/edge.csv", "1,0\n");
  LoadOptions options = noCache();
  options.dedupe = true;
  Dataset ds = loadDataset(tmp.path(), options);
  // Global ids: a = {0, 1}, b = {2, 3}.
  EXPECT_EQ(ds.src, (std::vector<int64_t>{0, 1, 1}));
  EXPECT_EQ(ds.dst, (std::vector<int64_t>{3, 2, 2}));
  EXPECT_EQ(ds.edgeType, (std::vector<int32_t>{0, 0, 1}));
  // Without a split, the target is the one type with labels: none here.
  EXPECT_EQ(ds.targetType, -1);
  EXPECT_EQ(ds.hasSplits, (std::array<bool, 3>{false, false, false}));
}

TEST(HeteroDataset, CacheRoundTrip) {
  TempDir tmp;
  copyAifb(tmp / "aifb");
  LoadOptions options;
  options.addReverseEdges = true;
  options.addSelfLoops = true;
  options.dedupe = true;
  bool fromCache = true;
  Dataset parsed = loadDataset(tmp / "aifb", options, &fromCache);
  EXPECT_FALSE(fromCache);
  Dataset cached = loadDataset(tmp / "aifb", options, &fromCache);
  EXPECT_TRUE(fromCache);
  expectSameDataset(parsed, cached);
  EXPECT_EQ(parsed.splitSource, cached.splitSource);
  // The same load without the cache: the cache holds what a parse gives.
  options.useCache = false;
  expectSameDataset(loadDataset(tmp / "aifb", options), cached);
}

/// Written in the heterogeneous layout, aifb reads back the same, without
/// the valid split it does not have.
TEST(HeteroDataset, WriterRoundTrip) {
  TempDir tmp;
  Dataset ds = loadDataset(aifbDir(), noCache());
  writeOgbDataset(tmp / "out", ds, "rdf", /*gzip=*/false);
  EXPECT_TRUE(fs::exists(tmp / "out/split/rdf/Personen/train.csv"));
  EXPECT_FALSE(fs::exists(tmp / "out/split/rdf/Personen/valid.csv"));
  EXPECT_TRUE(fs::exists(
      tmp / "out/raw/relations/Publikationen___year___literal/edge.csv"));
  Dataset back = loadDataset(tmp / "out", noCache());
  expectSameDataset(ds, back);

  // Inverses and self loops are load options: the writer leaves them out.
  LoadOptions options = noCache();
  options.addReverseEdges = true;
  options.addSelfLoops = true;
  writeOgbDataset(tmp / "loaded", loadDataset(aifbDir(), options), "rdf");
  expectSameDataset(ds, loadDataset(tmp / "loaded", noCache()));

  // The typed NumPy layout reads back the same too; a dataset with the
  // relations a load added is refused (they are load options).
  writeNpyDataset(tmp / "npy", ds);
  EXPECT_TRUE(fs::exists(tmp / "npy/types.json"));
  expectSameDataset(ds, loadDataset(tmp / "npy", noCache()));
  EXPECT_EQ(dataErrorOf([&] {
              writeNpyDataset(tmp / "npy-loaded",
                              loadDataset(aifbDir(), options));
            }),
            tmp / "npy-loaded" +
                ": the dataset has edges of relations a load added "
                "(inverses, self loops): write it as read, before load "
                "options");
}

/// Featured types share one width; featureless types' rows are zero.
TEST(HeteroDataset, FeaturesOfSomeTypes) {
  TempDir tmp;
  writeFile(tmp / "raw/num-node-dict.csv", "a,b,c\n1,2,1\n");
  writeFile(tmp / "raw/triplet-type-list.csv", "a,r,b\n");
  writeFile(tmp / "raw/relations/a___r___b/edge.csv", "0,1\n");
  writeFile(tmp / "raw/node-feat/b/node-feat.csv", "1,2\n3,4\n");
  writeFile(tmp / "raw/node-feat/c/node-feat.csv.gz", "5,6\n");
  Dataset ds = loadDataset(tmp.path(), noCache());
  EXPECT_EQ(ds.numFeatures, 2);
  EXPECT_EQ(ds.features, (std::vector<float>{0, 0, 1, 2, 3, 4, 5, 6}));
  EXPECT_FALSE(ds.nodeTypes[0].hasFeatures);
  EXPECT_TRUE(ds.nodeTypes[1].hasFeatures);
  EXPECT_TRUE(ds.nodeTypes[2].hasFeatures);
}

// relation(g, "name")'s lookup: a name used once, OGB's SRC___REL___DST
// spelling for a shared one, and messages that list what exists.
TEST(HeteroDataset, FindRelationByNameOrTriple) {
  const std::vector<NodeType> types = {{"paper", 0, 2, true},
                                       {"author", 2, 2, false},
                                       {"venue", 4, 1, false}};
  const std::vector<RelationType> relations = {
      {"cites", 0, 0, -1}, {"in", 0, 2, -1}, {"in", 1, 2, -1},
      {"writes", 1, 0, -1}};
  EXPECT_EQ(findRelation(relations, types, "cites"), 0);
  EXPECT_EQ(findRelation(relations, types, "author___in___venue"), 2);
  EXPECT_EQ(findRelation(relations, types, "paper___cites___paper"), 0);
  auto message = [&](const std::string &name) {
    try {
      findRelation(relations, types, name);
    } catch (const DataError &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("in"), "relation 'in' is 2 relations of the data; name "
                           "one as SRC___in___DST: paper___in___venue, "
                           "author___in___venue");
  EXPECT_EQ(message("cite"),
            "relation 'cite' is not in the data: it has cites, in, writes");
  EXPECT_THROW(findRelation({}, {}, "cites"), DataError);
}
