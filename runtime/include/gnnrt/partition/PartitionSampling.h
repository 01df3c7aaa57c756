//===- PartitionSampling.h - Pre-sampled training epochs --------*- C++ -*-===//
//
// Sampled distributed training reads the input rows of the nodes its
// batches sample, so how good a partitioning (or a feature cache) is depends
// on which nodes those batches read. These functions sample an epoch per
// part ahead of time, as training would: the access counts that frequency
// partitioning and the feature cache are chosen by, and the remote rows a
// finished plan would fetch.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_PARTITION_PARTITIONSAMPLING_H
#define GNNRT_PARTITION_PARTITIONSAMPLING_H

#include "gnnrt/data/Dataset.h"
#include "gnnrt/partition/PartitionOptions.h"

#include <cstdint>
#include <vector>

namespace gnnrt {

struct PartitionPlan;

/// Throws DataError unless the sampling options make sense: every fanout
/// > 0 or -1, batchSize >= 1, cacheRatio in [0, 1], and fanouts given when
/// the method is Frequency or cacheRatio > 0.
void checkSamplingOptions(const PartitionOptions &options);

/// How often each part's sampled training batches read each node's input
/// row over one epoch: the batches of part p whose level-0 nodes (the
/// nodes whose features a batch gathers) include v. GLT's access
/// probability, as a count.
struct AccessCounts {
  int numParts = 0;
  int64_t numNodes = 0;
  int64_t batches = 0; ///< sampled batches, all parts together
  /// counts[p * numNodes + v]: part p's batches that read node v.
  std::vector<int32_t> counts;

  int32_t at(int part, int64_t node) const {
    return counts[size_t(part) * size_t(numNodes) + size_t(node)];
  }
};

/// Pre-samples one epoch per part: part p's seeds are the training nodes
/// that `owner` puts in p (other nodes' entries are not read), shuffled and
/// cut into batches of options.batchSize, each sampled over the whole graph
/// with options.fanouts (without replacement), as distributed sampled
/// training would. Deterministic in options.seed; parts are sampled in
/// parallel, with the same result for any thread count.
AccessCounts sampleAccessCounts(const Dataset &ds,
                                const std::vector<int32_t> &owner, int numParts,
                                const PartitionOptions &options);

/// Remote input rows of one epoch of distributed sampled training.
struct RemoteRowEstimate {
  int64_t batches = 0;   ///< sampled batches, all parts together
  int64_t inputRows = 0; ///< level-0 nodes of all batches
  /// Of those, nodes the batch's part does not own: rows fetched remotely.
  int64_t remoteRows = 0;
  int64_t cacheHits = 0; ///< of the remote rows, those in the part's cache
};

/// Estimates the remote feature rows an epoch of sampled training fetches
/// under `plan`: part p trains on the training nodes it owns, in batches of
/// options.batchSize sampled with options.fanouts; each level-0 node of its
/// batches that p does not own is a remote row, served by p's feature
/// cache if the plan has one. The epoch is sampled from its own random
/// stream, not the one that chose the assignment or the cache, so a cache
/// is not credited for the very draws it was chosen from.
RemoteRowEstimate estimateRemoteRows(const Dataset &ds,
                                     const PartitionPlan &plan,
                                     const PartitionOptions &options);

} // namespace gnnrt

#endif // GNNRT_PARTITION_PARTITIONSAMPLING_H
