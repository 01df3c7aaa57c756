//===- PartitionPlan.h - Edges, halos and counts of every part --*- C++ -*-===//
//
// Step 2 of partitioning (see Partition.h): `buildPartitionPlan` places each
// edge with the owner of its destination (default: aggregation at a
// destination is local once the remote source rows have arrived) or of its
// source (GLT's edge_assign_strategy), and derives every part's halo (the
// remote endpoints of its edges) and the halo-exchange tables; optionally
// (`addFeatureCache`) every part's feature cache: the hottest remote nodes
// of its pre-sampled epoch, whose input rows it also stores.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_PARTITION_PARTITIONPLAN_H
#define GNNRT_PARTITION_PARTITIONPLAN_H

#include "gnnrt/data/Dataset.h"
#include "gnnrt/partition/PartitionOptions.h"
#include "gnnrt/partition/PartitionSampling.h"

#include <cstdint>
#include <vector>

namespace gnnrt {

/// Sizes of one part, as the manifest records them.
struct PartCounts {
  int64_t ownedNodes = 0;
  int64_t edges = 0;                      ///< edges stored in this part
  int64_t haloNodes = 0;                  ///< remote endpoints of those edges
  int64_t sendNodes = 0;                  ///< sum of the send lists' lengths
  int64_t train = 0, valid = 0, test = 0; ///< owned nodes of each split
  int64_t cutEdges = 0;    ///< stored edges whose other endpoint is a halo node
  int64_t cachedNodes = 0; ///< remote nodes whose feature rows it caches

  bool operator==(const PartCounts &o) const;
};

/// A partitioning of a whole graph: who owns each node, which edges each part
/// stores and which remote nodes each part needs. Built once (from the full
/// dataset) and then used to extract parts one at a time.
struct PartitionPlan {
  int numParts = 0;
  EdgeAssign edgeAssign = EdgeAssign::Dst;
  /// Per global node: its part, and its position among that part's nodes.
  std::vector<int32_t> owner;
  std::vector<int64_t> localId;
  /// Global node ids grouped by part, ascending within a part: part p owns
  /// partNodes[nodeOffsets[p] .. nodeOffsets[p + 1]).
  std::vector<int64_t> nodeOffsets, partNodes;
  /// Edge ids (positions in the dataset's edge list) grouped by part,
  /// ascending within a part.
  std::vector<int64_t> edgeOffsets, partEdges;
  /// Halo global ids grouped by part; within a part sorted by (owner, id).
  std::vector<int64_t> haloOffsets, haloNodes;
  std::vector<PartCounts> counts;
  /// Edges whose endpoints have different owners (the sum of cutEdges).
  int64_t edgeCut = 0;
  /// The feature cache (selectFeatureCache; without one every part's list
  /// is empty): part p also holds the feature rows of the remote nodes
  /// cachedNodes[cacheOffsets[p] .. cacheOffsets[p + 1]), ascending within
  /// a part.
  double cacheRatio = 0;
  std::vector<int64_t> cacheOffsets, cachedNodes;
};

/// Builds the plan for the node assignment `owner` (one entry per node, in
/// [0, numParts)). Throws DataError for a wrong length or an entry out of
/// range.
PartitionPlan buildPartitionPlan(const Dataset &ds, std::vector<int32_t> owner,
                                 int numParts, EdgeAssign assign);

/// Gives every part of `plan` a feature cache of its floor(cacheRatio x
/// owned nodes) remote nodes with the highest access counts in `hotness`
/// (ties: lower id first); never-accessed nodes are not cached, so a part
/// whose batches touch fewer remote nodes caches fewer. cacheRatio 0
/// clears the cache.
void selectFeatureCache(PartitionPlan &plan, const AccessCounts &hotness,
                        double cacheRatio);

/// selectFeatureCache with options.cacheRatio, the hotness pre-sampled
/// over plan.owner (sampleAccessCounts). Throws DataError for invalid
/// sampling options.
void addFeatureCache(PartitionPlan &plan, const Dataset &ds,
                     const PartitionOptions &options);

} // namespace gnnrt

#endif // GNNRT_PARTITION_PARTITIONPLAN_H
