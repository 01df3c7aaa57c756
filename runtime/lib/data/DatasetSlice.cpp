//===- DatasetSlice.cpp - Node blocks and the slice reader's dispatch -----===//
//
// See DatasetSlice.h. The layouts' readers, found through the registry
// (DatasetFormats.cpp), live beside their whole-dataset counterparts
// (OgbDataset.cpp, NpyDataset.cpp), which share their row parsers with
// them.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/DatasetSlice.h"

#include "gnnrt/support/Error.h"

#include <cmath>

namespace gnnrt {

namespace {
/// The one layout without slice readers is the heterogeneous one.
[[noreturn]] void throwNoSliceReader(const std::string &dir) {
  throw DataError(dir + ": a heterogeneous dataset has no slice reader; "
                        "load it whole");
}
} // namespace

std::pair<int64_t, int64_t> nodeBlock(int64_t numNodes, int rank,
                                      int numRanks) {
  // Multiply first: exact for any numNodes below 2^63 / numRanks.
  auto at = [&](int r) {
    return numNodes / numRanks * r + numNodes % numRanks * r / numRanks;
  };
  return {at(rank), at(rank + 1)};
}

void checkFiniteRows(const std::string &path, const float *rows, int64_t count,
                     int64_t width, int64_t firstRow) {
  for (int64_t k = 0; k < count; ++k)
    if (!std::isfinite(rows[k]))
      throwDataError(path, 0,
                     "feature " + std::to_string(k % width) +
                         " of node (row) " +
                         std::to_string(firstRow + k / width) + " is " +
                         (std::isnan(rows[k]) ? "nan" : "inf") +
                         " (features must be finite numbers)");
}

DatasetCounts readDatasetCounts(const std::string &path,
                                const LoadOptions &options) {
  std::string dir = path;
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  const DatasetFormatInfo &format = datasetFormat(dir);
  if (!format.readCounts)
    throwNoSliceReader(dir);
  return format.readCounts(dir, options);
}

DatasetSlice readDatasetSlice(const std::string &path,
                              const LoadOptions &options, int rank,
                              int numRanks, bool withFeatures) {
  if (numRanks < 1 || rank < 0 || rank >= numRanks)
    throw DataError("readDatasetSlice: rank " + std::to_string(rank) +
                    " out of range [0, " + std::to_string(numRanks) + ")");
  std::string dir = path;
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  const DatasetFormatInfo &format = datasetFormat(dir);
  if (!format.readSlice)
    throwNoSliceReader(dir);
  return format.readSlice(dir, options, rank, numRanks, withFeatures);
}

} // namespace gnnrt
