//===- RandomPartitioner.cpp - Seeded balanced random node assignment -----===//
//
// GLT's RandomPartitioner shuffles the node ids and gives each part one
// contiguous chunk of the shuffle. We do the same with a Fisher-Yates shuffle
// driven by the counter-based RNG, so the assignment is a pure function of
// (numNodes, numParts, seed) on every machine. It ignores the graph: the
// baseline METIS is measured against, and a partitioning whose balance is
// exact (part sizes differ by at most one node) whatever the structure.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/Partitioner.h"

#include "gnnrt/support/Random.h"

#include <numeric>

namespace gnnrt {

namespace {
/// The stream of the shuffle ("PART" in ASCII), apart from the generator's
/// streams 1-5 so that one seed may drive both without correlation.
constexpr uint64_t kPartitionStream = uint64_t(0x50415254) << 32;
} // namespace

std::vector<int32_t> randomPartition(int64_t numNodes, int numParts,
                                     uint64_t seed) {
  std::vector<int64_t> order(static_cast<size_t>(numNodes));
  std::iota(order.begin(), order.end(), int64_t(0));
  CounterRng rng(seed, kPartitionStream);
  for (int64_t i = numNodes - 1; i > 0; --i)
    std::swap(order[size_t(i)], order[rng.nextBelow64(uint64_t(i) + 1)]);
  // Position k of the shuffle goes to part floor(k * P / N): chunk sizes are
  // floor(N / P) or ceil(N / P).
  std::vector<int32_t> owner(static_cast<size_t>(numNodes));
  for (int64_t k = 0; k < numNodes; ++k)
    owner[size_t(order[size_t(k)])] =
        int32_t((unsigned __int128)k * unsigned(numParts) / uint64_t(numNodes));
  return owner;
}

} // namespace gnnrt
