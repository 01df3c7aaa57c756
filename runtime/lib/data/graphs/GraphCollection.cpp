//===- GraphCollection.cpp - The graph-collection layouts and loader ------===//
//
// See gnnrt/data/GraphCollection.h. One entry per layout, in detection
// order; the readers live in their layouts' files (TuCollection.cpp,
// OgbGraphCollection.cpp).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/GraphCollection.h"

#include "gnnrt/support/Error.h"
#include "graphs/GraphReaders.h"
#include "ogb/OgbTables.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace gnnrt {

namespace {

bool isTu(const std::string &dir) { return tuPrefix(dir).has_value(); }

GraphCollection readTu(const std::string &dir) {
  return readTuCollection(dir, *tuPrefix(dir));
}

bool isOgbGraph(const std::string &dir) {
  return findTable(dir + "/raw", "graph-label").has_value();
}

struct GraphCollectionFormatInfo {
  GraphCollectionFormat format;
  const char *name;
  bool (*detect)(const std::string &dir);
  GraphCollection (*read)(const std::string &dir);
};

const GraphCollectionFormatInfo kCollectionFormats[] = {
    {GraphCollectionFormat::Tu, "tu", isTu, readTu},
    {GraphCollectionFormat::OgbGraph, "ogb-graph", isOgbGraph,
     readOgbGraphCollection},
};

const GraphCollectionFormatInfo *detect(const std::string &dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return nullptr;
  for (const GraphCollectionFormatInfo &info : kCollectionFormats)
    if (info.detect(dir))
      return &info;
  return nullptr;
}

} // namespace

std::string fileName(const std::string &path) {
  return fs::path(path).filename().string();
}

const char *graphCollectionFormatName(GraphCollectionFormat format) {
  for (const GraphCollectionFormatInfo &info : kCollectionFormats)
    if (info.format == format)
      return info.name;
  return "?";
}

bool isGraphCollection(const std::string &dir, GraphCollectionFormat *format) {
  const GraphCollectionFormatInfo *info = detect(dir);
  if (info && format)
    *format = info->format;
  return info != nullptr;
}

GraphCollection loadGraphCollection(const std::string &dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throwDataError(dir, 0, "no such dataset directory");
  const GraphCollectionFormatInfo *info = detect(dir);
  if (!info)
    throwDataError(
        dir, 0,
        "not a graph collection (expected "
        "<DS>_graph_indicator.txt[.gz] or raw/graph-label.csv[.gz])");
  return info->read(dir);
}

void addReverseEdges(GraphCollection &graphs) {
  const int64_t width = graphs.numEdgeFeatures;
  std::vector<int64_t> src, dst, offsets{0};
  std::vector<float> features;
  src.reserve(2 * graphs.src.size());
  dst.reserve(2 * graphs.dst.size());
  features.reserve(2 * graphs.edgeFeatures.size());
  for (int64_t g = 0; g < graphs.numGraphs(); ++g) {
    const int64_t begin = graphs.edgeOffsets[g],
                  end = graphs.edgeOffsets[g + 1];
    for (int pass = 0; pass < 2; ++pass) {
      const std::vector<int64_t> &from = pass ? graphs.dst : graphs.src;
      const std::vector<int64_t> &to = pass ? graphs.src : graphs.dst;
      src.insert(src.end(), from.begin() + begin, from.begin() + end);
      dst.insert(dst.end(), to.begin() + begin, to.begin() + end);
      features.insert(features.end(),
                      graphs.edgeFeatures.begin() + begin * width,
                      graphs.edgeFeatures.begin() + end * width);
    }
    offsets.push_back(int64_t(src.size()));
  }
  graphs.src = std::move(src);
  graphs.dst = std::move(dst);
  graphs.edgeFeatures = std::move(features);
  graphs.edgeOffsets = std::move(offsets);
}

} // namespace gnnrt
