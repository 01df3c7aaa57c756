//===- TypedSamplingTest.cpp - typed blocks sampled by two ranks ----------===//
//
// Two ranks (threads taking turns, TurnCommunicator) each own half of a
// typed graph and sample a batch together: frontier nodes owned by the
// other rank are sampled there and come back with their edges' relations.
// Every edge of every block must be an edge of the whole graph with that
// relation, both ranks' batches included.
//
//===----------------------------------------------------------------------===//

#include "train/MiniBatch.h"

#include "TestUtil.h"
#include "gnnrt/comm/TurnCommunicator.h"
#include "gnnrt/partition/Partition.h"
#include "gnnrt/partition/PartitionPlan.h"
#include "gnnrt/partition/Partitioner.h"
#include "gnnrt/support/Random.h"

#include <set>
#include <tuple>

using namespace gnnrt;

TEST(TypedSampling, RanksSendEachNeighbourWithItsRelation) {
  constexpr int kRanks = 2;
  constexpr int32_t kRelations = 3;
  const int64_t n = 60;
  Dataset ds;
  ds.numNodes = n;
  ds.numFeatures = 2;
  ds.numClasses = 2;
  ds.nodeTypes = {{"a", 0, 30, true}, {"b", 30, 30, true}};
  for (int32_t r = 0; r < kRelations; ++r)
    ds.relations.push_back({"r" + std::to_string(r), -1, -1, -1});
  CounterRng rng(4, 9);
  std::set<std::tuple<int64_t, int64_t, int32_t>> typedEdges;
  for (int64_t e = 0; e < 400; ++e) {
    const int64_t u = rng.nextBelow(uint32_t(n)), v = rng.nextBelow(uint32_t(n));
    const int32_t r = int32_t(rng.nextBelow(uint32_t(kRelations)));
    if (!typedEdges.insert({u, v, r}).second)
      continue;
    ds.src.push_back(u);
    ds.dst.push_back(v);
    ds.edgeType.push_back(r);
  }
  ds.features.assign(size_t(n * 2), 1.0f);
  ds.labels.assign(size_t(n), 0);
  for (int64_t v = 0; v < n; ++v)
    ds.trainIdx.push_back(v);
  const PartitionPlan plan = buildPartitionPlan(
      ds, randomPartition(n, kRanks, 1), kRanks, EdgeAssign::Dst);

  TurnTaking turns(kRanks, [](int, int) {});
  std::vector<SampledBatch> batches(kRanks);
  turns.run([&](int rank) {
    Communicator &comm = turns.communicator(rank);
    TrainingData data = preparePartition(extractPartition(ds, plan, rank),
                                         comm, false, false);
    MiniBatchAssembler assembler(data, n, /*replace=*/false, /*seed=*/7, comm);
    // Each rank's seeds: its first 5 nodes.
    const std::vector<int64_t> owned = assembler.globalIds({0, 1, 2, 3, 4});
    BlockBuilder builder(n);
    SamplingTraffic traffic;
    assembler.assemble(owned, {2, 3}, {7, 1, 0}, builder, batches[rank],
                       traffic);
  });
  for (int rank = 0; rank < kRanks; ++rank) {
    const SampledBatch &batch = batches[rank];
    ASSERT_EQ(batch.numLayers(), 2);
    int64_t remote = 0;
    for (const GraphView &block : batch.views) {
      ASSERT_NE(block.edgeType, nullptr);
      EXPECT_EQ(block.numRelations, kRelations);
      for (int64_t v = 0; v < block.numDst; ++v)
        for (int64_t k = block.inOffsets[v]; k < block.inOffsets[v + 1]; ++k) {
          const int64_t src = batch.nodes[size_t(block.edgeSrc[k])];
          const int64_t dst = batch.nodes[size_t(v)];
          EXPECT_TRUE(typedEdges.count({src, dst, block.edgeType[k]}))
              << "rank " << rank << ": edge " << src << " -> " << dst
              << " of relation " << block.edgeType[k];
          remote += plan.owner[size_t(dst)] != rank;
        }
    }
    // The other rank sampled some of these blocks' edges.
    EXPECT_GT(remote, 0) << "rank " << rank;
  }
}
