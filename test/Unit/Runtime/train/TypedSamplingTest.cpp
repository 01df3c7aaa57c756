//===- TypedSamplingTest.cpp - typed blocks sampled by two ranks ----------===//
//
// Two ranks (threads taking turns, TurnCommunicator) each own half of a
// typed graph and sample a batch together: frontier nodes owned by the
// other rank are sampled there and come back with their edges' relations.
// Every edge of every block must be an edge of the whole graph with that
// relation, both ranks' batches included. Sampled per relation, every
// (destination, relation) gets min(fanout, its edges of that relation),
// where the fanout is the relation's own when the program gives it one
// (relation_fanout); one process sampling alone (NeighborSampler's hop
// loop) obeys the same counts.
//
//===----------------------------------------------------------------------===//

#include "train/batch/MiniBatch.h"
#include "train/batch/RelationFanouts.h"

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

/// How a test samples: over all of a node's in-edges, per relation, or per
/// relation with relations r0 and r2 given fanouts of their own.
enum class Mode { AllRelations, PerRelation, OwnFanouts };
const int64_t kFanouts[] = {2, 3};

/// `neighbor(fanout = [2, 3], relation_fanout = [relation("r0", [1, -1]),
/// relation("r2", [4, 1])])`: r0 takes 1 then all, r2 4 then 1, r1 2 then 3.
TrainSettings ownFanoutSettings() {
  TrainSettings s;
  s.fanouts = {kFanouts[0], kFanouts[1]};
  s.perRelation = true;
  s.relationFanouts = {{"r0", {1, -1}, "m.gnn:3:5"},
                       {"r2", {4, 1}, "m.gnn:4:5"}};
  return s;
}

/// The fanout relation r draws in layer l under `mode`.
int64_t fanoutOf(Mode mode, size_t l, int32_t r) {
  if (mode == Mode::OwnFanouts && r == 0)
    return l == 0 ? 1 : -1;
  if (mode == Mode::OwnFanouts && r == 2)
    return l == 0 ? 4 : 1;
  return kFanouts[l];
}

/// Each rank's batch of its first 5 nodes, fanouts [2, 3], sampled by
/// `ranks` ranks together; with `whole`, whole neighbourhoods (fanouts -1
/// with the relations' own fanouts off, as inference samples).
std::vector<SampledBatch> sampleOnRanks(const Dataset &ds,
                                        const PartitionPlan &plan, Mode mode,
                                        int ranks = kRanks,
                                        bool whole = false) {
  TurnTaking turns(ranks, [](int, int) {});
  std::vector<SampledBatch> batches(static_cast<size_t>(ranks));
  turns.run([&](int rank) {
    Communicator &comm = turns.communicator(rank);
    TrainingData data = preparePartition(extractPartition(ds, plan, rank),
                                         comm, false, false);
    MiniBatchAssembler assembler(
        data, kNodes, /*replace=*/false, mode != Mode::AllRelations,
        /*seed=*/7, comm,
        mode == Mode::OwnFanouts
            ? relationFanoutsOf(ownFanoutSettings(), ds.relations,
                                ds.nodeTypes)
            : RelationFanouts{});
    const std::vector<int64_t> owned = assembler.globalIds({0, 1, 2, 3, 4});
    BlockBuilder builder(kNodes);
    SamplingTraffic traffic;
    if (whole)
      assembler.useRelationFanouts(false);
    assembler.assemble(owned,
                       whole ? std::vector<int64_t>{-1, -1}
                             : std::vector<int64_t>{kFanouts[0], kFanouts[1]},
                       {7, 1, 0}, builder, batches[rank], traffic);
  });
  return batches;
}

} // namespace

class TypedSampling
    : public ::testing::TestWithParam<std::tuple<Mode, int>> {};

TEST_P(TypedSampling, RanksSendEachNeighbourWithItsRelation) {
  const auto [mode, ranks] = GetParam();
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
      ds, randomPartition(kNodes, ranks, 1), ranks, EdgeAssign::Dst);
  const std::vector<SampledBatch> batches = sampleOnRanks(ds, plan, mode, ranks);
  for (int rank = 0; rank < ranks; ++rank) {
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
        // or of each relation's (all of them for -1).
        if (mode != Mode::AllRelations) {
          for (int32_t r = 0; r < kRelations; ++r) {
            const int64_t fanout = fanoutOf(mode, l, r);
            const int64_t edges = inEdges[{dst, r}];
            EXPECT_EQ(sampled[r], fanout < 0 ? edges : std::min(fanout, edges))
                << "rank " << rank << " block " << l << " node " << dst
                << " relation " << r;
          }
        } else {
          EXPECT_EQ(block.inOffsets[v + 1] - block.inOffsets[v],
                    std::min(kFanouts[l], inDegree[dst]))
              << "rank " << rank << " block " << l << " node " << dst;
        }
      }
    }
    // The other rank sampled some of these blocks' edges.
    if (ranks > 1)
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
  const auto [mode, ranks] = GetParam();
  if (ranks == 1)
    GTEST_SKIP() << "compares several ranks with one process";
  std::set<std::tuple<int64_t, int64_t, int32_t>> typedEdges;
  const Dataset ds = typedGraph(typedEdges);
  const PartitionPlan plan = buildPartitionPlan(
      ds, randomPartition(kNodes, ranks, 1), ranks, EdgeAssign::Dst);
  const std::vector<SampledBatch> batches = sampleOnRanks(ds, plan, mode, ranks);
  // One process samples every rank's seeds in one batch.
  std::vector<int64_t> seeds;
  for (const SampledBatch &batch : batches)
    seeds.insert(seeds.end(), batch.nodes.begin(),
                 batch.nodes.begin() + batch.numSeeds());
  SampledBatch whole;
  TurnTaking one(1, [](int, int) {});
  one.run([&](int) {
    TrainingData data = prepareWholeGraph(ds);
    MiniBatchAssembler assembler(
        data, kNodes, false, mode != Mode::AllRelations, 7, one.communicator(0),
        mode == Mode::OwnFanouts
            ? relationFanoutsOf(ownFanoutSettings(), ds.relations,
                                ds.nodeTypes)
            : RelationFanouts{});
    BlockBuilder builder(kNodes);
    SamplingTraffic traffic;
    assembler.assemble(seeds, {kFanouts[0], kFanouts[1]}, {7, 1, 0}, builder,
                       whole, traffic);
  });
  const DrawnEdges expected = drawnEdges(whole);
  int64_t compared = 0;
  for (int rank = 0; rank < ranks; ++rank)
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

INSTANTIATE_TEST_SUITE_P(
    Modes, TypedSampling,
    ::testing::Combine(::testing::Values(Mode::AllRelations, Mode::PerRelation,
                                         Mode::OwnFanouts),
                       ::testing::Values(1, kRanks)),
    [](const ::testing::TestParamInfo<std::tuple<Mode, int>> &info) {
      const Mode mode = std::get<0>(info.param);
      return std::string(mode == Mode::AllRelations  ? "AllRelations"
                         : mode == Mode::PerRelation ? "PerRelation"
                                                     : "OwnFanouts") +
             "On" + std::to_string(std::get<1>(info.param)) + "Ranks";
    });

// Relation r draws from its own Philox stream per node: giving another
// relation a fanout of its own leaves r's draws as they were.
TEST(RelationFanoutDraws, LeaveOtherRelationsDrawsAlone) {
  std::set<std::tuple<int64_t, int64_t, int32_t>> typedEdges;
  const Dataset ds = typedGraph(typedEdges);
  const PartitionPlan plan = buildPartitionPlan(
      ds, randomPartition(kNodes, 1, 1), 1, EdgeAssign::Dst);
  // (The batches stay in their vectors: their views point into them.)
  const std::vector<SampledBatch> per =
      sampleOnRanks(ds, plan, Mode::PerRelation, 1);
  const std::vector<SampledBatch> own =
      sampleOnRanks(ds, plan, Mode::OwnFanouts, 1);
  // The seeds' block: the sources relation r1 gave each seed.
  auto relationOne = [](const SampledBatch &b) {
    std::multiset<std::pair<int64_t, int64_t>> edges;
    const GraphView &block = b.views.back();
    for (int64_t v = 0; v < block.numDst; ++v)
      for (int64_t k = block.inOffsets[v]; k < block.inOffsets[v + 1]; ++k)
        if (block.edgeType[k] == 1)
          edges.insert({b.nodes[size_t(block.edgeSrc[k])], b.nodes[size_t(v)]});
    return edges;
  };
  EXPECT_FALSE(relationOne(per[0]).empty());
  EXPECT_EQ(relationOne(per[0]), relationOne(own[0]));
}

// Inference samples whole neighbourhoods: with the relations' own fanouts
// turned off, every (destination, relation) keeps all its in-edges, on one
// rank and on two.
TEST(RelationFanoutDraws, InferenceTakesWholeNeighbourhoods) {
  std::set<std::tuple<int64_t, int64_t, int32_t>> typedEdges;
  const Dataset ds = typedGraph(typedEdges);
  std::map<int64_t, int64_t> inDegree;
  for (const auto &[u, v, r] : typedEdges)
    ++inDegree[v];
  for (int ranks : {1, kRanks}) {
    const PartitionPlan plan = buildPartitionPlan(
        ds, randomPartition(kNodes, ranks, 1), ranks, EdgeAssign::Dst);
    const std::vector<SampledBatch> batches =
        sampleOnRanks(ds, plan, Mode::OwnFanouts, ranks, /*whole=*/true);
    for (int rank = 0; rank < ranks; ++rank)
      for (const GraphView &block : batches[size_t(rank)].views)
        for (int64_t v = 0; v < block.numDst; ++v)
          EXPECT_EQ(block.inOffsets[v + 1] - block.inOffsets[v],
                    inDegree[batches[size_t(rank)].nodes[size_t(v)]])
              << ranks << " ranks, rank " << rank << " node " << v;
  }
}

TEST(RelationFanoutsOf, FillsTheLayersFanoutForRelationsWithoutTheirOwn) {
  std::set<std::tuple<int64_t, int64_t, int32_t>> typedEdges;
  const Dataset ds = typedGraph(typedEdges);
  const RelationFanouts table =
      relationFanoutsOf(ownFanoutSettings(), ds.relations, ds.nodeTypes);
  EXPECT_EQ(table.numRelations, kRelations);
  EXPECT_EQ(table.table, (std::vector<int64_t>{1, 2, 4, -1, 3, 1}));
  TrainSettings none;
  none.fanouts = {5};
  EXPECT_EQ(relationFanoutsOf(none, ds.relations, ds.nodeTypes).numRelations,
            0);
}

TEST(RelationFanoutsOf, NamesTheEntryOfAnUnknownOrRepeatedRelation) {
  std::set<std::tuple<int64_t, int64_t, int32_t>> typedEdges;
  const Dataset ds = typedGraph(typedEdges);
  TrainSettings s = ownFanoutSettings();
  s.relationFanouts.push_back({"r7", {1, 1}, "m.gnn:5:5"});
  std::string message = test::dataErrorOf(
      [&] { relationFanoutsOf(s, ds.relations, ds.nodeTypes); });
  EXPECT_NE(message.find("m.gnn:5:5: relation 'r7' is not in the data: it "
                         "has r0, r1, r2"),
            std::string::npos)
      << message;
  s.relationFanouts.back() = {"r0", {1, 1}, "m.gnn:6:5"};
  message = test::dataErrorOf(
      [&] { relationFanoutsOf(s, ds.relations, ds.nodeTypes); });
  EXPECT_NE(message.find("m.gnn:6:5: relation 'r0' is the relation 'r0' of "
                         "m.gnn:3:5: give its fanouts once"),
            std::string::npos)
      << message;
}

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
