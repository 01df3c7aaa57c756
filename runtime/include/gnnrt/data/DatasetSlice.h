//===- DatasetSlice.h - One rank's share of a dataset -----------*- C++ -*-===//
//
// Partitioning a graph that one process cannot hold (gnn-partition
// --distributed) starts with every rank reading a share of the dataset's
// files: a stripe of the edge list and a contiguous block of feature rows,
// the two tables that grow with the graph. The node-indexed tables that are
// a few bytes per node (labels, the splits) are read whole by every rank.
// Both layouts the serial loader reads are supported, with the same
// validation and the same file:line messages: a value is checked by the
// rank that keeps it, so a bad row is reported by exactly one rank (the
// caller makes every rank agree on the error).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_DATASETSLICE_H
#define GNNRT_DATA_DATASETSLICE_H

#include "gnnrt/data/Dataset.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gnnrt {

/// The rows of one rank, before any LoadOptions are applied.
struct DatasetSlice {
  int64_t numNodes = 0;
  int64_t numFeatures = 0; ///< 0 when the dataset has no features
  /// Feature rows of nodes [nodeBegin, nodeEnd) (nodeBlock), row-major.
  int64_t nodeBegin = 0, nodeEnd = 0;
  std::vector<float> features;
  /// Every node's label (-1 = unlabeled) and the splits, in file order.
  std::vector<int64_t> labels;
  std::vector<int64_t> trainIdx, validIdx, testIdx;
  /// This rank's edges: rows r, r + P, r + 2P, ... of a csv edge table, or
  /// the contiguous block [E r / P, E (r + 1) / P) of an .npy one.
  std::vector<int64_t> src, dst;
  /// A typed dataset's (the typed .npy layout): each of this rank's edges'
  /// relation, and the node types, stored relations and target type every
  /// rank reads whole. Empty for a homogeneous one.
  std::vector<int32_t> edgeType;
  std::vector<NodeType> nodeTypes;
  std::vector<RelationType> relations;
  int32_t targetType = -1;

  bool isTyped() const { return !nodeTypes.empty(); }
};

/// The whole dataset's sizes, as stored (before any LoadOptions), read
/// without loading its features or edges.
struct DatasetCounts {
  int64_t numNodes = 0, numEdges = 0, numFeatures = 0;
  int64_t numClasses = 0; ///< max label + 1 (0 without labels)
  /// A typed dataset's relations as loaded (inverses and `self` included,
  /// as the options add them); 0 untyped.
  int64_t numRelations = 0;
};

/// The counts of a dataset in `dir`: an .npy one's from the arrays'
/// headers and labels.npy (a typed one's relations from types.json); an
/// OGB one's from num-node-list, the first row of node-feat, node-label and
/// num-edge-list (or, without it, by counting edge.csv's rows as they
/// stream past). Memory: the labels. Throws DataError for the typed OGB
/// layout (no slice reader reads it) or as the slice readers do for a
/// count file they cannot parse.
DatasetCounts readDatasetCounts(const std::string &dir,
                                const LoadOptions &options);

/// The nodes [begin, end) whose per-node rows rank `rank` of `numRanks`
/// holds: contiguous blocks whose sizes differ by at most one.
std::pair<int64_t, int64_t> nodeBlock(int64_t numNodes, int rank, int numRanks);

/// Reads rank `rank`'s slice of the dataset in `dir` (either layout;
/// options.splitName and options.numClasses apply as in loadDataset).
/// Throws DataError naming the file (and line) of the first problem in the
/// rows this rank checks. An .npy dataset needs features.npy or labels.npy
/// (the node count cannot come from edge ids no single rank sees).
/// `withFeatures` false leaves an .npy slice's `features` empty (the
/// header still gives numFeatures): for parts that will read their rows
/// where they are. An OGB slice always parses its rows.
DatasetSlice readDatasetSlice(const std::string &dir,
                              const LoadOptions &options, int rank,
                              int numRanks, bool withFeatures = true);

/// Throws DataError naming `path` and the row and column of the first
/// nan or inf among `count` floats, rows of `width` from node `firstRow`:
/// it would surface epochs later as "training diverged".
void checkFiniteRows(const std::string &path, const float *rows, int64_t count,
                     int64_t width, int64_t firstRow);

/// The two layouts' readers (readDatasetCounts and readDatasetSlice
/// dispatch).
DatasetCounts readOgbDatasetCounts(const std::string &dir,
                                   const LoadOptions &options);
DatasetCounts readNpyDatasetCounts(const std::string &dir,
                                   const LoadOptions &options);
DatasetCounts readNpyHeteroDatasetCounts(const std::string &dir,
                                         const LoadOptions &options);
DatasetSlice readOgbDatasetSlice(const std::string &dir,
                                 const LoadOptions &options, int rank,
                                 int numRanks);
DatasetSlice readNpyDatasetSlice(const std::string &dir,
                                 const LoadOptions &options, int rank,
                                 int numRanks, bool withFeatures = true);
/// The typed .npy layout's slice: readNpyDatasetSlice's, plus types.json
/// and the block of edge_type.npy beside the edges', checked as
/// readNpyHeteroDataset checks the whole (a relation out of range or
/// joining the wrong node types names its edge_type.npy row).
DatasetSlice readNpyHeteroDatasetSlice(const std::string &dir,
                                       const LoadOptions &options, int rank,
                                       int numRanks, bool withFeatures = true);

} // namespace gnnrt

#endif // GNNRT_DATA_DATASETSLICE_H
