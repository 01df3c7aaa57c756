//===- DatasetFormats.cpp - The registry of dataset layouts ---------------===//
//
// See gnnrt/data/DatasetFormat.h. One entry per layout, in detection order:
// the heterogeneous OGB layout before the homogeneous one (both have raw/).
// The readers live in their layouts' files (OgbDataset.cpp,
// OgbHeteroDataset.cpp, NpyDataset.cpp); what a layout can do beyond
// reading is decided here, from its files.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/DatasetFormat.h"

#include "gnnrt/data/Dataset.h"
#include "gnnrt/data/DatasetSlice.h"
#include "gnnrt/data/DatasetStream.h"
#include "gnnrt/data/GraphCollection.h"
#include "gnnrt/io/Npy.h"
#include "gnnrt/support/Error.h"

#include <filesystem>
#include <stdexcept>

namespace fs = std::filesystem;

namespace gnnrt {

namespace {

bool isFile(const std::string &path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

bool isOgbHetero(const std::string &dir) {
  return isFile(dir + "/raw/num-node-dict.csv.gz") ||
         isFile(dir + "/raw/num-node-dict.csv");
}

bool isOgb(const std::string &dir) {
  std::error_code ec;
  return fs::is_directory(dir + "/raw", ec);
}

bool isNpy(const std::string &dir) {
  return isFile(dir + "/edge_index.npy") || isFile(dir + "/src.npy");
}

DatasetSlice readOgbSlice(const std::string &dir, const LoadOptions &options,
                          int rank, int numRanks, bool /*withFeatures*/) {
  // csv rows are parsed to be skipped anyway: the slice keeps its features.
  return readOgbDatasetSlice(dir, options, rank, numRanks);
}

/// The node count comes from features.npy or labels.npy; edge ids alone
/// are spread over the ranks.
bool npyCountsWithoutEdges(const std::string &dir) {
  return isFile(dir + "/features.npy") || isFile(dir + "/labels.npy");
}

/// features.npy when float32, as the kernels read it (another dtype is
/// converted, hence copied).
std::string npyFeaturesInPlace(const std::string &dir) {
  const std::string path = dir + "/features.npy";
  if (!isFile(path) || readNpyHeader(path).type != NpyType::Float32)
    return "";
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

const DatasetFormatInfo kFormats[] = {
    {DatasetFormat::OgbHetero, "ogb-hetero", isOgbHetero, readOgbHeteroDataset,
     /*readCounts=*/nullptr, /*readSlice=*/nullptr,
     /*countsWithoutEdges=*/nullptr, /*featuresInPlace=*/nullptr,
     /*convertToNpy=*/nullptr},
    {DatasetFormat::Ogb, "ogb", isOgb, readOgbDataset, readOgbDatasetCounts,
     readOgbSlice, /*countsWithoutEdges=*/nullptr,
     /*featuresInPlace=*/nullptr, convertOgbToNpy},
    // Before "npy": the same arrays with types.json beside them.
    {DatasetFormat::NpyHetero, "npy-hetero", isNpyHeteroDirectory,
     readNpyHeteroDataset, readNpyHeteroDatasetCounts,
     readNpyHeteroDatasetSlice, npyCountsWithoutEdges,
     /*featuresInPlace=*/nullptr, /*convertToNpy=*/nullptr},
    {DatasetFormat::Npy, "npy", isNpy, readNpyDataset, readNpyDatasetCounts,
     readNpyDatasetSlice, npyCountsWithoutEdges, npyFeaturesInPlace,
     /*convertToNpy=*/nullptr},
};

} // namespace

const DatasetFormatInfo &datasetFormat(const std::string &dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throwDataError(dir, 0, "no such dataset directory");
  // OGB's graph-property layout has raw/ too: say what it is rather than
  // fail on its per-graph tables.
  GraphCollectionFormat graphs;
  if (isGraphCollection(dir, &graphs))
    throwDataError(dir, 0,
                   std::string("a collection of graphs (") +
                       graphCollectionFormatName(graphs) +
                       " layout), not a node dataset (gnn-data info "
                       "describes it)");
  for (const DatasetFormatInfo &format : kFormats)
    if (format.detect(dir))
      return format;
  throwDataError(dir, 0,
                 "not a dataset directory (expected raw/edge.csv[.gz] or "
                 "edge_index.npy)");
}

const DatasetFormatInfo &datasetFormatInfo(DatasetFormat format) {
  for (const DatasetFormatInfo &info : kFormats)
    if (info.format == format)
      return info;
  throw std::logic_error("datasetFormatInfo: an unregistered format");
}

DatasetFormat detectDatasetFormat(const std::string &dir) {
  return datasetFormat(dir).format;
}

const char *datasetFormatName(DatasetFormat format) {
  return datasetFormatInfo(format).name;
}

} // namespace gnnrt
