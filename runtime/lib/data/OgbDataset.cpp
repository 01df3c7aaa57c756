//===- OgbDataset.cpp - Reader for the OGB raw node-property layout -------===//
//
// Reads an unpacked OGB node-property dataset (raw/*.csv.gz plus
// split/<name>/*.csv.gz) as written by ogb's DatasetSaver, or the same tables
// uncompressed. The tables themselves are parsed and validated by
// OgbTables.h; this file knows which ones make up the homogeneous layout.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"
#include "gnnrt/data/DatasetSlice.h"

#include "OgbTables.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <tuple>

namespace fs = std::filesystem;

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

/// Reads the edge table, keeping rows r with r % stride == offset (the
/// whole table by default); every kept row is validated, and every row is
/// counted for the num-edge-list check.
static void readEdges(const std::string &raw, int64_t numNodes,
                      std::vector<int64_t> &src, std::vector<int64_t> &dst,
                      int64_t stride = 1, int64_t offset = 0) {
  CsvReader in(requireTable(raw, "edge"));
  std::vector<std::string_view> fields;
  const int64_t n = numNodes;
  int64_t rows = 0;
  for (; in.nextLine(); ++rows) {
    if (rows % stride != offset)
      continue;
    in.split(fields, 2);
    int64_t u = in.intField(fields[0]), v = in.intField(fields[1]);
    for (int64_t id : {u, v})
      if (id < 0 || id >= n)
        in.fail("node id " + std::to_string(id) + " out of range " +
                rangeText(n));
    src.push_back(u);
    dst.push_back(v);
  }
  if (auto countFile = findTable(raw, "num-edge-list"))
    checkEdgeCount(*countFile, rows, in.path());
}

/// Labels (all -1 without a label table) and the splits, which every rank
/// reads whole (they are a few bytes per node).
static void readNodeTables(const std::string &dir, const LoadOptions &options,
                           int64_t numNodes, Dataset &ds) {
  std::string raw = dir + "/raw";
  if (auto path = findTable(raw, "node-label"))
    ds.labels = readLabelTable(*path, numNodes, options);
  else
    ds.labels.assign(size_t(numNodes), -1);
  std::string split = chooseSplitDirectory(dir, options);
  ds.splitSource = split.empty() ? dir : split;
  readSplitDirectory(split, numNodes, "", ds);
}

Dataset readOgbDataset(const std::string &dir, const LoadOptions &options) {
  Dataset ds;
  std::string raw = dir + "/raw";
  ds.numNodes = readNodeCount(raw);
  readEdges(raw, ds.numNodes, ds.src, ds.dst);
  if (auto path = findTable(raw, "node-feat"))
    ds.numFeatures = readFeatureTable(*path, ds.numNodes, ds.features);
  readNodeTables(dir, options, ds.numNodes, ds);
  return ds;
}

DatasetCounts readOgbDatasetCounts(const std::string &dir,
                                   const LoadOptions &options) {
  DatasetCounts counts;
  const std::string raw = dir + "/raw";
  counts.numNodes = readNodeCount(raw);
  if (auto path = findTable(raw, "node-feat")) {
    CsvReader in(*path);
    std::vector<std::string_view> fields;
    if (in.nextLine()) {
      in.split(fields, 0);
      counts.numFeatures = int64_t(fields.size());
    }
  }
  if (auto path = findTable(raw, "node-label"))
    for (int64_t label : readLabelTable(*path, counts.numNodes, options))
      counts.numClasses = std::max(counts.numClasses, label + 1);
  if (auto countFile = findTable(raw, "num-edge-list")) {
    CsvReader in(*countFile);
    std::vector<int64_t> edges = readColumn(in);
    if (edges.size() != 1 || edges[0] < 0)
      throwDataError(in.path(), 0, "expected one edge count");
    counts.numEdges = edges[0];
  } else {
    CsvReader in(requireTable(raw, "edge"));
    while (in.nextLine())
      ++counts.numEdges;
  }
  return counts;
}

DatasetSlice readOgbDatasetSlice(const std::string &dir,
                                 const LoadOptions &options, int rank,
                                 int numRanks) {
  DatasetSlice slice;
  std::string raw = dir + "/raw";
  slice.numNodes = readNodeCount(raw);
  std::tie(slice.nodeBegin, slice.nodeEnd) =
      nodeBlock(slice.numNodes, rank, numRanks);
  // A gzip stream cannot be entered in the middle: every rank reads the
  // whole table and parses its stripe of rows.
  readEdges(raw, slice.numNodes, slice.src, slice.dst, numRanks, rank);
  if (auto path = findTable(raw, "node-feat"))
    slice.numFeatures = readFeatureTable(*path, slice.numNodes, slice.features,
                                         slice.nodeBegin, slice.nodeEnd);
  Dataset tables;
  readNodeTables(dir, options, slice.numNodes, tables);
  slice.labels = std::move(tables.labels);
  slice.trainIdx = std::move(tables.trainIdx);
  slice.validIdx = std::move(tables.validIdx);
  slice.testIdx = std::move(tables.testIdx);
  return slice;
}

} // namespace gnnrt
