//===- Dataset.h - Node-classification datasets and their loaders -*- C++ -*-=//
//
// A Dataset is everything a node-classification trainer needs from disk: the
// edge list, a dense float32 feature matrix, one int64 label per node and the
// train/valid/test node ids. It is read from either the OGB raw node-property
// layout (csv or csv.gz, as unpacked from an OGB download) or a directory of
// NumPy arrays, validated (every id in range, every row the right width) so
// that the kernels downstream never bounds-check, post-processed by
// LoadOptions (reverse edges, self loops, dedupe) and cached in a binary file
// next to the data so that the next run skips parsing text entirely.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_DATASET_H
#define GNNRT_DATA_DATASET_H

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// A loaded node-classification dataset. Node ids are 0..numNodes-1.
struct Dataset {
  int64_t numNodes = 0;
  int64_t numFeatures = 0; ///< 0 when the dataset has no features
  int64_t numClasses = 0;  ///< max label + 1 (0 when nothing is labeled)
  /// numNodes x numFeatures, row-major.
  std::vector<float> features;
  /// One per node; -1 marks an unlabeled node.
  std::vector<int64_t> labels;
  /// Node ids of each split, in file order, without duplicates.
  std::vector<int64_t> trainIdx, validIdx, testIdx;
  /// Edge e goes from src[e] to dst[e] (messages flow src -> dst).
  std::vector<int64_t> src, dst;

  int64_t numEdges() const { return int64_t(src.size()); }
};

/// How to post-process and cache a dataset. Edge options apply in the order
/// listed: reverse edges, then self loops, then dedupe.
struct LoadOptions {
  /// Append (v, u) for every edge (u, v), as OGB's add_inverse_edge does:
  /// the result has 2E edges, the reversed copies after the originals.
  bool addReverseEdges = false;
  /// Append (v, v) for every node.
  bool addSelfLoops = false;
  /// Remove repeated (src, dst) pairs; the result is sorted by (src, dst).
  bool dedupe = false;
  /// The split directory under split/ (OGB layout). Empty: "public" if it
  /// exists, else the first directory in name order, else no split.
  std::string splitName;
  /// If > 0, labels must lie in [0, numClasses) and the dataset reports this
  /// many classes even if the largest class is absent.
  int64_t numClasses = 0;
  /// Read and write the binary cache.
  bool useCache = true;
  /// Where cache files go; empty means the dataset directory itself.
  std::string cacheDir;
};

/// The on-disk layout of a dataset directory.
enum class DatasetFormat { Ogb, Npy };

/// Detects the layout of `dir`: Ogb if raw/edge.csv[.gz] exists, Npy if
/// edge_index.npy or src.npy does. Throws DataError otherwise.
DatasetFormat detectDatasetFormat(const std::string &dir);

/// Loads a dataset of either layout, through the cache when enabled.
/// Throws DataError with a user-facing message for any problem. If
/// `fromCache` is given, it is set to whether the cache served the load.
Dataset loadDataset(const std::string &dir, const LoadOptions &options = {},
                    bool *fromCache = nullptr);

/// Parses the OGB raw layout without cache or post-processing: raw/edge.csv,
/// raw/node-feat.csv (optional), raw/node-label.csv (optional),
/// raw/num-node-list.csv, raw/num-edge-list.csv (optional, checked) and
/// split/<name>/{train,valid,test}.csv; each file may also be .csv.gz.
/// Labels may be -1 or nan for unlabeled nodes.
Dataset readOgbDataset(const std::string &dir, const LoadOptions &options);

/// Parses a directory of .npy arrays without cache or post-processing:
/// edge_index.npy ([2, E]) or src.npy + dst.npy ([E]), integer typed;
/// features.npy ([N, F] float32/float64, optional); labels.npy ([N], integer,
/// or float with NaN for unlabeled; optional); train_idx.npy, valid_idx.npy,
/// test_idx.npy (optional). N is the row count of features or labels, or
/// else max node id + 1.
/// Labels are checked against options.numClasses when it is set.
Dataset readNpyDataset(const std::string &dir, const LoadOptions &options);

/// Applies the edge options of `options` to `ds` in place and sets
/// ds.numClasses (options.numClasses, or else max label + 1).
void finalizeDataset(Dataset &ds, const LoadOptions &options);

/// Writes `ds` in the OGB raw layout with split name `splitName`; gzip
/// compresses every file (.csv.gz) unless `gzip` is false (.csv). Output is
/// a deterministic function of `ds` (floats in shortest round-trip form).
void writeOgbDataset(const std::string &dir, const Dataset &ds,
                     const std::string &splitName = "random", bool gzip = true);

/// Writes `ds` as edge_index.npy (int64 [2, E]), features.npy (float32
/// [N, F]), labels.npy (int64 [N]) and {train,valid,test}_idx.npy (int64).
void writeNpyDataset(const std::string &dir, const Dataset &ds);

} // namespace gnnrt

#endif // GNNRT_DATA_DATASET_H
