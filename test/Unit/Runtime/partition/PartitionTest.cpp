//===- PartitionTest.cpp - Partitioners, plans, parts and their files -----===//
//
// The invariants distributed training relies on, checked on every part of
// real partitionings (METIS, random; edges by destination and by source):
// every edge is stored exactly once and in the right part, the owned sets
// partition the nodes, and the send list of a to b is b's receive list from
// a in the same order. Then the quality claims (METIS cuts fewer edges than
// random on a homophilous graph and honours every balance constraint), the
// METIS file formats, and the on-disk round trip and its determinism.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/Partition.h"
#include "gnnrt/partition/PartitionDirectory.h"
#include "gnnrt/partition/PartitionManifest.h"
#include "gnnrt/partition/PartitionPlan.h"
#include "gnnrt/partition/Partitioner.h"

#include "TestUtil.h"
#include "gnnrt/data/Generator.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

/// A homophilous SBM graph loaded as the trainer (and gnn-partition) load
/// one: reverse edges added, repeats removed.
Dataset sbmDataset(int64_t nodes, int64_t edges, uint64_t seed,
                   GraphKind kind = GraphKind::Sbm) {
  return loadedGraph(nodes, edges, seed, 0.1, 0.2, 0.3, kind);
}

PartitionPlan plan(const Dataset &ds, const PartitionOptions &o) {
  return buildPartitionPlan(ds, partitionNodes(ds, o), o.numParts,
                            o.edgeAssign);
}

std::vector<Partition> allParts(const Dataset &ds, const PartitionPlan &p) {
  std::vector<Partition> parts;
  for (int k = 0; k < p.numParts; ++k)
    parts.push_back(extractPartition(ds, p, k));
  return parts;
}

/// The global id of a local node of `part`.
int64_t globalId(const Partition &part, int64_t local) {
  return local < part.numOwned()
             ? part.ownedNodes[size_t(local)]
             : part.haloNodes[size_t(local - part.numOwned())];
}

/// Every file under `dir`, relative path -> bytes.
std::map<std::string, std::string> treeBytes(const std::string &dir) {
  std::map<std::string, std::string> files;
  for (const auto &entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file())
      files[std::filesystem::relative(entry.path(), dir).string()] =
          readBytes(entry.path().string());
  return files;
}

struct Case {
  PartitionMethod method;
  EdgeAssign assign;
  int parts;
};

class PartitionInvariants : public ::testing::TestWithParam<Case> {
protected:
  void SetUp() override {
    ds = sbmDataset(600, 4000, 3);
    PartitionOptions o;
    o.method = GetParam().method;
    o.edgeAssign = GetParam().assign;
    o.numParts = GetParam().parts;
    o.balance = {BalanceConstraint::Nodes, BalanceConstraint::Edges};
    o.seed = 5;
    p = plan(ds, o);
    parts = allParts(ds, p);
  }
  Dataset ds;
  PartitionPlan p;
  std::vector<Partition> parts;
};

} // namespace

TEST_P(PartitionInvariants, EveryEdgeInExactlyOnePart) {
  std::vector<int> seen(size_t(ds.numEdges()), 0);
  for (const Partition &part : parts) {
    ASSERT_EQ(int64_t(part.indptr.size()), part.numLocal() + 1);
    ASSERT_EQ(part.indptr.back(), part.numEdges());
    for (int64_t v = 0; v < part.numLocal(); ++v)
      for (int64_t k = part.indptr[size_t(v)]; k < part.indptr[size_t(v) + 1];
           ++k) {
        int64_t e = part.edgeIds[size_t(k)];
        ++seen[size_t(e)];
        // The local edge is the dataset edge it claims to be...
        EXPECT_EQ(globalId(part, v), ds.dst[size_t(e)]);
        EXPECT_EQ(globalId(part, part.indices[size_t(k)]), ds.src[size_t(e)]);
        // ...and lives with the owner of the endpoint that places it.
        int64_t placer = GetParam().assign == EdgeAssign::Dst
                             ? v
                             : int64_t(part.indices[size_t(k)]);
        EXPECT_LT(placer, part.numOwned());
        // Sources ascend within a row.
        if (k > part.indptr[size_t(v)]) {
          EXPECT_LE(part.indices[size_t(k) - 1], part.indices[size_t(k)]);
        }
      }
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), ds.numEdges());
}

TEST_P(PartitionInvariants, OwnedNodesPartitionTheNodeSet) {
  std::vector<int> owners(size_t(ds.numNodes), 0);
  for (const Partition &part : parts) {
    EXPECT_TRUE(std::is_sorted(part.ownedNodes.begin(), part.ownedNodes.end()));
    for (int64_t v : part.ownedNodes) {
      ++owners[size_t(v)];
      EXPECT_EQ(p.owner[size_t(v)], part.part);
    }
  }
  EXPECT_EQ(std::count(owners.begin(), owners.end(), 1), ds.numNodes);
}

TEST_P(PartitionInvariants, HaloIsExactlyTheRemoteEndpoints) {
  for (const Partition &part : parts) {
    std::set<int64_t> remote;
    for (int64_t k = 0; k < part.numEdges(); ++k) {
      int64_t e = part.edgeIds[size_t(k)];
      for (int64_t v : {ds.src[size_t(e)], ds.dst[size_t(e)]})
        if (p.owner[size_t(v)] != part.part)
          remote.insert(v);
    }
    EXPECT_EQ(std::set<int64_t>(part.haloNodes.begin(), part.haloNodes.end()),
              remote);
    EXPECT_EQ(int64_t(remote.size()), part.numHalo());
    for (size_t h = 0; h < part.haloNodes.size(); ++h)
      EXPECT_EQ(part.haloOwners[h], p.owner[size_t(part.haloNodes[h])]);
  }
}

TEST_P(PartitionInvariants, SendListsMatchReceiveListsInOrder) {
  int64_t exchanged = 0;
  for (const Partition &a : parts)
    for (const Partition &b : parts) {
      std::vector<int64_t> sent, received;
      for (int64_t k = a.sendOffsets[size_t(b.part)];
           k < a.sendOffsets[size_t(b.part) + 1]; ++k)
        sent.push_back(a.ownedNodes[size_t(a.sendNodes[size_t(k)])]);
      for (int64_t h = b.recvOffsets[size_t(a.part)];
           h < b.recvOffsets[size_t(a.part) + 1]; ++h) {
        EXPECT_EQ(b.haloOwners[size_t(h)], a.part);
        received.push_back(b.haloNodes[size_t(h)]);
      }
      EXPECT_EQ(sent, received) << "part " << a.part << " -> " << b.part;
      if (a.part == b.part) {
        EXPECT_TRUE(sent.empty());
      }
      exchanged += int64_t(sent.size());
    }
  // One part exchanges nothing; several parts of a connected graph must.
  EXPECT_EQ(exchanged > 0, parts.size() > 1);
}

TEST_P(PartitionInvariants, CountsAndOwnedRows) {
  int64_t cut = 0;
  for (int64_t e = 0; e < ds.numEdges(); ++e)
    cut += p.owner[size_t(ds.src[size_t(e)])] !=
           p.owner[size_t(ds.dst[size_t(e)])];
  EXPECT_EQ(p.edgeCut, cut);
  std::set<int64_t> train(ds.trainIdx.begin(), ds.trainIdx.end());
  for (const Partition &part : parts) {
    const PartCounts &c = p.counts[size_t(part.part)];
    EXPECT_EQ(c.ownedNodes, part.numOwned());
    EXPECT_EQ(c.edges, part.numEdges());
    EXPECT_EQ(c.haloNodes, part.numHalo());
    EXPECT_EQ(c.sendNodes, int64_t(part.sendNodes.size()));
    EXPECT_EQ(c.train, int64_t(part.trainIdx.size()));
    for (int64_t i = 0; i < part.numOwned(); ++i) {
      int64_t v = part.ownedNodes[size_t(i)];
      EXPECT_EQ(part.labels[size_t(i)], ds.labels[size_t(v)]);
      for (int64_t f = 0; f < ds.numFeatures; ++f)
        EXPECT_EQ(part.features[size_t(i * ds.numFeatures + f)],
                  ds.features[size_t(v * ds.numFeatures + f)]);
    }
    for (int64_t i : part.trainIdx)
      EXPECT_TRUE(train.count(part.ownedNodes[size_t(i)]));
  }
}

INSTANTIATE_TEST_SUITE_P(
    MethodsAndAssignments, PartitionInvariants,
    ::testing::Values(Case{PartitionMethod::Metis, EdgeAssign::Dst, 4},
                      Case{PartitionMethod::Metis, EdgeAssign::Src, 3},
                      Case{PartitionMethod::Random, EdgeAssign::Dst, 4},
                      Case{PartitionMethod::Random, EdgeAssign::Src, 2},
                      Case{PartitionMethod::Metis, EdgeAssign::Dst, 1}),
    [](const ::testing::TestParamInfo<Case> &info) {
      return std::string(partitionMethodName(info.param.method)) + "_" +
             edgeAssignName(info.param.assign) + "_" +
             std::to_string(info.param.parts);
    });

TEST(RandomPartition, BalancedAndDeterministic) {
  std::vector<int32_t> a = randomPartition(1003, 4, 7);
  std::vector<int64_t> sizes(4, 0);
  for (int32_t p : a)
    ++sizes[size_t(p)];
  std::sort(sizes.begin(), sizes.end());
  EXPECT_EQ(sizes, (std::vector<int64_t>{250, 251, 251, 251}));
  EXPECT_EQ(randomPartition(1003, 4, 7), a);
  EXPECT_NE(randomPartition(1003, 4, 8), a);
}

TEST(MetisPartition, CutsFewerEdgesThanRandomOnHomophilousGraph) {
  Dataset ds = sbmDataset(4000, 40000, 11);
  PartitionOptions o;
  o.numParts = 4;
  o.method = PartitionMethod::Metis;
  int64_t objective = 0;
  PartitionPlan metis = buildPartitionPlan(
      ds, partitionNodes(ds, o, &objective), 4, EdgeAssign::Dst);
  o.method = PartitionMethod::Random;
  PartitionPlan random = plan(ds, o);
  // Random placement cuts ~3/4 of the edges with 4 parts; the SBM's 8 dense
  // classes let METIS cut far fewer.
  EXPECT_GT(random.edgeCut, ds.numEdges() * 7 / 10);
  EXPECT_LT(metis.edgeCut, random.edgeCut / 2);
  // METIS's objective is the cut of the undirected graph: every cut pair is
  // two directed edges here.
  EXPECT_EQ(objective * 2, metis.edgeCut);
}

TEST(MetisPartition, BalancesEveryConstraint) {
  // R-MAT degrees are skewed, so balancing nodes alone leaves edges
  // unbalanced; adding the constraint must fix that.
  Dataset ds = sbmDataset(8000, 60000, 2, GraphKind::Rmat);
  PartitionOptions o;
  o.numParts = 4;
  o.balance = {BalanceConstraint::Nodes};
  PartitionManifest nodesOnly, all;
  fillManifestCounts(nodesOnly, ds, plan(ds, o));
  o.balance = {BalanceConstraint::Nodes, BalanceConstraint::Edges,
               BalanceConstraint::Train};
  fillManifestCounts(all, ds, plan(ds, o));
  std::vector<BalanceStat> before = partitionBalance(nodesOnly);
  std::vector<BalanceStat> after = partitionBalance(all);
  ASSERT_EQ(after.size(), 4u);
  EXPECT_EQ(after[0].name, "nodes");
  EXPECT_EQ(after[1].name, "edges");
  EXPECT_EQ(after[2].name, "train");
  for (int c = 0; c < 3; ++c)
    EXPECT_LE(after[size_t(c)].ratio(), 1.031) << after[size_t(c)].name;
  EXPECT_GT(before[1].ratio(), 1.05);
}

TEST(MetisPartition, ConstraintErrors) {
  Dataset ds = sbmDataset(100, 400, 1);
  PartitionOptions o;
  o.numParts = 2;
  o.balance = {BalanceConstraint::Train};
  ds.trainIdx.clear();
  EXPECT_EQ(dataErrorOf([&] { partitionNodes(ds, o); }),
            "partition: cannot balance 'train': every node has weight 0 (the "
            "dataset has no training nodes)");
  o.balance = {BalanceConstraint::Edges, BalanceConstraint::Edges};
  EXPECT_EQ(dataErrorOf([&] { partitionNodes(ds, o); }),
            "partition: balance constraint 'edges' is given twice");
  o.balance = {};
  EXPECT_EQ(dataErrorOf([&] { partitionNodes(ds, o); }),
            "partition: METIS needs at least one balance constraint");
  o.balance = {BalanceConstraint::Nodes};
  o.numParts = 101;
  EXPECT_EQ(dataErrorOf([&] { partitionNodes(ds, o); }),
            "partition: cannot split 100 nodes into 101 parts");
  EXPECT_EQ(dataErrorOf([&] {
              buildPartitionPlan(ds, std::vector<int32_t>(100, 2), 2,
                                 EdgeAssign::Dst);
            }),
            "partition: node 0 is assigned to part 2, expected [0, 2)");
}

TEST(MetisFiles, GraphFileHasWeightsWhereTheyDiffer) {
  // 0 <-> 1 in both directions, 1 -> 2 one way, a self loop on 3 (dropped).
  Dataset ds;
  ds.numNodes = 4;
  ds.src = {0, 1, 1, 3};
  ds.dst = {1, 0, 2, 3};
  ds.labels = {0, 0, 1, 1};
  ds.trainIdx = {0, 2};
  TempDir tmp;
  writeMetisGraph(tmp / "g", ds, {BalanceConstraint::Nodes}, EdgeAssign::Dst);
  EXPECT_EQ(readBytes(tmp / "g"), "4 2 001\n"
                                  "2 2\n"
                                  "1 2 3 1\n"
                                  "2 1\n"
                                  "\n");
  writeMetisGraph(tmp / "g", ds,
                  {BalanceConstraint::Edges, BalanceConstraint::Train},
                  EdgeAssign::Dst);
  // Columns: in-degree (the self loop counts: it is stored), is-train.
  EXPECT_EQ(readBytes(tmp / "g"), "4 2 011 2\n"
                                  "1 1 2 2\n"
                                  "1 0 1 2 3 1\n"
                                  "1 1 2 1\n"
                                  "1 0\n");
}

TEST(MetisFiles, ReadsAssignments) {
  TempDir tmp;
  writeFile(tmp / "a", "0\n1\n1\n0\n");
  EXPECT_EQ(readPartitionAssignment(tmp / "a", 4, 2),
            (std::vector<int32_t>{0, 1, 1, 0}));
  EXPECT_EQ(dataErrorOf([&] { readPartitionAssignment(tmp / "a", 4, 1); }),
            tmp / "a:2: part 1 out of range [0, 1)");
  EXPECT_EQ(dataErrorOf([&] { readPartitionAssignment(tmp / "a", 5, 2); }),
            tmp / "a: expected one line per node (5), found 4");
  EXPECT_EQ(dataErrorOf([&] { readPartitionAssignment(tmp / "a", 3, 2); }),
            tmp / "a:4: more lines than the dataset's 3 nodes");
}

namespace {
/// Partitions and writes `ds` the way gnn-partition does.
PartitionManifest writeParts(const std::string &dir, const Dataset &ds,
                             const PartitionOptions &o) {
  PartitionManifest m;
  m.method = o.method;
  m.balance = o.balance;
  m.seed = o.seed;
  m.dataset = "synthetic";
  PartitionPlan p = buildPartitionPlan(
      ds, partitionNodes(ds, o, &m.metisObjective), o.numParts, o.edgeAssign);
  fillManifestCounts(m, ds, p);
  writePartitions(dir, ds, p, m);
  return m;
}
} // namespace

TEST(PartitionFiles, RoundTripReadsOnePartAsExtracted) {
  Dataset ds = sbmDataset(500, 3000, 4);
  PartitionOptions o;
  o.numParts = 3;
  o.balance = {BalanceConstraint::Nodes, BalanceConstraint::Train};
  TempDir tmp;
  PartitionManifest written = writeParts(tmp / "out", ds, o);
  PartitionPlan p =
      buildPartitionPlan(ds, partitionNodes(ds, o), 3, EdgeAssign::Dst);
  for (int k = 0; k < 3; ++k) {
    PartitionManifest m;
    Partition read = readPartition(tmp / "out", k, 3, &m);
    Partition made = extractPartition(ds, p, k);
    EXPECT_EQ(read.ownedNodes, made.ownedNodes);
    EXPECT_EQ(read.haloNodes, made.haloNodes);
    EXPECT_EQ(read.haloOwners, made.haloOwners);
    EXPECT_EQ(read.indptr, made.indptr);
    EXPECT_EQ(read.indices, made.indices);
    EXPECT_EQ(read.edgeIds, made.edgeIds);
    EXPECT_EQ(read.recvOffsets, made.recvOffsets);
    EXPECT_EQ(read.sendOffsets, made.sendOffsets);
    EXPECT_EQ(read.sendNodes, made.sendNodes);
    EXPECT_EQ(read.features, made.features);
    EXPECT_EQ(read.labels, made.labels);
    EXPECT_EQ(read.trainIdx, made.trainIdx);
    EXPECT_EQ(read.validIdx, made.validIdx);
    EXPECT_EQ(read.testIdx, made.testIdx);
    EXPECT_EQ(read.numClasses, ds.numClasses);
    EXPECT_EQ(m.parts, written.parts);
    EXPECT_EQ(m.balance, o.balance);
    EXPECT_EQ(m.metisObjective, written.metisObjective);
    EXPECT_EQ(manifestToJson(m), manifestToJson(written));
  }
  EXPECT_EQ(readPartitionBook(tmp / "out"), p.owner);
  // Nothing but the output directory is left beside it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(tmp.path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(PartitionFiles, SameSeedSameBytes) {
  Dataset ds = sbmDataset(800, 5000, 9);
  TempDir tmp;
  for (PartitionMethod method :
       {PartitionMethod::Metis, PartitionMethod::Random}) {
    PartitionOptions o;
    o.method = method;
    o.numParts = 4;
    o.seed = 42;
    writeParts(tmp / "a", ds, o);
    writeParts(tmp / "b", ds, o);
    std::map<std::string, std::string> a = treeBytes(tmp / "a");
    EXPECT_EQ(a.size(), 2 + 4 * 14u); // manifest, book, 14 files per part
    EXPECT_EQ(a, treeBytes(tmp / "b"));
    o.seed = 43;
    writeParts(tmp / "b", ds, o); // replaces the earlier output
    EXPECT_NE(a, treeBytes(tmp / "b"));
  }
}

TEST(PartitionFiles, RefusesToReplaceOtherDirectories) {
  Dataset ds = sbmDataset(100, 400, 1);
  TempDir tmp;
  writeFile(tmp / "out/notes.txt", "keep me");
  PartitionOptions o;
  o.numParts = 2;
  EXPECT_EQ(dataErrorOf([&] { writeParts(tmp / "out", ds, o); }),
            tmp / "out: refusing to replace a non-empty directory that holds "
                  "no partition manifest");
  EXPECT_EQ(readBytes(tmp / "out/notes.txt"), "keep me");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(tmp.path()),
                          std::filesystem::directory_iterator()),
            1);
}
