//===- TypedSamplingTest.cpp - typed blocks sampled by two ranks ----------===//
//
// Two ranks (threads taking turns, TurnCommunicator) each own half of a
// typed graph and sample a batch together: frontier nodes owned by the
// other rank are sampled there and come back with their edges' relations.
// Every edge of every block must be an edge of the whole graph with that
// relation, both ranks' batches included. Sampled per relation, every
// (destination, relation) gets min(fanout, its edges of that relation).
//
//===----------------------------------------------------------------------===//

#include "train/MiniBatch.h"

#include "TestUtil.h"
#include "gnnrt/comm/TurnCommunicator.h"
#include "gnnrt/partition/Partition.h"
#include "gnnrt/partition/PartitionPlan.h"
#include "gnnrt/partition/Partitioner.h"
#include "gnnrt/support/Random.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

using namespace gnnrt;

namespace {

constexpr int kRanks = 2;
constexpr int32_t kRelations = 3;
constexpr int64_t kNodes = 60;

/// A typed graph of kNodes nodes and kRelations relations, its edges as
/// (source, destination, relation).
Dataset typedGraph(std::set<std::tuple<int64_t, int64_t, int32_t>> &edges) {
  Dataset ds;
  ds.numNodes = kNodes;
  ds.numFeatures = 2;
  ds.numClasses = 2;
  ds.nodeTypes = {{"a", 0, 30, true}, {"b", 30, 30, true}};
  for (int32_t r = 0; r < kRelations; ++r)
    ds.relations.push_back({"r" + std::to_string(r), -1, -1, -1});
  CounterRng rng(4, 9);
  for (int64_t e = 0; e < 400; ++e) {
    const int64_t u = rng.nextBelow(uint32_t(kNodes)),
                  v = rng.nextBelow(uint32_t(kNodes));
    const int32_t r = int32_t(rng.nextBelow(uint32_t(kRelations)));
    if (!edges.insert({u, v, r}).second)
      continue;
    ds.src.push_back(u);
    ds.dst.push_back(v);
    ds.edgeType.push_back(r);
  }
  ds.features.assign(size_t(kNodes * 2), 1.0f);
  ds.labels.assign(size_t(kNodes), 0);
  for (int64_t v = 0; v < kNodes; ++v)
    ds.trainIdx.push_back(v);
  return ds;
}

/// Each rank's batch of its first 5 nodes, fanouts [2, 3], sampled by two
/// ranks together.
std::vector<SampledBatch> sampleOnTwoRanks(const Dataset &ds,
                                           const PartitionPlan &plan,
                                           bool perRelation) {
  TurnTaking turns(kRanks, [](int, int) {});
  std::vector<SampledBatch> batches(kRanks);
  turns.run([&](int rank) {
    Communicator &comm = turns.communicator(rank);
    TrainingData data = preparePartition(extractPartition(ds, plan, rank),
                                         comm, false, false);
    MiniBatchAssembler assembler(data, kNodes, /*replace=*/false, perRelation,
                                 /*seed=*/7, comm);
    const std::vector<int64_t> owned = assembler.globalIds({0, 1, 2, 3, 4});
    BlockBuilder builder(kNodes);
    SamplingTraffic traffic;
    assembler.assemble(owned, {2, 3}, {7, 1, 0}, builder, batches[rank],
                       traffic);
  });
  return batches;
}

} // namespace

class TypedSampling : public ::testing::TestWithParam<bool> {};

TEST_P(TypedSampling, RanksSendEachNeighbourWithItsRelation) {
  const bool perRelation = GetParam();
  std::set<std::tuple<int64_t, int64_t, int32_t>> typedEdges;
  const Dataset ds = typedGraph(typedEdges);
  // In-edges per (destination, relation) of the whole graph.
  std::map<std::pair<int64_t, int32_t>, int64_t> inEdges;
  std::map<int64_t, int64_t> inDegree;
  for (const auto &[u, v, r] : typedEdges) {
    ++inEdges[{v, r}];
    ++inDegree[v];
  }
  const PartitionPlan plan = buildPartitionPlan(
      ds, randomPartition(kNodes, kRanks, 1), kRanks, EdgeAssign::Dst);
  const std::vector<SampledBatch> batches =
      sampleOnTwoRanks(ds, plan, perRelation);
  const int64_t fanouts[] = {2, 3};
  for (int rank = 0; rank < kRanks; ++rank) {
    const SampledBatch &batch = batches[rank];
    ASSERT_EQ(batch.numLayers(), 2);
    int64_t remote = 0;
    for (size_t l = 0; l < batch.views.size(); ++l) {
      const GraphView &block = batch.views[l];
      ASSERT_NE(block.edgeType, nullptr);
      EXPECT_EQ(block.numRelations, kRelations);
      for (int64_t v = 0; v < block.numDst; ++v) {
        const int64_t dst = batch.nodes[size_t(v)];
        std::map<int32_t, int64_t> sampled;
        for (int64_t k = block.inOffsets[v]; k < block.inOffsets[v + 1]; ++k) {
          const int64_t src = batch.nodes[size_t(block.edgeSrc[k])];
          EXPECT_TRUE(typedEdges.count({src, dst, block.edgeType[k]}))
              << "rank " << rank << ": edge " << src << " -> " << dst
              << " of relation " << block.edgeType[k];
          ++sampled[block.edgeType[k]];
          remote += plan.owner[size_t(dst)] != rank;
        }
        // Without replacement: min(fanout, degree) of the node's in-edges,
        // or of each relation's.
        if (perRelation) {
          for (int32_t r = 0; r < kRelations; ++r)
            EXPECT_EQ(sampled[r], std::min(fanouts[l], inEdges[{dst, r}]))
                << "rank " << rank << " block " << l << " node " << dst
                << " relation " << r;
        } else {
          EXPECT_EQ(block.inOffsets[v + 1] - block.inOffsets[v],
                    std::min(fanouts[l], inDegree[dst]))
              << "rank " << rank << " block " << l << " node " << dst;
        }
      }
    }
    // The other rank sampled some of these blocks' edges.
    EXPECT_GT(remote, 0) << "rank " << rank;
  }
}

/// Per (layer, destination) of a batch: its sampled (source, relation)
/// edges by global id, sorted.
using DrawnEdges =
    std::map<std::pair<size_t, int64_t>, std::vector<std::pair<int64_t, int>>>;
DrawnEdges drawnEdges(const SampledBatch &batch) {
  DrawnEdges drawn;
  for (size_t l = 0; l < batch.views.size(); ++l) {
    const GraphView &block = batch.views[l];
    for (int64_t v = 0; v < block.numDst; ++v) {
      auto &edges = drawn[{l, batch.nodes[size_t(v)]}];
      for (int64_t k = block.inOffsets[v]; k < block.inOffsets[v + 1]; ++k)
        edges.push_back({batch.nodes[size_t(block.edgeSrc[k])],
                         block.edgeType ? block.edgeType[k] : -1});
      std::sort(edges.begin(), edges.end());
    }
  }
  return drawn;
}

// A node draws the same neighbours whichever rank samples it and however
// the graph is split: its in-edges are listed by global source id on every
// rank as in one process, and the draws are keyed by node. This is what
// makes sampled training under mpirun equal one process.
TEST_P(TypedSampling, EachNodeDrawsWhatOneProcessDraws) {
  const bool perRelation = GetParam();
  std::set<std::tuple<int64_t, int64_t, int32_t>> typedEdges;
  const Dataset ds = typedGraph(typedEdges);
  const PartitionPlan plan = buildPartitionPlan(
      ds, randomPartition(kNodes, kRanks, 1), kRanks, EdgeAssign::Dst);
  const std::vector<SampledBatch> batches =
      sampleOnTwoRanks(ds, plan, perRelation);
  // One process samples both ranks' seeds in one batch.
  std::vector<int64_t> seeds;
  for (const SampledBatch &batch : batches)
    seeds.insert(seeds.end(), batch.nodes.begin(),
                 batch.nodes.begin() + batch.numSeeds());
  SampledBatch whole;
  TurnTaking one(1, [](int, int) {});
  one.run([&](int) {
    TrainingData data = prepareWholeGraph(ds);
    MiniBatchAssembler assembler(data, kNodes, false, perRelation, 7,
                                 one.communicator(0));
    BlockBuilder builder(kNodes);
    SamplingTraffic traffic;
    assembler.assemble(seeds, {2, 3}, {7, 1, 0}, builder, whole, traffic);
  });
  const DrawnEdges expected = drawnEdges(whole);
  int64_t compared = 0;
  for (int rank = 0; rank < kRanks; ++rank)
    for (const auto &[at, edges] : drawnEdges(batches[size_t(rank)])) {
      const auto it = expected.find(at);
      ASSERT_NE(it, expected.end())
          << "rank " << rank << " block " << at.first << " node " << at.second;
      EXPECT_EQ(edges, it->second)
          << "rank " << rank << " block " << at.first << " node " << at.second;
      ++compared;
    }
  EXPECT_GT(compared, 20);
}

INSTANTIATE_TEST_SUITE_P(AllOrPerRelation, TypedSampling, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "PerRelation" : "AllRelations";
                         });

TEST(TypedSamplingErrors, PerRelationNeedsATypedGraph) {
  GraphStorage g = GraphStorage::build(3, 3, {0, 1}, {1, 2});
  const std::string message =
      test::dataErrorOf([&] { Adjacency::perRelationOf(g.view()); });
  EXPECT_NE(message.find("per_relation = true samples each relation on its "
                         "own, but the graph has no relations"),
            std::string::npos)
      << message;
}

// Learned input rows under mpirun: both ranks' batches read nodes 0-9, and
// each node's owner receives the two gradient rows summed, once per node.
TEST(LearnedRowGradients, ReachTheirOwnersSummedOverRanks) {
  std::set<std::tuple<int64_t, int64_t, int32_t>> typedEdges;
  const Dataset ds = typedGraph(typedEdges);
  const PartitionPlan plan = buildPartitionPlan(
      ds, randomPartition(kNodes, kRanks, 1), kRanks, EdgeAssign::Dst);
  constexpr int64_t kWidth = 2;
  TurnTaking turns(kRanks, [](int, int) {});
  std::vector<std::vector<int64_t>> ownGlobal(kRanks);
  std::vector<std::vector<float>> ownGrad(kRanks);
  turns.run([&](int rank) {
    Communicator &comm = turns.communicator(rank);
    TrainingData data = preparePartition(extractPartition(ds, plan, rank),
                                         comm, false, false);
    MiniBatchAssembler assembler(data, kNodes, false, false, 7, comm);
    std::vector<int64_t> ids;
    std::vector<float> grad;
    for (int64_t v = 9; v >= 0; --v) {
      ids.push_back(v);
      grad.insert(grad.end(), kWidth, float((rank + 1) * (v + 1)));
    }
    std::vector<int64_t> rows;
    SamplingTraffic traffic;
    assembler.sendRowGradients(ids.data(), int64_t(ids.size()), grad.data(),
                               kWidth, rows, ownGrad[rank], traffic);
    for (int64_t row : rows)
      ownGlobal[rank].push_back(data.nodeIds[size_t(row)]);
  });
  std::set<int64_t> seen;
  for (int rank = 0; rank < kRanks; ++rank) {
    ASSERT_EQ(ownGrad[rank].size(), ownGlobal[rank].size() * kWidth);
    for (size_t i = 0; i < ownGlobal[rank].size(); ++i) {
      const int64_t v = ownGlobal[rank][i];
      EXPECT_EQ(plan.owner[size_t(v)], rank) << "node " << v;
      EXPECT_TRUE(seen.insert(v).second) << "node " << v << " twice";
      for (int64_t j = 0; j < kWidth; ++j)
        EXPECT_EQ(ownGrad[rank][i * kWidth + j], float(3 * (v + 1)))
            << "node " << v;
    }
  }
  EXPECT_EQ(seen.size(), 10u);
}
