//===- PartitionFiles.h - File names of a partition directory ---*- C++ -*-===//
//
// Internal to gnnrt: the one list of names the writer and the reader share
// (docs/partitioning.md describes each file).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_PARTITION_PARTITIONFILES_H
#define GNNRT_LIB_PARTITION_PARTITIONFILES_H

namespace gnnrt::partition_files {

// Top level.
constexpr const char *kManifest = "manifest.json";
constexpr const char *kNodeOwner = "node_owner.npy"; ///< int32 [N]

// Inside part<k>/.
constexpr const char *kNodes = "nodes.npy";              ///< int64 [owned]
constexpr const char *kHaloNodes = "halo_nodes.npy";     ///< int64 [halo]
constexpr const char *kHaloOwner = "halo_owner.npy";     ///< int32 [halo]
constexpr const char *kIndptr = "indptr.npy";            ///< int64 [local+1]
constexpr const char *kIndices = "indices.npy";          ///< int32 [edges]
constexpr const char *kEdgeIds = "edge_ids.npy";         ///< int64 [edges]
/// Heterogeneous datasets only (the manifest lists relations).
constexpr const char *kEdgeTypes = "edge_types.npy";     ///< int32 [edges]
constexpr const char *kRecvOffsets = "recv_offsets.npy"; ///< int64 [P+1]
constexpr const char *kSendOffsets = "send_offsets.npy"; ///< int64 [P+1]
constexpr const char *kSendNodes = "send_nodes.npy";     ///< int64 [send]
constexpr const char *kFeatures = "features.npy";        ///< float32 [owned, F]
constexpr const char *kLabels = "labels.npy";            ///< int64 [owned]
constexpr const char *kTrainIdx = "train_idx.npy";       ///< int64 local ids
constexpr const char *kValidIdx = "valid_idx.npy";
constexpr const char *kTestIdx = "test_idx.npy";
// The feature cache, only when the manifest's cache_ratio > 0.
constexpr const char *kCachedNodes = "cached_nodes.npy"; ///< int64 [cached]
constexpr const char *kCachedFeatures =
    "cached_features.npy"; ///< float32 [cached, F]

} // namespace gnnrt::partition_files

#endif // GNNRT_LIB_PARTITION_PARTITIONFILES_H
