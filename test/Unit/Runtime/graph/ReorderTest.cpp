//===- ReorderTest.cpp - Node orders and the cache model ------------------===//
//
// A renumbering must be a permutation (or the trainer loses nodes), the
// cache model must count what an LRU cache would (it decides the order),
// and on a graph of communities whose ids were shuffled the model must
// pick the community order and find it misses far less; on a graph that
// fits in the cache it must keep the original ids. Orders must not depend
// on the thread count: the trainer's results may not.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/graph/Reorder.h"

#include "gnnrt/support/Random.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <omp.h>

using namespace gnnrt;

namespace {

/// `clusters` communities of `size` nodes, each node with `inside` random
/// neighbours in its community and `outside` anywhere, both directions;
/// node ids shuffled so that a community is spread over the whole range.
GraphStorage shuffledCommunities(int64_t clusters, int64_t size, int inside,
                                 int outside) {
  const int64_t n = clusters * size;
  CounterRng rng(7, 1, 0);
  std::vector<int64_t> id(static_cast<size_t>(n));
  std::iota(id.begin(), id.end(), int64_t(0));
  for (int64_t i = n - 1; i > 0; --i)
    std::swap(id[size_t(i)], id[size_t(rng.nextBelow64(uint64_t(i + 1)))]);
  std::vector<int64_t> src, dst;
  auto edge = [&](int64_t a, int64_t b) {
    src.push_back(id[size_t(a)]);
    dst.push_back(id[size_t(b)]);
    src.push_back(id[size_t(b)]);
    dst.push_back(id[size_t(a)]);
  };
  for (int64_t v = 0; v < n; ++v) {
    const int64_t first = v / size * size;
    for (int k = 0; k < inside; ++k)
      edge(v, first + int64_t(rng.nextBelow64(uint64_t(size))));
    for (int k = 0; k < outside; ++k)
      edge(v, int64_t(rng.nextBelow64(uint64_t(n))));
  }
  return GraphStorage::build(n, n, src, dst);
}

bool isPermutation(std::vector<int64_t> order, int64_t n) {
  std::sort(order.begin(), order.end());
  std::vector<int64_t> identity(static_cast<size_t>(n));
  std::iota(identity.begin(), identity.end(), int64_t(0));
  return order == identity;
}

/// Sets $GNNRT_CACHE_BYTES for one scope.
class ModeledCache {
public:
  explicit ModeledCache(int64_t bytes) {
    setenv("GNNRT_CACHE_BYTES", std::to_string(bytes).c_str(), 1);
  }
  ~ModeledCache() { unsetenv("GNNRT_CACHE_BYTES"); }
};

} // namespace

TEST(Reorder, EveryOrderIsADeterministicPermutation) {
  GraphStorage storage = shuffledCommunities(8, 300, 12, 3);
  const GraphView g = storage.view();
  for (NodeOrder order : {NodeOrder::Original, NodeOrder::Community,
                          NodeOrder::Rcm, NodeOrder::Degree}) {
    SCOPED_TRACE(nodeOrderName(order));
    omp_set_num_threads(1);
    const std::vector<int64_t> one = computeNodeOrder(g, order, 512);
    omp_set_num_threads(2);
    const std::vector<int64_t> two = computeNodeOrder(g, order, 512);
    EXPECT_TRUE(isPermutation(one, g.numDst));
    EXPECT_EQ(one, two);
    EXPECT_EQ(nodeOrderFromName(nodeOrderName(order)), order);
  }
  EXPECT_FALSE(nodeOrderFromName("metis"));
}

TEST(Reorder, MissRateCountsAnLruCacheOfRows) {
  // Four destinations gather node 0's row: one miss, then hits.
  GraphStorage star = GraphStorage::build(4, 4, {0, 0, 0, 0}, {0, 1, 2, 3});
  EXPECT_DOUBLE_EQ(gatherMissRate(star.view(), {}, 64, 16 * 64), 0.25);
  // 32 rows gathered round-robin through a cache of 16: LRU misses all.
  std::vector<int64_t> src, dst;
  for (int64_t k = 0; k < 64; ++k) {
    src.push_back(k % 32);
    dst.push_back(k);
  }
  GraphStorage cycle = GraphStorage::build(64, 64, src, dst);
  EXPECT_DOUBLE_EQ(gatherMissRate(cycle.view(), {}, 64, 16 * 64), 1.0);
  // With room for all 32, only the first pass misses.
  EXPECT_DOUBLE_EQ(gatherMissRate(cycle.view(), {}, 64, 32 * 64), 0.5);
  // Renumbered in reverse, destination 63 comes first: the same count.
  std::vector<int64_t> reverse(64);
  std::iota(reverse.rbegin(), reverse.rend(), int64_t(0));
  EXPECT_DOUBLE_EQ(gatherMissRate(cycle.view(), reverse, 64, 32 * 64), 0.5);
}

TEST(Reorder, ChoosesCommunitiesOfAShuffledClusteredGraph) {
  // 16 communities of 256 rows of 512 bytes; the cache holds 2 of them.
  GraphStorage storage = shuffledCommunities(16, 256, 16, 2);
  const GraphView g = storage.view();
  ModeledCache cache(512 * 512);
  const NodeOrderChoice choice = chooseNodeOrder(g, 512);
  EXPECT_EQ(choice.order, NodeOrder::Community);
  EXPECT_TRUE(isPermutation(choice.newToOld, g.numDst));
  EXPECT_GT(choice.originalMissRate, 0.8);
  EXPECT_LT(choice.missRate, 0.5 * choice.originalMissRate);
  EXPECT_DOUBLE_EQ(choice.missRate,
                   gatherMissRate(g, choice.newToOld, 512, 512 * 512));
}

TEST(Reorder, KeepsTheIdsOfAGraphThatFitsInTheCache) {
  GraphStorage storage = shuffledCommunities(4, 64, 8, 2);
  ModeledCache cache(int64_t(1) << 20);
  const NodeOrderChoice choice = chooseNodeOrder(storage.view(), 512);
  EXPECT_EQ(choice.order, NodeOrder::Original);
  EXPECT_TRUE(choice.newToOld.empty());
}
