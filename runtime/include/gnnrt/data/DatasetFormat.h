//===- DatasetFormat.h - The on-disk layouts a dataset can have -*- C++ -*-===//
//
// Each layout a dataset directory can have is registered once, in
// lib/data/DatasetFormats.cpp, with its name, how it is recognised, its
// readers and what it can do. The loader (loadDataset), the slice readers
// (readDatasetCounts, readDatasetSlice) and the trainer's schedules ask the
// registry, never a file name, so a new layout is one entry there plus its
// readers. The binary cache (DatasetCache.h) is not a layout: it sits in
// front of every layout's whole-dataset reader.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_DATASETFORMAT_H
#define GNNRT_DATA_DATASETFORMAT_H

#include <string>

namespace gnnrt {

struct Dataset;
struct DatasetCounts;
struct DatasetSlice;
struct LoadOptions;

/// The on-disk layout of a dataset directory.
enum class DatasetFormat { Ogb, OgbHetero, Npy, NpyHetero };

/// One registered layout. The readers take the directory without a
/// trailing slash.
struct DatasetFormatInfo {
  DatasetFormat format;
  /// "ogb", "ogb-hetero", "npy" or "npy-hetero".
  const char *name;
  /// Whether `dir` (an existing directory) has this layout. Detection tries
  /// the layouts in registry order and takes the first match.
  bool (*detect)(const std::string &dir);
  /// Parses the whole dataset without cache or post-processing
  /// (readOgbDataset, readOgbHeteroDataset, readNpyDataset).
  Dataset (*read)(const std::string &dir, const LoadOptions &options);
  /// The slice readers (DatasetSlice.h); null where the layout has none.
  /// `withFeatures` false may leave the slice's feature rows unread, for
  /// parts that read them in place.
  DatasetCounts (*readCounts)(const std::string &dir,
                              const LoadOptions &options);
  DatasetSlice (*readSlice)(const std::string &dir, const LoadOptions &options,
                            int rank, int numRanks, bool withFeatures);
  /// Whether the slice readers can size this dataset (its node count)
  /// without reading every edge; null: whenever readCounts exists.
  bool (*countsWithoutEdges)(const std::string &dir);
  /// The absolute path of a float32 [N, F] .npy file holding the features,
  /// which parts may map and read their rows from in place; "" when there
  /// is none. Null: the layout never has one. Throws DataError for a
  /// malformed header.
  std::string (*featuresInPlace)(const std::string &dir);
  /// For a layout whose rows a rank cannot seek to (gzip text): writes the
  /// dataset as .npy arrays (convertOgbToNpy), which it can. Null where the
  /// rows are addressable already or the NumPy layout cannot hold them.
  void (*convertToNpy)(const std::string &dir, const std::string &out,
                       const LoadOptions &options);
};

/// The layout of `dir` (without a trailing slash). Throws DataError for a
/// missing directory or one no layout recognises.
const DatasetFormatInfo &datasetFormat(const std::string &dir);

/// The registry's entry for `format`.
const DatasetFormatInfo &datasetFormatInfo(DatasetFormat format);

/// Detects the layout of `dir`: OgbHetero if raw/num-node-dict.csv[.gz]
/// exists, else Ogb if raw/ does, Npy if edge_index.npy or src.npy does.
/// Throws DataError otherwise.
DatasetFormat detectDatasetFormat(const std::string &dir);

/// "ogb", "ogb-hetero" or "npy".
const char *datasetFormatName(DatasetFormat format);

} // namespace gnnrt

#endif // GNNRT_DATA_DATASETFORMAT_H
