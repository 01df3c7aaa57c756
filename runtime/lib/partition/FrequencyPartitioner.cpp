//===- FrequencyPartitioner.cpp - Nodes to the parts that read them -------===//
//
// GLT's FrequencyPartitioner places nodes by how sampled training will use
// them rather than by graph structure alone: what a part of sampled training
// pays for is the input rows its batches gather from other parts, and those
// are the nodes its training seeds' sampled neighbourhoods reach. So:
//
//   1. the training nodes are split among the parts at random, balanced and
//      seeded (each part's share of the seeds);
//   2. every part pre-samples one epoch from its share, with the training
//      fanouts and batch size, counting how many of its batches read each
//      node (sampleAccessCounts);
//   3. training nodes stay where they sample; every other node goes to the
//      part that reads it most, hottest nodes first, so that when a part
//      reaches its capacity, ceil(N / P) x (1 + ufactor / 1000) nodes, only
//      its least-read nodes spill to the next-best part. Ties go to the
//      least loaded part, and so do the nodes no batch read, which keeps
//      the parts balanced.
//
// Everything is a pure function of the dataset and the options.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/Partitioner.h"

#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gnnrt {

std::vector<int32_t> frequencyPartition(const Dataset &ds,
                                        const PartitionOptions &options,
                                        AccessCounts *hotnessOut) {
  checkSamplingOptions(options);
  const int64_t n = ds.numNodes;
  const int numParts = options.numParts;
  if (numParts < 1 || numParts > n)
    throw DataError("partition: cannot split " + std::to_string(n) +
                    " nodes into " + std::to_string(numParts) + " parts");
  if (ds.trainIdx.empty())
    throw DataError("partition: frequency partitioning samples from the "
                    "training nodes, and the dataset has none");
  const int64_t fair = (n + numParts - 1) / numParts;
  const int64_t capacity = std::max<int64_t>(
      fair, int64_t(std::floor(double(fair) *
                               (1.0 + double(options.ufactor) / 1000.0))));

  // 1. The training split: a balanced shuffle of the (sorted) training ids.
  std::vector<int32_t> owner(static_cast<size_t>(n), -1);
  std::vector<int64_t> load(static_cast<size_t>(numParts), 0);
  {
    std::vector<int64_t> train = ds.trainIdx;
    std::sort(train.begin(), train.end());
    std::vector<int32_t> split =
        randomPartition(int64_t(train.size()), numParts, options.seed);
    for (size_t k = 0; k < train.size(); ++k) {
      owner[size_t(train[k])] = split[k];
      ++load[size_t(split[k])];
    }
  }

  // 2. Every part's access counts over its share of the seeds.
  AccessCounts hot = sampleAccessCounts(ds, owner, numParts, options);

  // 3. The other nodes, hottest first (by their highest count, then id).
  std::vector<int32_t> peak(static_cast<size_t>(n), 0);
  std::vector<int64_t> order;
  order.reserve(size_t(n));
  for (int64_t v = 0; v < n; ++v) {
    if (owner[size_t(v)] >= 0)
      continue;
    for (int p = 0; p < numParts; ++p)
      peak[size_t(v)] = std::max(peak[size_t(v)], hot.at(p, v));
    order.push_back(v);
  }
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return peak[size_t(a)] > peak[size_t(b)];
  });
  for (int64_t v : order) {
    // The most accesses among parts with room; ties (including "never")
    // to the least loaded, then the lower part.
    int best = -1;
    for (int p = 0; p < numParts; ++p) {
      if (load[size_t(p)] >= capacity)
        continue;
      if (best < 0 || hot.at(p, v) > hot.at(best, v) ||
          (hot.at(p, v) == hot.at(best, v) &&
           load[size_t(p)] < load[size_t(best)]))
        best = p;
    }
    // The capacities hold at least n nodes together, so some part has room.
    owner[size_t(v)] = best;
    ++load[size_t(best)];
  }
  if (hotnessOut)
    *hotnessOut = std::move(hot);
  return owner;
}

} // namespace gnnrt
