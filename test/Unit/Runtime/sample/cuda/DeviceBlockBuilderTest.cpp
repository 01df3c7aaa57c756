//===- DeviceBlockBuilderTest.cpp - BlockBuilder's blocks on the device ---===//
//
// A rank under mpirun hands each hop to the device as two arrays, its own
// draws and the neighbours its peers sent, in any arrangement: the blocks
// must be BlockBuilder's for the same neighbour lists in frontier order
// (new nodes in order of first appearance, sources sorted), hubs and
// repeated neighbours included, and a malformed hop is refused. Compiled
// natively (skips without a device) and over the emulation.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/sample/cuda/DeviceBlockBuilder.h"

#include "kernels/cuda/CudaTestUtil.h"

#include "gnnrt/support/Error.h"

using namespace gnnrt;
using namespace gnnrt::cudatest;

namespace {

/// Row j's neighbours for a frontier of n: mostly a few ids, row 1 a hub of
/// 3000 (past the one-thread sort), repeats within and across rows.
std::vector<std::vector<int64_t>> hopRows(int64_t n, int64_t numNodes,
                                          uint64_t seed) {
  CounterRng rng(seed, 4);
  std::vector<std::vector<int64_t>> rows(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    const int64_t count = j == 1 ? 3000 : int64_t(rng.nextBelow(6));
    for (int64_t k = 0; k < count; ++k)
      rows[size_t(j)].push_back(rng.nextBelow(uint32_t(numNodes)));
  }
  return rows;
}

TEST(DeviceBlockBuilder, TwoArrayHopsBuildBlockBuildersBlocks) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const int64_t numNodes = 5000;
  const std::vector<int64_t> seeds = {17, 3, 4999, 250};
  BlockBuilder host(numNodes);
  DeviceBlockBuilder device(numNodes);
  SampledBatch expected, batch;
  host.start(seeds.data(), int64_t(seeds.size()), 2, expected);
  device.start(seeds.data(), int64_t(seeds.size()), 2, batch);
  for (int hop = 0; hop < 2; ++hop) {
    const int64_t n = host.frontierSize();
    ASSERT_EQ(device.frontierSize(), n);
    const auto rows = hopRows(n, numNodes, uint64_t(hop) + 1);
    std::vector<int64_t> offsets{0}, neighbors;
    for (const auto &row : rows) {
      neighbors.insert(neighbors.end(), row.begin(), row.end());
      offsets.push_back(int64_t(neighbors.size()));
    }
    // Odd rows in the first array, even rows in the second, each array's
    // rows in reverse frontier order.
    std::vector<int64_t> first, second, rowStarts(static_cast<size_t>(n));
    for (int64_t j = n - 1; j >= 0; --j) {
      std::vector<int64_t> &to = j % 2 ? first : second;
      rowStarts[size_t(j)] = int64_t(to.size());
      to.insert(to.end(), rows[size_t(j)].begin(), rows[size_t(j)].end());
    }
    for (int64_t j = 0; j < n; j += 2)
      rowStarts[size_t(j)] += int64_t(first.size());
    DeviceArray<int64_t> a(first.empty() ? std::vector<int64_t>{0} : first),
        b(second.empty() ? std::vector<int64_t>{0} : second);
    device.addHop(a.get(), int64_t(first.size()), b.get(), rowStarts, offsets,
                  -1);
    host.addHop(offsets, neighbors);
    EXPECT_EQ(batch.nodes, expected.nodes) << "hop " << hop;
  }
  host.finish();
  device.finish();
  ASSERT_EQ(batch.levelSizes, expected.levelSizes);
  for (size_t i = 0; i < expected.views.size(); ++i) {
    const GraphView &x = expected.views[i], &y = batch.views[i];
    ASSERT_EQ(x.numEdges, y.numEdges);
    EXPECT_TRUE(std::equal(x.inOffsets, x.inOffsets + x.numDst + 1,
                           y.inOffsets));
    EXPECT_TRUE(std::equal(x.edgeSrc, x.edgeSrc + x.numEdges, y.edgeSrc))
        << "block " << i;
  }
  EXPECT_GT(device.transferBytes(), 0);
  // The tables are clean for the next batch: the seeds again.
  device.start(seeds.data(), int64_t(seeds.size()), 0, batch);
  device.finish();
  EXPECT_EQ(batch.nodes, seeds);
}

TEST(DeviceBlockBuilder, RefusesMalformedHops) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  DeviceBlockBuilder device(100);
  SampledBatch batch;
  const std::vector<int64_t> seeds = {1, 2};
  device.start(seeds.data(), 2, 1, batch);
  DeviceArray<int64_t> none(std::vector<int64_t>{0});
  // Rows for three frontier nodes where there are two.
  EXPECT_THROW(device.addHop(none.get(), 0, none.get(), {0, 0, 0},
                             {0, 0, 0, 0}, -1),
               DataError);
  EXPECT_THROW(device.finish(), DataError);
  const std::vector<int64_t> twice = {5, 5};
  EXPECT_THROW(device.start(twice.data(), 2, 1, batch), DataError);
}

} // namespace
