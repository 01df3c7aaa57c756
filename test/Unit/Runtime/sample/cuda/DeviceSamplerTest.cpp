//===- DeviceSamplerTest.cpp - GPU sampling draws the CPU sampler's -------===//
//
// A user switching to sampling on the device must get the same batches: for
// the same key, DeviceNeighborSampler's blocks equal NeighborSampler's edge
// for edge, in every mode (a fanout, all neighbours, with replacement, a
// fanout above the CPU's linear-scan limit of 64 on a hub, isolated seeds),
// and a batch's feature rows gathered on the device are the host's rows;
// a hop's draws left on the device for a peer are the same draws, and so
// are those read zero-copy from a CSR in pinned host memory, and so are the
// blocks deduplicated on the device (sampleBatch), hubs of thousands of
// neighbours sampled whole included.
// Compiled natively (skips without a device) and over the emulation.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/sample/cuda/DeviceSampler.h"

#include "kernels/cuda/CudaTestUtil.h"

#include "gnnrt/support/Error.h"

#include <memory>
#include <set>

using namespace gnnrt;
using namespace gnnrt::cudatest;

namespace {

/// A random graph of 300 nodes with a hub (node 0, ~150 in-neighbours) and
/// isolated nodes 297-299.
GraphStorage testGraph() {
  CounterRng rng(7, 3);
  std::set<std::pair<int64_t, int64_t>> edges;
  const int64_t n = 300;
  for (int64_t e = 0; e < 2400; ++e) {
    const int64_t u = rng.nextBelow(uint32_t(n - 3));
    const int64_t v = e % 16 == 0 ? 0 : rng.nextBelow(uint32_t(n - 3));
    if (u != v)
      edges.insert({u, v});
  }
  std::vector<int64_t> src, dst;
  for (auto [u, v] : edges) {
    src.push_back(u);
    dst.push_back(v);
  }
  return GraphStorage::build(n, n, src, dst);
}

void expectSameBatch(const SampledBatch &cpu, const SampledBatch &gpu) {
  ASSERT_EQ(cpu.nodes, gpu.nodes);
  ASSERT_EQ(cpu.levelSizes, gpu.levelSizes);
  ASSERT_EQ(cpu.views.size(), gpu.views.size());
  for (size_t i = 0; i < cpu.views.size(); ++i) {
    const GraphView &a = cpu.views[i], &b = gpu.views[i];
    ASSERT_EQ(a.numSrc, b.numSrc) << "block " << i;
    ASSERT_EQ(a.numDst, b.numDst) << "block " << i;
    ASSERT_EQ(a.numEdges, b.numEdges) << "block " << i;
    EXPECT_TRUE(std::equal(a.inOffsets, a.inOffsets + a.numDst + 1,
                           b.inOffsets))
        << "block " << i;
    EXPECT_TRUE(std::equal(a.edgeSrc, a.edgeSrc + a.numEdges, b.edgeSrc))
        << "block " << i;
  }
}

TEST(DeviceSampler, SameBlocksAsCpuSampler) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const GraphStorage graph = testGraph();
  const GraphView view = graph.view();
  ASSERT_GT(view.inOffsets[1] - view.inOffsets[0], 100) << "the hub";
  // The hub, isolated nodes and a spread of others as seeds.
  std::vector<int64_t> seeds = {0, 297, 298};
  for (int64_t v = 5; v < 290; v += 9)
    seeds.push_back(v);
  const std::vector<std::pair<std::vector<int64_t>, bool>> modes = {
      {{5, 3}, false},   {{5, 3}, true},   {{-1, 4}, false},
      {{2, 100}, false}, {{2, 100}, true}, {{10, 10, 10}, false}};
  int batches = 0;
  for (const auto &[fanouts, replace] : modes) {
    SamplerOptions options;
    options.fanouts = fanouts;
    options.replace = replace;
    const NeighborSampler cpu(Adjacency::of(view), view.numDst, options);
    const DeviceNeighborSampler gpu(Adjacency::of(view), view.numDst, options);
    // A graph budget of 0 bytes: the CSR stays in pinned host memory, read
    // zero-copy.
    const DeviceNeighborSampler zeroCopy(Adjacency::of(view), view.numDst,
                                         options, /*graphBudgetBytes=*/0);
    EXPECT_FALSE(gpu.readsZeroCopy());
    EXPECT_TRUE(zeroCopy.readsZeroCopy());
    BlockBuilder cpuBuilder(view.numDst), gpuBuilder(view.numDst);
    for (uint64_t epoch = 0; epoch < 2; ++epoch) {
      const SampleKey key{11, epoch, 3};
      SampledBatch a, b, c;
      cpu.sample(seeds.data(), int64_t(seeds.size()), key, cpuBuilder, a);
      gpu.sample(seeds.data(), int64_t(seeds.size()), key, gpuBuilder, b);
      zeroCopy.sample(seeds.data(), int64_t(seeds.size()), key, gpuBuilder, c);
      SCOPED_TRACE("fanouts " + std::to_string(fanouts.back()) +
                   (replace ? " with replacement" : ""));
      expectSameBatch(a, b);
      expectSameBatch(a, c);
      // Deduplicated on the device, from both placements of the CSR.
      SampledBatch onDevice, fromPinned;
      gpu.sampleBatch(seeds.data(), int64_t(seeds.size()), fanouts, key,
                      onDevice);
      zeroCopy.sampleBatch(seeds.data(), int64_t(seeds.size()), fanouts, key,
                           fromPinned);
      expectSameBatch(a, onDevice);
      expectSameBatch(a, fromPinned);
      EXPECT_GT(b.sampledEdges(), 0);
      ++batches;
    }
  }
  EXPECT_EQ(batches, 12);
}

/// 6000 nodes: a hub (node 0) with 5000 in-neighbours, more than two
/// shared-memory tiles of the device's sort; node 1 with 300 (one tile);
/// three random in-neighbours for every other node.
GraphStorage hubGraph() {
  CounterRng rng(3, 5);
  const int64_t n = 6000;
  std::set<std::pair<int64_t, int64_t>> edges;
  for (int64_t u = 1; u <= 5000; ++u)
    edges.insert({u, 0});
  for (int64_t u = 2; u < 302; ++u)
    edges.insert({u * 17 % n, 1});
  for (int64_t v = 2; v < n; ++v)
    for (int k = 0; k < 3; ++k)
      edges.insert({rng.nextBelow(uint32_t(n)), v});
  std::vector<int64_t> src, dst;
  for (auto [u, v] : edges)
    if (u != v) {
      src.push_back(u);
      dst.push_back(v);
    }
  return GraphStorage::build(n, n, src, dst);
}

// Hops whose edges span many scan tiles, and a hub sampled whole (fanout
// -1) or with a fanout in the thousands, with and without replacement: the
// device's multi-block scan and per-row sorts build the CPU's blocks.
TEST(DeviceSampler, HubsSampledWholeGiveTheCpuBlocks) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const GraphStorage graph = hubGraph();
  const GraphView view = graph.view();
  ASSERT_EQ(view.inOffsets[1] - view.inOffsets[0], 5000);
  const std::vector<int64_t> seeds = {0, 1, 4000, 5999};
  const std::vector<std::pair<std::vector<int64_t>, bool>> modes = {
      {{-1, -1}, false}, {{4, 3000}, false}, {{4, 3000}, true}};
  BlockBuilder builder(view.numDst);
  for (const auto &[fanouts, replace] : modes) {
    SamplerOptions options;
    options.fanouts = fanouts;
    options.replace = replace;
    const NeighborSampler cpu(Adjacency::of(view), view.numDst, options);
    const DeviceNeighborSampler gpu(Adjacency::of(view), view.numDst, options);
    const SampleKey key{2, 1, 9};
    SampledBatch expected, batch;
    cpu.sample(seeds.data(), int64_t(seeds.size()), key, builder, expected);
    gpu.sampleBatch(seeds.data(), int64_t(seeds.size()), fanouts, key, batch);
    SCOPED_TRACE("fanouts " + std::to_string(fanouts.back()) +
                 (replace ? " with replacement" : ""));
    expectSameBatch(expected, batch);
    // The hop's edges cross several scan tiles (2048 each).
    EXPECT_GT(batch.views[0].numEdges, 3 * 2048);
  }
}

// Device deduplication keeps BlockBuilder's contract on bad seeds, and its
// tables are clean between batches (a batch after a big one is the CPU's).
TEST(DeviceSampler, SampleBatchChecksSeedsAndReusesItsTables) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const GraphStorage graph = testGraph();
  const GraphView view = graph.view();
  SamplerOptions options;
  options.fanouts = {3, 3};
  const DeviceNeighborSampler gpu(Adjacency::of(view), view.numDst, options);
  const NeighborSampler cpu(Adjacency::of(view), view.numDst, options);
  SampledBatch batch;
  const std::vector<int64_t> twice = {4, 9, 4}, outside = {4, 300};
  EXPECT_THROW(gpu.sampleBatch(twice.data(), 3, {3, 3}, SampleKey{}, batch),
               DataError);
  EXPECT_THROW(gpu.sampleBatch(outside.data(), 2, {3, 3}, SampleKey{}, batch),
               DataError);
  std::vector<int64_t> all;
  for (int64_t v = 0; v < view.numDst; ++v)
    all.push_back(v);
  gpu.sampleBatch(all.data(), int64_t(all.size()), {-1, -1}, SampleKey{},
                  batch);
  EXPECT_EQ(int64_t(batch.nodes.size()), view.numDst);
  const std::vector<int64_t> few = {0, 42};
  BlockBuilder builder(view.numDst);
  SampledBatch expected;
  cpu.sample(few.data(), 2, SampleKey{3, 1, 4}, builder, expected);
  gpu.sampleBatch(few.data(), 2, {3, 3}, SampleKey{3, 1, 4}, batch);
  expectSameBatch(expected, batch);
}

TEST(DeviceSampler, DifferentKeysDrawDifferentBlocks) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const GraphStorage graph = testGraph();
  const GraphView view = graph.view();
  SamplerOptions options;
  options.fanouts = {4, 4};
  const DeviceNeighborSampler gpu(Adjacency::of(view), view.numDst, options);
  BlockBuilder builder(view.numDst);
  std::vector<int64_t> seeds = {0, 10, 20, 30};
  SampledBatch a, b;
  gpu.sample(seeds.data(), 4, SampleKey{1, 0, 0}, builder, a);
  gpu.sample(seeds.data(), 4, SampleKey{1, 1, 0}, builder, b);
  EXPECT_NE(a.nodes, b.nodes);
}

// A rank samples its own rows of a partition, whose neighbours are local
// ids named by a table of global ids, with each row's global id as the
// draws' stream: sampleRows must draw what the CPU's sampleNeighbors does.
TEST(DeviceSampler, SampleRowsDrawsAPartitionsRowsAsTheCpuDoes) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const GraphStorage graph = testGraph();
  const GraphView view = graph.view();
  // Local id i is global node 3 * i + 1 of a larger id space.
  std::vector<int64_t> globalIds(size_t(view.numSrc));
  for (size_t i = 0; i < globalIds.size(); ++i)
    globalIds[i] = 3 * int64_t(i) + 1;
  Adjacency adj = Adjacency::of(view);
  adj.globalIds = globalIds.data();
  const int64_t idSpace = 3 * view.numSrc + 1;
  const std::vector<int64_t> rows = {0, 5, 17, 297, 120, 0};
  std::vector<int64_t> nodes;
  for (int64_t r : rows)
    nodes.push_back(globalIds[size_t(r)]);
  for (bool replace : {false, true}) {
    SamplerOptions options;
    options.replace = replace;
    const DeviceNeighborSampler gpu(adj, idSpace, options);
    const DeviceNeighborSampler zeroCopy(adj, idSpace, options,
                                         /*graphBudgetBytes=*/0);
    for (int64_t fanout : {int64_t(4), int64_t(-1), int64_t(90)}) {
      const SampleKey key{5, 2, 7};
      std::vector<int64_t> offsets, neighbors, expected;
      gpu.sampleRows(rows.data(), nodes.data(), int64_t(rows.size()), fanout,
                     sampleDrawKey(key, 1), offsets, neighbors);
      ASSERT_EQ(offsets.size(), rows.size() + 1);
      for (size_t k = 0; k < rows.size(); ++k) {
        const size_t before = expected.size();
        sampleNeighbors(adj, rows[k], nodes[k], fanout, replace, key, 1,
                        expected);
        EXPECT_EQ(offsets[k + 1] - offsets[k], int64_t(expected.size() - before))
            << "row " << rows[k] << " fanout " << fanout;
      }
      EXPECT_EQ(neighbors, expected)
          << "fanout " << fanout << (replace ? " with replacement" : "");
      EXPECT_FALSE(neighbors.empty());
      // The same draws left on the device (what a rank sends its peers
      // over NCCL).
      std::vector<int64_t> deviceOffsets;
      std::unique_ptr<DeviceArray<int64_t>> onDevice;
      gpu.sampleRowsToDevice(
          rows.data(), nodes.data(), int64_t(rows.size()), fanout,
          sampleDrawKey(key, 1), deviceOffsets, [&](int64_t total) {
            onDevice = std::make_unique<DeviceArray<int64_t>>(size_t(total));
            return onDevice->get();
          });
      EXPECT_EQ(deviceOffsets, offsets);
      ASSERT_TRUE(onDevice);
      const std::vector<int64_t> copied = onDevice->toHost();
      EXPECT_EQ(copied, expected) << "fanout " << fanout << " on the device";
      // The partition's CSR and id table read from pinned host memory.
      std::vector<int64_t> pinnedOffsets, pinnedNeighbors;
      zeroCopy.sampleRows(rows.data(), nodes.data(), int64_t(rows.size()),
                          fanout, sampleDrawKey(key, 1), pinnedOffsets,
                          pinnedNeighbors);
      EXPECT_EQ(pinnedOffsets, offsets);
      EXPECT_EQ(pinnedNeighbors, expected)
          << "fanout " << fanout << " read zero-copy";
    }
  }
  // Rows that are not node ids: sample() would read the wrong rows.
  SamplerOptions options;
  options.fanouts = {3};
  const DeviceNeighborSampler gpu(adj, idSpace, options);
  BlockBuilder builder(idSpace);
  SampledBatch batch;
  const int64_t seed = 1;
  EXPECT_THROW(gpu.sample(&seed, 1, SampleKey{}, builder, batch), DataError);
}

TEST(DeviceSampler, GathersTheBatchRows) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const int64_t rows = 50, width = 7;
  std::vector<float> features(size_t(rows * width));
  for (size_t i = 0; i < features.size(); ++i)
    features[i] = float(i) * 0.5f;
  const std::vector<int64_t> nodes = {49, 0, 17, 17, 3};
  DeviceArray<float> table(features), out(nodes.size() * width);
  DeviceArray<int64_t> ids(nodes);
  gatherFeatureRows(table.get(), width, ids.get(), int64_t(nodes.size()),
                    out.get());
  const std::vector<float> got = out.toHost();
  for (size_t i = 0; i < nodes.size(); ++i)
    for (int64_t j = 0; j < width; ++j)
      EXPECT_EQ(got[i * width + j], features[nodes[i] * width + j]);

  // Rows placed anywhere (a rank's owned, cached and fetched rows land
  // among each other); rows not named keep what they held.
  const std::vector<int64_t> to = {4, 0, 2};
  DeviceArray<int64_t> toRows(to), fromRows(std::vector<int64_t>{1, 2, 3});
  DeviceArray<float> placed(std::vector<float>(5 * width, -1.0f));
  copyFeatureRows(table.get(), width, fromRows.get(), toRows.get(), 3,
                  placed.get());
  const std::vector<float> rowsOut = placed.toHost();
  for (int64_t j = 0; j < width; ++j) {
    EXPECT_EQ(rowsOut[4 * width + j], features[1 * width + j]);
    EXPECT_EQ(rowsOut[0 * width + j], features[2 * width + j]);
    EXPECT_EQ(rowsOut[2 * width + j], features[3 * width + j]);
    EXPECT_EQ(rowsOut[1 * width + j], -1.0f);
    EXPECT_EQ(rowsOut[3 * width + j], -1.0f);
  }
}

TEST(DeviceSampler, RefusesTypedGraphsAndBadFanouts) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const GraphStorage graph = testGraph();
  GraphView view = graph.view();
  SamplerOptions options;
  options.fanouts = {0};
  try {
    DeviceNeighborSampler sampler(Adjacency::of(view), view.numDst, options);
    FAIL() << "a zero fanout was accepted";
  } catch (const DataError &e) {
    EXPECT_NE(std::string(e.what()).find("fanout 0 of layer 0"),
              std::string::npos)
        << e.what();
  }
  // A typed graph's blocks need the caller's BlockBuilder.
  options.fanouts = {3};
  std::vector<int32_t> types(size_t(view.numEdges), 0);
  view.edgeType = types.data();
  view.numRelations = 1;
  const DeviceNeighborSampler typed(Adjacency::of(view), view.numDst, options);
  BlockBuilder builder(view.numDst);
  SampledBatch batch;
  const int64_t seed = 1;
  EXPECT_THROW(typed.sample(&seed, 1, SampleKey{}, builder, batch), DataError);
  EXPECT_THROW(typed.sampleBatch(&seed, 1, {3}, SampleKey{}, batch), DataError);
}

// A typed graph's draws report each neighbour's relation as neighbour *
// relations + relation: the CPU's draws and types, from device memory and
// read zero-copy.
TEST(DeviceSampler, TypedRowsReportTheirRelations) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const GraphStorage graph = testGraph();
  GraphView view = graph.view();
  const int32_t R = 3;
  std::vector<int32_t> types(size_t(view.numEdges));
  for (size_t k = 0; k < types.size(); ++k)
    types[k] = int32_t((k * 7) % R);
  view.edgeType = types.data();
  view.numRelations = R;
  const Adjacency adj = Adjacency::of(view);
  std::vector<int64_t> rows = {0, 3, 17, 297, 150};
  for (bool replace : {false, true}) {
    SamplerOptions options;
    options.replace = replace;
    const DeviceNeighborSampler gpu(adj, view.numDst, options);
    const DeviceNeighborSampler zeroCopy(adj, view.numDst, options, 0);
    for (int64_t fanout : {int64_t(4), int64_t(-1)}) {
      const SampleKey key{9, 1, 2};
      std::vector<int64_t> expected;
      std::vector<int32_t> expectedTypes;
      for (int64_t r : rows)
        sampleNeighbors(adj, r, r, fanout, replace, key, 0, expected,
                        &expectedTypes);
      ASSERT_EQ(expected.size(), expectedTypes.size());
      for (size_t i = 0; i < expected.size(); ++i)
        expected[i] = expected[i] * R + expectedTypes[i];
      for (const DeviceNeighborSampler *sampler : {&gpu, &zeroCopy}) {
        std::vector<int64_t> offsets, drawn;
        sampler->sampleRows(rows.data(), nullptr, int64_t(rows.size()), fanout,
                            sampleDrawKey(key, 0), offsets, drawn);
        EXPECT_EQ(drawn, expected)
            << "fanout " << fanout << (replace ? " with replacement" : "")
            << (sampler == &zeroCopy ? " read zero-copy" : "");
      }
      EXPECT_FALSE(expected.empty());
    }
  }
}

// Relations sampled on their own (per_relation, relation_fanout): each
// (row, relation) pair draws its fanout from a stream of its own, as the
// CPU's sampleNeighbors draws it, from device memory and zero-copy, with
// the hop's fanout for every relation or relations' own fanouts (one of
// them -1, one above the pair sizes), with and without replacement.
TEST(DeviceSampler, PerRelationDrawsAreTheCpus) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  GraphStorage graph = testGraph();
  const int32_t R = 3;
  std::vector<int32_t> types(size_t(graph.numEdges()));
  for (size_t k = 0; k < types.size(); ++k)
    types[k] = int32_t((k * 5 + k / 7) % R);
  graph.setEdgeTypes(types, R);
  const GraphView view = graph.view();
  RelationFanouts own;
  own.numRelations = R;
  own.table = {1, -1, 40, 2, 3, 2}; // layer 0, then layer 1
  const std::vector<int64_t> rows = {0, 3, 17, 297, 150, 0, 42};
  for (const RelationFanouts *fanouts : {(const RelationFanouts *)nullptr,
                                         (const RelationFanouts *)&own}) {
    const Adjacency adj = Adjacency::perRelationOf(view, fanouts);
    for (bool replace : {false, true}) {
      SamplerOptions options;
      options.replace = replace;
      const DeviceNeighborSampler gpu(adj, view.numDst, options);
      const DeviceNeighborSampler zeroCopy(adj, view.numDst, options, 0);
      EXPECT_TRUE(zeroCopy.readsZeroCopy());
      for (int layer : {0, 1}) {
        const SampleKey key{4, 2, 6};
        const int64_t fanout = layer == 0 ? 2 : -1;
        std::vector<int64_t> expected;
        std::vector<int32_t> expectedTypes;
        for (int64_t r : rows)
          sampleNeighbors(adj, r, r, fanout, replace, key, layer, expected,
                          &expectedTypes);
        for (size_t i = 0; i < expected.size(); ++i)
          expected[i] = expected[i] * R + expectedTypes[i];
        const int64_t *layerFanouts =
            fanouts ? fanouts->table.data() + layer * R : nullptr;
        for (const DeviceNeighborSampler *sampler : {&gpu, &zeroCopy}) {
          std::vector<int64_t> offsets, drawn;
          sampler->sampleRows(rows.data(), nullptr, int64_t(rows.size()),
                              fanout, sampleDrawKey(key, layer), offsets,
                              drawn, layerFanouts);
          EXPECT_EQ(drawn, expected)
              << "layer " << layer << (fanouts ? " own fanouts" : "")
              << (replace ? " with replacement" : "")
              << (sampler == &zeroCopy ? " read zero-copy" : "");
        }
        EXPECT_FALSE(expected.empty());
      }
    }
  }
}

} // namespace
