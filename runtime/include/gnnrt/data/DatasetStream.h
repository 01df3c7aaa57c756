//===- DatasetStream.h - A dataset written in pieces ------------*- C++ -*-===//
//
// The dataset writers (Dataset.h's writeOgbDataset and writeNpyDataset)
// take the two tables that grow with the graph, its feature rows and its
// edges, as ranges drawn on demand rather than as vectors, so that a
// generated dataset larger than memory is written without being held
// (writeGeneratedDataset, Generator.h). A Dataset in memory is written
// through the same code: its ranges are copies of its vectors' rows, so
// the two give the same bytes.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_DATASETSTREAM_H
#define GNNRT_DATA_DATASETSTREAM_H

#include "gnnrt/data/Dataset.h"

#include <cstdint>
#include <functional>
#include <string>

namespace gnnrt {

/// A homogeneous dataset whose feature rows and edges are produced by
/// range, in increasing order, each range once.
struct DatasetStream {
  /// numNodes, numFeatures, labels, the splits and which it has; its
  /// features and edges are not read.
  const Dataset *nodes = nullptr;
  int64_t numEdges = 0;
  /// Writes feature rows [first, first + count) into rows[count x F].
  std::function<void(int64_t first, int64_t count, float *rows)> featureRows;
  /// Writes edges [first, first + count) into src[count] and dst[count].
  std::function<void(int64_t first, int64_t count, int64_t *src, int64_t *dst)>
      edges;
};

/// writeOgbDataset and writeNpyDataset of a homogeneous dataset given by
/// range; the files are those of the Dataset whose rows the ranges hold.
/// Memory: one chunk of rows (a few MiB) besides the caller's tables.
void writeOgbDataset(const std::string &dir, const DatasetStream &data,
                     const std::string &splitName = "random", bool gzip = true);
void writeNpyDataset(const std::string &dir, const DatasetStream &data);

/// Converts the homogeneous OGB-layout dataset in `dir` (csv or csv.gz) to
/// .npy arrays in `out`: the files writeNpyDataset writes for the dataset
/// as loaded (no load options but options.splitName and numClasses), byte
/// for byte. Each table is parsed once, feature rows and edges a chunk at
/// a time as they are written (without num-edge-list the edge table is
/// counted first), so memory is the node tables and one chunk. Throws
/// DataError at the file and line of the first bad row; `out` (written
/// under `out.partial`, renamed when complete) is then not created.
void convertOgbToNpy(const std::string &dir, const std::string &out,
                     const LoadOptions &options = {});

} // namespace gnnrt

#endif // GNNRT_DATA_DATASETSTREAM_H
