//===- OgbDataset.cpp - Reader for the OGB raw node-property layout -------===//
//
// Reads an unpacked OGB node-property dataset (raw/*.csv.gz plus
// split/<name>/*.csv.gz) as written by ogb's DatasetSaver, or the same tables
// uncompressed. The tables themselves are parsed and validated by
// OgbTables.h; this file knows which ones make up the homogeneous layout.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"

#include "OgbTables.h"
#include "gnnrt/support/Error.h"

namespace gnnrt {

static int64_t readNodeCount(const std::string &raw) {
  CsvReader in(requireTable(raw, "num-node-list"));
  std::vector<int64_t> counts = readColumn(in);
  if (counts.size() != 1)
    throwDataError(in.path(), 0,
                   "expected 1 row (a single graph), found " +
                       std::to_string(counts.size()));
  if (counts[0] < 0)
    throwDataError(in.path(), 1,
                   "negative node count " + std::to_string(counts[0]));
  return counts[0];
}

static void readEdges(const std::string &raw, Dataset &ds) {
  CsvReader in(requireTable(raw, "edge"));
  std::vector<std::string_view> fields;
  const int64_t n = ds.numNodes;
  while (in.nextLine()) {
    in.split(fields, 2);
    int64_t u = in.intField(fields[0]), v = in.intField(fields[1]);
    for (int64_t id : {u, v})
      if (id < 0 || id >= n)
        in.fail("node id " + std::to_string(id) + " out of range " +
                rangeText(n));
    ds.src.push_back(u);
    ds.dst.push_back(v);
  }
  if (auto countFile = findTable(raw, "num-edge-list"))
    checkEdgeCount(*countFile, ds.numEdges(), in.path());
}

Dataset readOgbDataset(const std::string &dir, const LoadOptions &options) {
  Dataset ds;
  std::string raw = dir + "/raw";
  ds.numNodes = readNodeCount(raw);
  readEdges(raw, ds);
  if (auto path = findTable(raw, "node-feat"))
    ds.numFeatures = readFeatureTable(*path, ds.numNodes, ds.features);
  if (auto path = findTable(raw, "node-label"))
    ds.labels = readLabelTable(*path, ds.numNodes, options);
  else
    ds.labels.assign(size_t(ds.numNodes), -1);
  std::string split = chooseSplitDirectory(dir, options);
  ds.splitSource = split.empty() ? dir : split;
  readSplitDirectory(split, ds.numNodes, "", ds);
  return ds;
}

} // namespace gnnrt
