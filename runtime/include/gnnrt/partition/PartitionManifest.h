//===- PartitionManifest.h - A partitioning's manifest.json -----*- C++ -*-===//
//
// The one file of a partition directory every rank reads whole: how the
// graph was partitioned and the dataset loaded, and the sizes of every part
// (what gnn-partition info reports balance from). Its fields are described
// in docs/partitioning.md.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_PARTITION_PARTITIONMANIFEST_H
#define GNNRT_PARTITION_PARTITIONMANIFEST_H

#include "gnnrt/data/Dataset.h"
#include "gnnrt/partition/PartitionOptions.h"
#include "gnnrt/partition/PartitionPlan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// The contents of manifest.json.
struct PartitionManifest {
  int64_t version = 2;
  PartitionMethod method = PartitionMethod::Metis;
  int numParts = 1;
  /// METIS constraints (empty for other methods).
  std::vector<BalanceConstraint> balance;
  EdgeAssign edgeAssign = EdgeAssign::Dst;
  uint64_t seed = 0;
  int64_t ufactor = 30;
  /// METIS's objective (undirected edge cut of its input graph); -1 when
  /// the method is not METIS.
  int64_t metisObjective = -1;
  /// Pre-sampling: the training fanouts (layer 0 first) and batch size the
  /// frequency assignment or the cache was computed with (empty / 0 when
  /// none), and the cache ratio (0: no cache files).
  std::vector<int64_t> fanouts;
  int64_t batchSize = 0;
  double cacheRatio = 0;
  /// How the dataset was loaded (what the trainer must load identically).
  std::string dataset, split, assignmentFile;
  /// The dataset's features.npy (an absolute path) when the parts read
  /// their feature rows there instead of holding a copy in
  /// part<k>/features.npy; then every part owns a contiguous range of node
  /// ids, its rows one slice of that file. Empty: each part has its copy.
  std::string featuresInPlace;
  bool addReverseEdges = true, addSelfLoops = false, dedupe = true;
  int64_t numNodes = 0, numEdges = 0, numFeatures = 0, numClasses = 0;
  int64_t numTrain = 0, numValid = 0, numTest = 0;
  int64_t edgeCut = 0;
  std::vector<PartCounts> parts;
  /// A heterogeneous dataset's node types, relations and target type
  /// (version 2; empty for homogeneous data and in version 1 manifests).
  std::vector<NodeType> nodeTypes;
  std::vector<RelationType> relations;
  int32_t targetType = -1;
};

/// Fills the count fields of `manifest` (global sizes, edge cut, per-part
/// counts) and the cache ratio from the dataset and the plan; the other
/// fields are kept.
void fillManifestCounts(PartitionManifest &manifest, const Dataset &ds,
                        const PartitionPlan &plan);

/// Serializes / parses manifest.json. The reader checks the format tag,
/// version, every field's type and the per-part list's length; errors name
/// `file`.
std::string manifestToJson(const PartitionManifest &manifest);
PartitionManifest manifestFromJson(const std::string &file,
                                   const std::string &text);

/// Reads DIR/manifest.json. Throws DataError if it is missing or corrupt.
PartitionManifest readPartitionManifest(const std::string &dir);

/// One balance figure: the largest part's total over the mean part's.
struct BalanceStat {
  std::string name; ///< "nodes", "edges", "train" or "halo"
  int64_t max = 0;
  double mean = 0;
  double ratio() const { return mean > 0 ? double(max) / mean : 1.0; }
};

/// Balance of owned nodes, edges, training nodes and halo nodes over the
/// parts of a manifest (each max / mean).
std::vector<BalanceStat> partitionBalance(const PartitionManifest &manifest);

} // namespace gnnrt

#endif // GNNRT_PARTITION_PARTITIONMANIFEST_H
