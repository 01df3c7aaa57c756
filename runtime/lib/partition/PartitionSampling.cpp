//===- PartitionSampling.cpp - Pre-sampled epochs over a partitioning -----===//
//
// Sampled distributed training (GLT, DistDGL) trains part p on the training
// nodes it owns and gathers the input rows of every sampled batch; rows of
// nodes it does not own come from another part. How many that is depends on
// which nodes the batches actually read, not on the edge cut alone, so both
// the frequency partitioner and the comparison of partitionings sample one
// epoch per part ahead of time, exactly as training would (the same
// NeighborSampler over the whole graph, the same fanouts and batch size):
//
//   - sampleAccessCounts: how often each part's batches read each node
//     (GLT's access probability), which decides ownership and caches;
//   - estimateRemoteRows: the remote rows of an epoch under a finished
//     plan, and how many its feature caches serve.
//
// The two draw from different random streams, so an estimate is made on an
// epoch the assignment and the caches have not seen. Parts are independent
// and sampled in parallel (one thread per part, OpenMP when available); each
// writes only its own counters, so results do not depend on the thread count.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/PartitionPlan.h"
#include "gnnrt/partition/PartitionSampling.h"

#include "gnnrt/graph/Graph.h"
#include "gnnrt/io/TableWriter.h"
#include "gnnrt/sample/Sampler.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/Random.h"

#include <algorithm>
#include <exception>

namespace gnnrt {

namespace {
/// The random streams of the two pre-samplings ("HOTS", "ESTM"), apart from
/// the random partitioner's and the generator's.
constexpr uint64_t kHotnessStream = uint64_t(0x484F5453) << 32;
constexpr uint64_t kEstimateStream = uint64_t(0x4553544D) << 32;

/// The sampling seed of one purpose, derived from the user's seed.
uint64_t streamSeed(uint64_t seed, uint64_t stream) {
  std::array<uint32_t, 4> bits = randomBits(seed, stream, 0);
  return (uint64_t(bits[0]) << 32) | bits[1];
}

/// Each part's training seeds under `owner` (ascending ids).
std::vector<std::vector<int64_t>>
trainingSeeds(const Dataset &ds, const std::vector<int32_t> &owner,
              int numParts) {
  std::vector<int64_t> train = ds.trainIdx;
  std::sort(train.begin(), train.end());
  std::vector<std::vector<int64_t>> seeds(static_cast<size_t>(numParts));
  for (int64_t t : train) {
    int32_t p = owner[size_t(t)];
    if (p < 0 || p >= numParts)
      throw DataError("partition: training node " + std::to_string(t) +
                      " is assigned to part " + std::to_string(p) +
                      ", expected [0, " + std::to_string(numParts) + ")");
    seeds[size_t(p)].push_back(t);
  }
  return seeds;
}

/// Samples one epoch of every part (part p from seeds[p]) and calls
/// visit(p, batch) for each batch, in order within a part; different parts
/// may be visited concurrently.
template <typename Visit>
void sampleEpochPerPart(const Dataset &ds,
                        const std::vector<std::vector<int64_t>> &seeds,
                        const PartitionOptions &options, uint64_t stream,
                        Visit visit) {
  if (options.fanouts.empty())
    throw DataError("partition: pre-sampling needs the training fanouts");
  const Graph graph = Graph::fromEdges(ds.numNodes, ds.src, ds.dst);
  const Adjacency adj{ds.numNodes, graph.inOffsets().data(),
                      graph.inSources().data(), nullptr};
  SamplerOptions so;
  so.fanouts = options.fanouts;
  so.seed = streamSeed(options.seed, stream);
  const NeighborSampler sampler(adj, ds.numNodes, so);
  const int numParts = int(seeds.size());
  std::vector<std::exception_ptr> errors(seeds.size());

#pragma omp parallel for schedule(dynamic, 1)
  for (int p = 0; p < numParts; ++p) {
    try {
      const std::vector<int64_t> &mine = seeds[size_t(p)];
      if (mine.empty())
        continue;
      std::vector<int64_t> order =
          epochSeedOrder(mine, /*shuffle=*/true, so.seed, /*epoch=*/0);
      BlockBuilder builder(ds.numNodes);
      SampledBatch batch;
      const int64_t size = int64_t(order.size());
      for (int64_t b = 0, at = 0; at < size; ++b, at += options.batchSize) {
        // Batch keys are distinct across parts: (part, batch).
        SampleKey key{so.seed, 0, (uint64_t(p) << 32) | uint64_t(b)};
        sampler.sample(order.data() + at,
                       std::min(options.batchSize, size - at), key, builder,
                       batch);
        visit(p, batch);
      }
    } catch (...) {
      errors[size_t(p)] = std::current_exception();
    }
  }
  for (const std::exception_ptr &e : errors)
    if (e)
      std::rethrow_exception(e);
}
} // namespace

void checkSamplingOptions(const PartitionOptions &options) {
  for (size_t i = 0; i < options.fanouts.size(); ++i)
    if (options.fanouts[i] < 1 && options.fanouts[i] != -1)
      throw DataError("partition: fanout " + std::to_string(i) + " is " +
                      std::to_string(options.fanouts[i]) +
                      ", expected > 0 or -1 (all neighbours)");
  if (options.batchSize < 1)
    throw DataError("partition: the batch size must be at least 1 (got " +
                    std::to_string(options.batchSize) + ")");
  if (!(options.cacheRatio >= 0 && options.cacheRatio <= 1))
    throw DataError("partition: the cache ratio must lie in [0, 1] (got " +
                    shortestText(options.cacheRatio) + ")");
  if (options.fanouts.empty() && options.method == PartitionMethod::Frequency)
    throw DataError("partition: frequency partitioning needs the training "
                    "fanouts");
  if (options.fanouts.empty() && options.cacheRatio > 0)
    throw DataError("partition: a feature cache needs the training fanouts "
                    "(its hotness comes from pre-sampling)");
}

AccessCounts sampleAccessCounts(const Dataset &ds,
                                const std::vector<int32_t> &owner, int numParts,
                                const PartitionOptions &options) {
  checkSamplingOptions(options);
  if (int64_t(owner.size()) != ds.numNodes)
    throw DataError("partition: the assignment has " +
                    std::to_string(owner.size()) + " entries for " +
                    std::to_string(ds.numNodes) + " nodes");
  AccessCounts hot;
  hot.numParts = numParts;
  hot.numNodes = ds.numNodes;
  hot.counts.assign(size_t(numParts) * size_t(ds.numNodes), 0);
  std::vector<int64_t> batches(static_cast<size_t>(numParts), 0);
  sampleEpochPerPart(ds, trainingSeeds(ds, owner, numParts), options,
                     kHotnessStream, [&](int p, const SampledBatch &batch) {
                       int32_t *mine =
                           hot.counts.data() + size_t(p) * size_t(ds.numNodes);
                       for (int64_t v : batch.nodes)
                         ++mine[v];
                       ++batches[size_t(p)];
                     });
  for (int64_t b : batches)
    hot.batches += b;
  return hot;
}

RemoteRowEstimate estimateRemoteRows(const Dataset &ds,
                                     const PartitionPlan &plan,
                                     const PartitionOptions &options) {
  checkSamplingOptions(options);
  const size_t parts = size_t(plan.numParts), n = size_t(ds.numNodes);
  // Cache membership, one bit per (part, node): a lookup per remote row.
  std::vector<uint64_t> cached;
  if (!plan.cachedNodes.empty()) {
    cached.assign((parts * n + 63) / 64, 0);
    for (size_t p = 0; p < parts; ++p)
      for (int64_t k = plan.cacheOffsets[p]; k < plan.cacheOffsets[p + 1];
           ++k) {
        size_t bit = p * n + size_t(plan.cachedNodes[size_t(k)]);
        cached[bit / 64] |= uint64_t(1) << (bit % 64);
      }
  }
  std::vector<RemoteRowEstimate> perPart(parts);
  sampleEpochPerPart(ds, trainingSeeds(ds, plan.owner, plan.numParts), options,
                     kEstimateStream, [&](int p, const SampledBatch &batch) {
                       RemoteRowEstimate &e = perPart[size_t(p)];
                       ++e.batches;
                       e.inputRows += int64_t(batch.nodes.size());
                       for (int64_t v : batch.nodes) {
                         if (plan.owner[size_t(v)] == p)
                           continue;
                         ++e.remoteRows;
                         size_t bit = size_t(p) * n + size_t(v);
                         if (!cached.empty() &&
                             (cached[bit / 64] >> (bit % 64) & 1))
                           ++e.cacheHits;
                       }
                     });
  RemoteRowEstimate total;
  for (const RemoteRowEstimate &e : perPart) {
    total.batches += e.batches;
    total.inputRows += e.inputRows;
    total.remoteRows += e.remoteRows;
    total.cacheHits += e.cacheHits;
  }
  return total;
}

} // namespace gnnrt
