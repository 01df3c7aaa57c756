//===- HeteroPartitionTest.cpp - Partitioning a heterogeneous dataset -----===//
//
// METIS on a typed graph's homogeneous view balances every node type (one
// constraint column per type, as DistDGL) and the training nodes; the parts
// carry each local edge's relation and the dataset's types, and the files
// give them back: on the bundled aifb, loaded as the trainer loads it.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/Partition.h"
#include "gnnrt/partition/PartitionDirectory.h"
#include "gnnrt/partition/PartitionManifest.h"
#include "gnnrt/partition/PartitionPlan.h"
#include "gnnrt/partition/Partitioner.h"

#include "TestUtil.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {
/// aifb as the trainer loads it: inverse relations, no repeats.
Dataset loadedAifb() {
  LoadOptions options;
  options.useCache = false;
  options.addReverseEdges = true;
  options.dedupe = true;
  return loadDataset(aifbDir(), options);
}

/// The largest part's share of node type `t` over the mean part's.
double typeImbalance(const Dataset &ds, const std::vector<int32_t> &owner,
                     int parts, size_t t) {
  std::vector<int64_t> count(size_t(parts), 0);
  const NodeType &type = ds.nodeTypes[t];
  for (int64_t v = type.offset; v < type.offset + type.count; ++v)
    ++count[size_t(owner[size_t(v)])];
  return double(*std::max_element(count.begin(), count.end())) /
         (double(type.count) / parts);
}

PartitionOptions metisOptions(int parts) {
  PartitionOptions o;
  o.numParts = parts;
  o.balance = {BalanceConstraint::Nodes, BalanceConstraint::Train};
  return o;
}
} // namespace

TEST(HeteroPartition, ConstraintColumnsPerNodeType) {
  Dataset ds = loadedAifb();
  std::vector<BalanceConstraint> balance = {BalanceConstraint::Nodes,
                                            BalanceConstraint::Train};
  EXPECT_EQ(constraintColumns(ds, balance),
            (std::vector<std::string>{
                "nodes:Forschungsgebiete", "nodes:Forschungsgruppen",
                "nodes:Kooperationen", "nodes:Personen", "nodes:Projekte",
                "nodes:Publikationen", "nodes:literal", "train"}));
  std::vector<int64_t> w = constraintWeights(ds, balance, EdgeAssign::Dst);
  ASSERT_EQ(w.size(), size_t(ds.numNodes) * 8);
  // Node 179 is the first Personen node, and in the train split.
  const size_t personen = 179;
  EXPECT_EQ(std::vector<int64_t>(w.begin() + personen * 8,
                                 w.begin() + personen * 8 + 8),
            (std::vector<int64_t>{
                0, 0, 0, 1, 0, 0, 0,
                std::count(ds.trainIdx.begin(), ds.trainIdx.end(), 179)}));
  // A homogeneous dataset keeps one column per constraint.
  Dataset plain = loadedGraph(100, 400, 1, 0.5, 0.2, 0.2);
  EXPECT_EQ(constraintColumns(plain, balance),
            (std::vector<std::string>{"nodes", "train"}));
  // Unless told otherwise, METIS balances a typed graph's node types and
  // training nodes (DistDGL), an untyped one's nodes.
  EXPECT_EQ(defaultBalance(ds), balance);
  EXPECT_EQ(defaultBalance(plain),
            std::vector<BalanceConstraint>{BalanceConstraint::Nodes});
}

/// Balancing each type: the large types end up within METIS's tolerance in
/// every part, and the training nodes too.
TEST(HeteroPartition, MetisBalancesEveryNodeType) {
  Dataset ds = loadedAifb();
  const int parts = 2;
  std::vector<int32_t> owner = partitionNodes(ds, metisOptions(parts));
  for (size_t t = 0; t < ds.nodeTypes.size(); ++t) {
    if (ds.nodeTypes[t].count < 100)
      continue; // a handful of nodes cannot split within 3%
    EXPECT_LE(typeImbalance(ds, owner, parts, t), 1.05) << ds.nodeTypes[t].name;
  }
  std::vector<int64_t> train(parts, 0);
  for (int64_t v : ds.trainIdx)
    ++train[size_t(owner[size_t(v)])];
  EXPECT_LE(double(std::max(train[0], train[1])) / (140.0 / parts), 1.05);
}

TEST(HeteroPartition, PartsCarryEdgeTypesThroughTheFiles) {
  Dataset ds = loadedAifb();
  PartitionOptions o = metisOptions(3);
  PartitionManifest written;
  written.method = o.method;
  written.balance = o.balance;
  written.dataset = "aifb";
  PartitionPlan plan =
      buildPartitionPlan(ds, partitionNodes(ds, o, &written.metisObjective),
                         o.numParts, o.edgeAssign);
  fillManifestCounts(written, ds, plan);
  TempDir tmp;
  writePartitions(tmp / "out", ds, plan, written);
  int64_t edges = 0;
  for (int k = 0; k < 3; ++k) {
    Partition made = extractPartition(ds, plan, k);
    ASSERT_EQ(made.edgeTypes.size(), made.indices.size());
    for (size_t i = 0; i < made.edgeTypes.size(); ++i)
      ASSERT_EQ(made.edgeTypes[i], ds.edgeType[size_t(made.edgeIds[i])]);
    edges += made.numEdges();

    PartitionManifest m;
    Partition read = readPartition(tmp / "out", k, 3, &m);
    EXPECT_EQ(read.edgeTypes, made.edgeTypes);
    EXPECT_EQ(read.targetType, 3);
    ASSERT_EQ(read.nodeTypes.size(), 7u);
    EXPECT_EQ(read.nodeTypes[6].name, "literal");
    EXPECT_EQ(read.nodeTypes[6].offset, 1812);
    EXPECT_EQ(read.nodeTypes[6].count, 5450);
    ASSERT_EQ(read.relations.size(), 104u);
    EXPECT_EQ(read.relations[52].name, "dealtWithIn_inv");
    EXPECT_EQ(read.relations[52].srcType, 4);
    EXPECT_EQ(read.relations[52].dstType, 0);
    EXPECT_EQ(read.relations[52].inverseOf, 0);
    EXPECT_EQ(m.version, 2);
    EXPECT_EQ(manifestToJson(m), manifestToJson(written));
  }
  EXPECT_EQ(edges, ds.numEdges());
}

/// A version 1 manifest (before types) still reads, as homogeneous; a
/// corrupt relation is named.
TEST(HeteroPartition, ManifestVersions) {
  Dataset ds = loadedGraph(200, 800, 3, 0.5, 0.2, 0.2);
  PartitionManifest m;
  m.dataset = "synthetic";
  PartitionOptions o;
  o.numParts = 2;
  fillManifestCounts(
      m, ds, buildPartitionPlan(ds, partitionNodes(ds, o), 2, EdgeAssign::Dst));
  std::string json = manifestToJson(m);
  std::string v1 = json;
  v1.replace(v1.find("\"version\": 2"), 12, "\"version\": 1");
  for (const char *line : {"  \"target_type\": -1,\n",
                           "  \"node_types\": [],\n", "  \"relations\": [],\n"})
    v1.erase(v1.find(line), std::string(line).size());
  PartitionManifest old = manifestFromJson("m.json", v1);
  EXPECT_EQ(old.version, 1);
  EXPECT_TRUE(old.relations.empty());
  EXPECT_EQ(old.numNodes, 200);

  Dataset aifb = loadedAifb();
  PartitionManifest typed;
  typed.dataset = "aifb";
  fillManifestCounts(
      typed, aifb,
      buildPartitionPlan(aifb, partitionNodes(aifb, o), 2, EdgeAssign::Dst));
  std::string bad = manifestToJson(typed);
  bad.replace(bad.find("\"src\": 4, \"dst\": 0"), 18, "\"src\": 9, \"dst\": 0");
  EXPECT_EQ(dataErrorOf([&] { manifestFromJson("m.json", bad); }),
            "m.json: corrupt manifest: field 'relations[22].src' must be "
            "below 7");
}
