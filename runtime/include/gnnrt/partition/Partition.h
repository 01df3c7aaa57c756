//===- Partition.h - What one rank of a partitioned graph holds -*- C++ -*-===//
//
// Distributed full-graph training runs one rank per part of the graph.
// Partitioning goes from a loaded Dataset to what one rank holds in three
// steps, one header each:
//
//   1. node ownership (Partitioner.h): `partitionNodes` assigns every node
//      to a part, with METIS, at random, by access frequency (from the
//      pre-sampled epochs of PartitionSampling.h) or from a file;
//   2. the plan (PartitionPlan.h): `buildPartitionPlan` places every edge
//      and derives every part's halo and halo-exchange tables, and
//      optionally (`addFeatureCache`) every part's feature cache;
//   3. one part (here): `extractPartition` materializes part p alone (local
//      CSR, halo tables, owned rows of features, labels and splits, cached
//      rows), which is what `writePartitions` stores per directory and what
//      `readPartition` gives back to a rank without reading the rest
//      (PartitionDirectory.h, with the manifest of PartitionManifest.h).
//
// Local node ids of a part are [owned nodes..., halo nodes...]: owned nodes
// in ascending global id, then halo nodes grouped by owning part (ascending)
// and by global id within an owner. Because every part orders its halo the
// same way, the rows part a sends to part b are exactly b's halo rows owned
// by a, in the same order, and no ids travel during an exchange.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_PARTITION_PARTITION_H
#define GNNRT_PARTITION_PARTITION_H

#include "gnnrt/data/Dataset.h"
#include "gnnrt/partition/PartitionOptions.h"
#include "gnnrt/partition/PartitionPlan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

class Communicator;

/// Everything one rank holds. Local ids: [0, numOwned()) are owned nodes,
/// [numOwned(), numLocal()) the halo.
struct Partition {
  int part = 0, numParts = 1;
  EdgeAssign edgeAssign = EdgeAssign::Dst;
  int64_t numGlobalNodes = 0, numFeatures = 0, numClasses = 0;
  /// Global ids of the owned nodes (ascending) and of the halo nodes.
  std::vector<int64_t> ownedNodes, haloNodes;
  /// The part that owns each halo node.
  std::vector<int32_t> haloOwners;
  /// Local CSR by destination over all local nodes: the in-edges of local
  /// node v are [indptr[v], indptr[v + 1]), sources (local ids) ascending in
  /// `indices`. Under EdgeAssign::Dst only owned rows have edges (a halo row
  /// is empty); under Src every source is owned.
  std::vector<int64_t> indptr;
  std::vector<int32_t> indices;
  /// The dataset edge id of each local edge (to index per-edge data).
  std::vector<int64_t> edgeIds;
  /// The halo exchange. recvOffsets (numParts + 1): the halo rows owned by
  /// part q are halo positions [recvOffsets[q], recvOffsets[q + 1]), i.e.
  /// local ids numOwned() + that. sendNodes[sendOffsets[q] ..
  /// sendOffsets[q + 1]) are the owned local ids whose rows part q holds as
  /// halo, in q's halo order. Forward (Dst): send those rows, receive the
  /// halo rows; the reverse direction (gradients, or Src partial sums) sends
  /// halo rows back and adds them into the send-list rows.
  std::vector<int64_t> recvOffsets, sendOffsets, sendNodes;
  /// Owned rows: features [numOwned x numFeatures] and labels (-1 =
  /// unlabeled); the splits as ascending owned local ids.
  std::vector<float> features;
  /// Set instead of `features` when the rows are read where they are
  /// (PartitionManifest::featuresInPlace): the dataset's features.npy,
  /// whose rows ownedNodes[0] .. ownedNodes[0] + numOwned() - 1 are this
  /// part's.
  std::string featuresFile;
  std::vector<int64_t> labels;
  std::vector<int64_t> trainIdx, validIdx, testIdx;
  /// The feature cache: global ids of remote nodes (ascending) whose feature
  /// rows this part holds too, and those rows [numCached x numFeatures].
  std::vector<int64_t> cachedNodes;
  std::vector<float> cachedFeatures;
  /// A heterogeneous dataset's types (empty otherwise): the node types and
  /// relations of the whole graph (global ids, as in Dataset), the target
  /// type, and the relation of each local edge (parallel to `indices`).
  std::vector<NodeType> nodeTypes;
  std::vector<RelationType> relations;
  int32_t targetType = -1;
  std::vector<int32_t> edgeTypes;

  int64_t numOwned() const { return int64_t(ownedNodes.size()); }
  int64_t numCached() const { return int64_t(cachedNodes.size()); }
  int64_t numHalo() const { return int64_t(haloNodes.size()); }
  int64_t numLocal() const { return numOwned() + numHalo(); }
  int64_t numEdges() const { return int64_t(indices.size()); }
};

/// Materializes part `part` of the plan. Only that part's rows are copied.
Partition extractPartition(const Dataset &ds, const PartitionPlan &plan,
                           int part);

/// Turns a part stored with EdgeAssign::Src (GLT's edges by source) into the
/// part EdgeAssign::Dst stores for the same nodes: the edges whose
/// destination another part owns move there, and the halo and send lists
/// are rebuilt (EdgesToDestinations.cpp). Collective: every rank calls it
/// with its own part. Returns the edges moved between ranks, over all
/// ranks (0 for parts already by destination).
int64_t assignEdgesToDestinations(Partition &part, Communicator &comm);

} // namespace gnnrt

#endif // GNNRT_PARTITION_PARTITION_H
