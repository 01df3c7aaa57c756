//===- AssignmentCache.h - Partitionings kept beside the data ---*- C++ -*-===//
//
// A distributed trainer given a dataset (not a partition directory)
// partitions it at start-up, on every rank: for a 100k-node graph METIS
// takes about as long as loading it, for millions of nodes minutes. A job
// restarted after a failure (gnn-run) would pay that again each time, for
// the same answer. So the owner of every node is kept beside the dataset's
// binary cache, in `.gnnrt-parts-<key>.bin`, where <key> is a checksum of
// everything the assignment depends on: the nodes, edges, training nodes
// and node types after loading, and the partition options (method, parts,
// balance, seed, imbalance, fanouts). A restart on another rank count has
// another key and partitions afresh. A file that is short, fails its
// checksum or names a part out of range is not used (and is rewritten); a
// file that cannot be written only costs the next start its speed-up.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_PARTITION_ASSIGNMENTCACHE_H
#define GNNRT_PARTITION_ASSIGNMENTCACHE_H

#include "gnnrt/data/Dataset.h"
#include "gnnrt/partition/PartitionOptions.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gnnrt {

/// Whether partitionNodes(ds, options) is worth caching: METIS and
/// frequency partitioning are; a random permutation or an assignment file
/// is as fast to redo as to read.
bool assignmentWorthCaching(const PartitionOptions &options);

/// The cache file in `dir` for partitionNodes(ds, options).
std::string assignmentCachePath(const std::string &dir, const Dataset &ds,
                                const PartitionOptions &options);

/// The assignment in `path` if it is whole and fits (numNodes entries, each
/// in [0, numParts)); std::nullopt otherwise (never throws).
std::optional<std::vector<int32_t>>
readAssignmentCache(const std::string &path, int64_t numNodes, int numParts);

/// Writes `owner` to `path` atomically; false if it cannot.
bool writeAssignmentCache(const std::string &path,
                          const std::vector<int32_t> &owner, int numParts);

} // namespace gnnrt

#endif // GNNRT_PARTITION_ASSIGNMENTCACHE_H
