//===- PartitionDirectory.h - Partitions on disk ----------------*- C++ -*-===//
//
// Step 3 of partitioning (see Partition.h) on disk (docs/partitioning.md):
// OUT/manifest.json, OUT/node_owner.npy (the partition book: the owner of
// every global node) and OUT/part<k>/*.npy (with cached_nodes.npy and
// cached_features.npy when there is a cache). `writePartitions` stores every
// part, `readPartition` gives one rank its part without reading the rest.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_PARTITION_PARTITIONDIRECTORY_H
#define GNNRT_PARTITION_PARTITIONDIRECTORY_H

#include "gnnrt/data/Dataset.h"
#include "gnnrt/partition/Partition.h"
#include "gnnrt/partition/PartitionManifest.h"
#include "gnnrt/partition/PartitionPlan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// The directory of part k inside a partition directory: "part<k>".
std::string partDirectoryName(int part);

/// Writes manifest.json, node_owner.npy and one directory per part to
/// `outDir`, atomically: everything is written into a temporary sibling
/// directory that replaces `outDir` only once complete, so an error leaves
/// no partial output (and an earlier partitioning there intact). Refuses to
/// replace an existing non-empty directory that is not a partitioning.
/// `manifest` must already hold the plan's counts and cache ratio
/// (fillManifestCounts; DataError otherwise). Each part directory gets the
/// cache files when the plan has a cache (cache ratio > 0).
void writePartitions(const std::string &outDir, const Dataset &ds,
                     const PartitionPlan &plan,
                     const PartitionManifest &manifest);

/// Reads part `rank` for a run of `numRanks` ranks: the manifest and that
/// part's files only. Throws DataError if the manifest's part count differs
/// from numRanks, or a part file is missing, truncated, of the wrong dtype
/// or shape, or holds an id out of range. When the manifest has a cache
/// ratio, the part's cache files are read too (cached_nodes.npy: ascending
/// ids, none owned by the part; cached_features.npy). `manifest`, if given,
/// receives the manifest.
Partition readPartition(const std::string &dir, int rank, int numRanks,
                        PartitionManifest *manifest = nullptr);

/// Reads DIR/node_owner.npy: the part of every global node.
std::vector<int32_t> readPartitionBook(const std::string &dir);

} // namespace gnnrt

#endif // GNNRT_PARTITION_PARTITIONDIRECTORY_H
