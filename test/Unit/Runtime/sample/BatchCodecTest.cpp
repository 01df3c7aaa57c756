//===- BatchCodecTest.cpp - a sampled batch as one message ----------------===//
//
// What a trainer rank relies on when a sampler rank sends it a batch: the
// decoded batch has the sampled one's nodes, levels, block edges (in both
// directions: the transpose is rebuilt), features and labels; a damaged
// message is an error, not a batch; and the seeds of a batch split into
// slices cover it exactly once.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/sample/BatchCodec.h"

#include "TestUtil.h"
#include "gnnrt/support/Error.h"
#include "train/batch/SamplerRanks.h"

#include <numeric>

using namespace gnnrt;

namespace {

/// A 2-layer batch sampled from a ring with chords, with features and
/// labels filled from the node ids.
SampledBatch sampledBatch() {
  const int64_t n = 40;
  std::vector<int64_t> src, dst;
  for (int64_t v = 0; v < n; ++v) {
    src.push_back((v + 1) % n);
    dst.push_back(v);
    src.push_back((v * 7 + 3) % n);
    dst.push_back(v);
  }
  static GraphStorage graph = GraphStorage::build(n, n, src, dst);
  SamplerOptions options;
  options.fanouts = {2, 1};
  NeighborSampler sampler(Adjacency::of(graph.view()), n, options);
  BlockBuilder builder(n);
  SampledBatch batch;
  const int64_t seeds[] = {5, 17, 30};
  sampler.sample(seeds, 3, SampleKey{1, 2, 3}, builder, batch);
  const int64_t width = 3;
  for (int64_t node : batch.nodes)
    for (int64_t k = 0; k < width; ++k)
      batch.features.push_back(float(node) + 0.25f * float(k));
  for (int64_t i = 0; i < batch.numSeeds(); ++i)
    batch.labels.push_back(batch.nodes[size_t(i)] % 4);
  return batch;
}

std::vector<int64_t> column(const int64_t *p, int64_t n) {
  return std::vector<int64_t>(p, p + n);
}
std::vector<int32_t> column(const int32_t *p, int64_t n) {
  return std::vector<int32_t>(p, p + n);
}

TEST(BatchCodec, RoundTripKeepsWhatATrainStepReads) {
  const SampledBatch sent = sampledBatch();
  std::vector<char> message;
  encodeBatch(sent, 3, message);
  SampledBatch got;
  EXPECT_EQ(decodeBatch(message.data(), int64_t(message.size()), got), 3);
  EXPECT_EQ(got.nodes, sent.nodes);
  EXPECT_EQ(got.levelSizes, sent.levelSizes);
  EXPECT_EQ(got.features, sent.features);
  EXPECT_EQ(got.labels, sent.labels);
  ASSERT_EQ(got.views.size(), sent.views.size());
  for (size_t d = 0; d < got.views.size(); ++d) {
    const GraphView &a = sent.views[d], &b = got.views[d];
    ASSERT_EQ(b.numSrc, a.numSrc);
    ASSERT_EQ(b.numDst, a.numDst);
    ASSERT_EQ(b.numEdges, a.numEdges);
    EXPECT_GT(b.numEdges, 0);
    EXPECT_EQ(column(b.inOffsets, b.numDst + 1),
              column(a.inOffsets, a.numDst + 1));
    EXPECT_EQ(column(b.edgeSrc, b.numEdges), column(a.edgeSrc, a.numEdges));
    EXPECT_EQ(column(b.outOffsets, b.numSrc + 1),
              column(a.outOffsets, a.numSrc + 1));
    EXPECT_EQ(column(b.outEdges, b.numEdges), column(a.outEdges, a.numEdges));
  }
}

TEST(BatchCodec, TypedBlocksKeepEachEdgesRelation) {
  // A heterogeneous graph's blocks (R-GCN on sampler ranks): relation ids
  // drawn from the edge positions, 3 relations.
  SampledBatch sent = sampledBatch();
  for (GraphStorage &block : sent.blocks) {
    std::vector<int32_t> types(size_t(block.numEdges()));
    for (size_t k = 0; k < types.size(); ++k)
      types[k] = int32_t((k * 5 + 1) % 3);
    block.setEdgeTypes(types, 3);
  }
  sent.views.clear();
  for (const GraphStorage &block : sent.blocks)
    sent.views.push_back(block.view());
  std::vector<char> message;
  encodeBatch(sent, 3, message);
  SampledBatch got;
  decodeBatch(message.data(), int64_t(message.size()), got);
  ASSERT_EQ(got.views.size(), sent.views.size());
  for (size_t d = 0; d < got.views.size(); ++d) {
    const GraphView &a = sent.views[d], &b = got.views[d];
    ASSERT_NE(b.edgeType, nullptr);
    EXPECT_EQ(b.numRelations, 3);
    EXPECT_EQ(column(b.edgeType, b.numEdges), column(a.edgeType, a.numEdges));
    EXPECT_NE(b.relationIndex, nullptr);
  }
  // An untyped batch stays untyped.
  SampledBatch untyped;
  std::vector<char> plain;
  encodeBatch(sampledBatch(), 3, plain);
  decodeBatch(plain.data(), int64_t(plain.size()), untyped);
  for (const GraphView &v : untyped.views)
    EXPECT_EQ(v.edgeType, nullptr);
}

TEST(BatchCodec, AnEmptyBatchIsAMessageToo) {
  SampledBatch empty, got;
  BlockBuilder builder(4);
  builder.start(nullptr, 0, 2, empty);
  builder.addHop({0}, {});
  builder.addHop({0}, {});
  builder.finish();
  std::vector<char> message;
  encodeBatch(empty, 5, message);
  decodeBatch(message.data(), int64_t(message.size()), got);
  EXPECT_EQ(got.numSeeds(), 0);
  EXPECT_EQ(got.numLayers(), 2);
}

TEST(BatchCodec, DamagedMessagesAreErrors) {
  std::vector<char> message;
  encodeBatch(sampledBatch(), 3, message);
  SampledBatch got;
  auto decode = [&](const std::vector<char> &bytes) {
    return test::dataErrorOf(
        [&] { decodeBatch(bytes.data(), int64_t(bytes.size()), got); });
  };
  // The features come last: 8 bytes short of the end is inside them
  // (level 0's rows of 3 floats, padded to 8 bytes).
  std::vector<char> shorter(message.begin(), message.end() - 8);
  const std::string error = decode(shorter);
  const int64_t padded = (got.levelSizes.front() * 12 + 7) / 8 * 8;
  EXPECT_EQ(error, "batch message: truncated in the features (" +
                       std::to_string(padded - 8) + " bytes left, " +
                       std::to_string(padded) + " needed)");
  std::vector<char> longer = message;
  longer.resize(longer.size() + 8);
  EXPECT_EQ(decode(longer), "batch message: trailing bytes after the features");
  std::vector<char> other = message;
  other[0] ^= 1;
  EXPECT_EQ(decode(other),
            "batch message: not a sampled batch (wrong magic number)");
}

TEST(SamplerRanks, SlicesCoverTheSeedsOnceInOrder) {
  std::vector<int64_t> seeds(10);
  std::iota(seeds.begin(), seeds.end(), 100);
  for (int slices : {1, 2, 3, 4, 11}) {
    std::vector<int64_t> joined;
    size_t smallest = seeds.size(), largest = 0;
    for (int s = 0; s < slices; ++s) {
      const std::vector<int64_t> part = sliceSeeds(seeds, s, slices);
      joined.insert(joined.end(), part.begin(), part.end());
      smallest = std::min(smallest, part.size());
      largest = std::max(largest, part.size());
    }
    EXPECT_EQ(joined, seeds) << slices << " slices";
    EXPECT_LE(largest - smallest, 1u) << slices << " slices";
  }
}

TEST(SamplerRanks, TrainersShareThePartsRoundRobin) {
  SerialCommunicator world;
  // 5 trainers, 2 samplers: parts 0, 1, 0, 1, 0.
  const SamplerRanks ranks{world, 5, 2, 2};
  EXPECT_EQ(ranks.partOf(4), 0);
  EXPECT_EQ(ranks.sliceOf(4), 2);
  EXPECT_EQ(ranks.slicesOf(0), 3);
  EXPECT_EQ(ranks.slicesOf(1), 2);
  EXPECT_EQ(ranks.maxSlices(), 3);
  EXPECT_EQ(ranks.samplerRank(1), 6);
  EXPECT_TRUE(ranks.isSampler(5));
  EXPECT_FALSE(ranks.isSampler(4));
}

} // namespace
