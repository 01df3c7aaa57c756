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
#include "gnnrt/data/DatasetStream.h"

#include "gnnrt/support/Error.h"
#include "gnnrt/io/AtomicFile.h"
#include "ogb/OgbTables.h"

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

/// Parses the edge table's current row: two node ids in [0, numNodes).
static void parseEdgeRow(CsvReader &in, std::vector<std::string_view> &fields,
                         int64_t numNodes, int64_t &u, int64_t &v) {
  in.split(fields, 2);
  u = in.intField(fields[0]);
  v = in.intField(fields[1]);
  for (int64_t id : {u, v})
    if (id < 0 || id >= numNodes)
      in.fail("node id " + std::to_string(id) + " out of range " +
              rangeText(numNodes));
}

/// Reads the edge table, keeping rows r with r % stride == offset (the
/// whole table by default); every kept row is validated, and every row is
/// counted for the num-edge-list check.
static void readEdges(const std::string &raw, int64_t numNodes,
                      std::vector<int64_t> &src, std::vector<int64_t> &dst,
                      int64_t stride = 1, int64_t offset = 0) {
  CsvReader in(requireTable(raw, "edge"));
  std::vector<std::string_view> fields;
  int64_t rows = 0;
  for (; in.nextLine(); ++rows) {
    if (rows % stride != offset)
      continue;
    int64_t u, v;
    parseEdgeRow(in, fields, numNodes, u, v);
    src.push_back(u);
    dst.push_back(v);
  }
  if (auto countFile = findTable(raw, "num-edge-list"))
    checkEdgeCount(*countFile, rows, in.path());
}

/// num-edge-list's count, or without it the edge table's rows, counted.
static int64_t readEdgeCount(const std::string &raw) {
  if (auto countFile = findTable(raw, "num-edge-list")) {
    CsvReader in(*countFile);
    std::vector<int64_t> edges = readColumn(in);
    if (edges.size() != 1 || edges[0] < 0)
      throwDataError(in.path(), 0, "expected one edge count");
    return edges[0];
  }
  CsvReader in(requireTable(raw, "edge"));
  int64_t rows = 0;
  while (in.nextLine())
    ++rows;
  return rows;
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
  counts.numEdges = readEdgeCount(raw);
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

void convertOgbToNpy(const std::string &dir, const std::string &out,
                     const LoadOptions &options) {
  const std::string raw = dir + "/raw";
  // The node tables (a few bytes per node) whole; features and edges as
  // the writer asks for them, in order, parsed once.
  Dataset nodes;
  nodes.numNodes = readNodeCount(raw);
  readNodeTables(dir, options, nodes.numNodes, nodes);
  const int64_t numEdges = readEdgeCount(raw);
  std::optional<FeatureTableReader> features;
  if (auto path = findTable(raw, "node-feat")) {
    features.emplace(*path, nodes.numNodes);
    nodes.numFeatures = features->width();
  }
  const auto countFile = findTable(raw, "num-edge-list");
  CsvReader edges(requireTable(raw, "edge"));
  std::vector<std::string_view> fields;
  // num-edge-list's count against the table's rows (or the table against
  // its own count, if it changed between the passes).
  auto wrongEdgeCount = [&](int64_t rows) {
    if (countFile)
      checkEdgeCount(*countFile, rows, edges.path());
    throwDataError(edges.path(), 0,
                   "expected " + std::to_string(numEdges) +
                       " rows as counted, found " + std::to_string(rows));
  };
  DatasetStream stream;
  stream.nodes = &nodes;
  stream.numEdges = numEdges;
  stream.featureRows = [&](int64_t, int64_t count, float *rows) {
    features->read(count, rows);
  };
  stream.edges = [&](int64_t first, int64_t count, int64_t *src, int64_t *dst) {
    for (int64_t e = 0; e < count; ++e) {
      if (!edges.nextLine())
        wrongEdgeCount(first + e);
      parseEdgeRow(edges, fields, nodes.numNodes, src[e], dst[e]);
    }
  };

  // Written whole or not at all: a bad row or SIGTERM leaves nothing.
  writeDirectoryWhole(out, [&](const std::string &temp) {
    writeNpyDataset(temp, stream);
    if (features)
      features->finish();
    int64_t rows = numEdges;
    while (edges.nextLine())
      ++rows;
    if (rows != numEdges)
      wrongEdgeCount(rows);
  });
}

} // namespace gnnrt
