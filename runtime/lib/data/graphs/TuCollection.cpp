//===- TuCollection.cpp - Reader for TU's raw graph-collection format -----===//
//
// The TUDataset collection (Morris et al., graphlearning.io) stores all the
// graphs of a dataset DS as one block-diagonal graph in comma-separated
// text files, ids 1-based:
//
//   DS_graph_indicator.txt  one row per node: the graph it belongs to
//   DS_A.txt                one row per directed edge: node, node
//   DS_graph_labels.txt     one row per graph: its class (integer), or
//   DS_graph_attributes.txt one row per graph: its regression target
//   DS_node_labels.txt      (optional) discrete node labels, one or more
//   DS_node_attributes.txt  (optional) float node attributes
//   DS_edge_labels.txt, DS_edge_attributes.txt  (optional) the same per edge
//   DS_splits.json          (optional) Errica et al.'s folds (GraphFolds.h)
//
// Every file may be gzip-compressed (`.txt.gz`). Features follow PyG's
// TUDataset(use_node_attr=True, use_edge_attr=True): the attributes, then
// each label column one-hot over [its min, its max]; graph classes are the
// ranks of the distinct label values (PROTEINS' 1, 2 become 0, 1). Edges are
// kept as stored (PyG also drops self-loops and repeats; NCI1, PROTEINS and
// ENZYMES have neither).
//
//===----------------------------------------------------------------------===//

#include "graphs/GraphReaders.h"

#include "gnnrt/data/GraphFolds.h"
#include "gnnrt/graph/Graph.h"
#include "gnnrt/io/CsvReader.h"
#include "gnnrt/support/Error.h"
#include "ogb/OgbTables.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace fs = std::filesystem;

namespace gnnrt {

namespace {

constexpr const char *kIndicator = "_graph_indicator.txt";

/// `<dir>/<prefix>_<stem>.txt.gz`, else `.txt`, if either exists.
std::optional<std::string> tuFile(const std::string &dir,
                                  const std::string &prefix,
                                  const std::string &stem) {
  std::error_code ec;
  const std::string base = dir + "/" + prefix + "_" + stem + ".txt";
  for (const std::string &path : {base + ".gz", base})
    if (fs::is_regular_file(path, ec))
      return path;
  return std::nullopt;
}

std::string rowsMessage(int64_t expected, const std::string &per,
                        int64_t found) {
  return "expected " + std::to_string(expected) + " rows (one per " + per +
         "), found " + std::to_string(found);
}

/// Reads the graph indicator into nodeOffsets: a graph's nodes must be
/// consecutive rows, graphs numbered 1, 2, ... without gaps. Returns each
/// node's graph (0-based).
std::vector<int64_t> readIndicator(const std::string &path,
                                   GraphCollection &graphs) {
  CsvReader in(path);
  std::vector<std::string_view> fields;
  std::vector<int64_t> graphOf;
  int64_t current = 0; // the previous node's graph, 1-based; 0 before any
  while (in.nextLine()) {
    in.split(fields, 1);
    const int64_t g = in.intField(fields[0]);
    const int64_t node = int64_t(graphOf.size()) + 1;
    if (g < 1)
      in.fail("graph id " + std::to_string(g) +
              " out of range (graph ids start at 1)");
    if (g < current)
      in.fail("node " + std::to_string(node) + " is in graph " +
              std::to_string(g) + " after a node of graph " +
              std::to_string(current) +
              " (the nodes of a graph must be consecutive)");
    if (g > current + 1)
      in.fail("graph " + std::to_string(current + 1) + " has no nodes (node " +
              std::to_string(node) + " is in graph " + std::to_string(g) +
              (current ? ", node " + std::to_string(node - 1) + " in graph " +
                             std::to_string(current)
                       : std::string()) +
              ")");
    if (g == current + 1 && current)
      graphs.nodeOffsets.push_back(node - 1);
    current = g;
    graphOf.push_back(g - 1);
  }
  if (graphOf.empty())
    throwDataError(path, 0, "no nodes");
  graphs.nodeOffsets.push_back(int64_t(graphOf.size()));
  return graphOf;
}

/// A table of `rows` rows of integers, all of the first row's width;
/// returns the width.
int64_t readIntTable(const std::string &path, int64_t rows, const char *per,
                     std::vector<int64_t> &out) {
  CsvReader in(path);
  std::vector<std::string_view> fields;
  int64_t width = 0, row = 0;
  for (; in.nextLine(); ++row) {
    in.split(fields, size_t(width));
    width = int64_t(fields.size());
    for (std::string_view field : fields)
      out.push_back(in.intField(field));
  }
  if (row != rows)
    throwDataError(path, 0, rowsMessage(rows, per, row));
  return width;
}

/// The features of `rows` nodes or edges: `<stem>_attributes` (floats),
/// then each column of `<stem>_labels` one-hot over [min, max].
struct TuFeatures {
  int64_t width = 0;
  std::vector<float> values;
};

TuFeatures readTuFeatures(const std::string &dir, const std::string &prefix,
                          const std::string &stem, int64_t rows) {
  const char *noun = stem == "node" ? "node" : "edge";
  std::vector<float> attributes;
  int64_t attributeWidth = 0;
  if (auto path = tuFile(dir, prefix, stem + "_attributes"))
    attributeWidth = readFeatureTable(*path, rows, attributes, 0, -1, noun);
  std::vector<int64_t> labels;
  int64_t labelColumns = 0;
  std::vector<int64_t> low, span;
  if (auto path = tuFile(dir, prefix, stem + "_labels")) {
    labelColumns = readIntTable(*path, rows, noun, labels);
    for (int64_t c = 0; c < labelColumns; ++c) {
      int64_t lo = labels[c], hi = labels[c];
      for (int64_t r = 0; r < rows; ++r) {
        lo = std::min(lo, labels[r * labelColumns + c]);
        hi = std::max(hi, labels[r * labelColumns + c]);
      }
      // A one-hot column per value: a label column of ids in the millions
      // is not a label. (The distance in unsigned arithmetic: hi - lo
      // overflows int64 for labels of both signs.)
      if (uint64_t(hi) - uint64_t(lo) >= (uint64_t(1) << 16))
        throwDataError(*path, 0,
                       "column " + std::to_string(c + 1) + " spans labels " +
                           std::to_string(lo) + " to " + std::to_string(hi) +
                           ": too many values to one-hot (at most 65536)");
      low.push_back(lo);
      span.push_back(hi - lo + 1);
    }
  }
  TuFeatures out;
  out.width = attributeWidth;
  for (int64_t s : span)
    out.width += s;
  out.values.assign(size_t(rows * out.width), 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    float *row = out.values.data() + r * out.width;
    std::copy_n(attributes.data() + r * attributeWidth, attributeWidth, row);
    int64_t at = attributeWidth;
    for (int64_t c = 0; c < labelColumns; ++c) {
      row[at + labels[r * labelColumns + c] - low[c]] = 1.0f;
      at += span[c];
    }
  }
  return out;
}

/// Graph labels (classes, as ranks of the distinct values) or, without
/// them, graph attributes (regression targets).
void readGraphLabels(const std::string &dir, const std::string &prefix,
                     const std::string &indicator, GraphCollection &graphs) {
  const int64_t numGraphs = graphs.numGraphs();
  const std::string per = "graph of " + fileName(indicator);
  if (auto path = tuFile(dir, prefix, "graph_labels")) {
    std::vector<int64_t> values;
    CsvReader in(*path);
    std::vector<std::string_view> fields;
    while (in.nextLine()) {
      in.split(fields, 1);
      values.push_back(in.intField(fields[0]));
    }
    if (int64_t(values.size()) != numGraphs)
      throwDataError(*path, 0,
                     rowsMessage(numGraphs, per, int64_t(values.size())));
    std::map<int64_t, int64_t> rank;
    for (int64_t v : values)
      rank[v] = 0;
    for (auto &[value, r] : rank)
      r = graphs.numClasses++;
    graphs.classes.reserve(values.size());
    for (int64_t v : values)
      graphs.classes.push_back(rank[v]);
    graphs.task = GraphTask::Classification;
    return;
  }
  if (auto path = tuFile(dir, prefix, "graph_attributes")) {
    const int64_t width =
        readFeatureTable(*path, numGraphs, graphs.targets, 0, -1, "graph");
    if (width != 1)
      throwDataError(*path, 0,
                     "expected 1 column (one target per graph), found " +
                         std::to_string(width));
    graphs.task = GraphTask::Regression;
    return;
  }
  throwDataError(dir + "/" + prefix + "_graph_labels.txt", 0,
                 "no such file (nor " + prefix + "_graph_attributes.txt)");
}

/// Reads DS_A: 1-based node ids, both in one graph. Edges are stored
/// grouped by graph, in file order within a graph; returns the
/// permutation applied (empty when the file was grouped already).
std::vector<int64_t> readTuEdges(const std::string &path,
                                 const std::string &indicator,
                                 const std::vector<int64_t> &graphOf,
                                 GraphCollection &graphs) {
  const int64_t numNodes = int64_t(graphOf.size());
  CsvReader in(path);
  std::vector<std::string_view> fields;
  std::vector<int64_t> edgeGraph;
  bool grouped = true;
  while (in.nextLine()) {
    in.split(fields, 2);
    int64_t ends[2];
    for (int k = 0; k < 2; ++k) {
      ends[k] = in.intField(fields[k]);
      if (ends[k] < 1)
        in.fail("node id " + std::to_string(ends[k]) +
                " out of range (node ids start at 1)");
      if (ends[k] > numNodes)
        in.fail("node " + std::to_string(ends[k]) + " is in no graph (" +
                fileName(indicator) + " has " + std::to_string(numNodes) +
                " nodes)");
    }
    const int64_t gu = graphOf[ends[0] - 1], gv = graphOf[ends[1] - 1];
    if (gu != gv)
      in.fail("edge " + std::to_string(ends[0]) + ", " +
              std::to_string(ends[1]) + " joins graph " +
              std::to_string(gu + 1) + " and graph " + std::to_string(gv + 1) +
              " (an edge must stay inside its graph)");
    grouped = grouped && (edgeGraph.empty() || edgeGraph.back() <= gu);
    edgeGraph.push_back(gu);
    graphs.src.push_back(ends[0] - 1);
    graphs.dst.push_back(ends[1] - 1);
  }
  const int64_t numGraphs = graphs.numGraphs();
  graphs.edgeOffsets.assign(size_t(numGraphs + 1), 0);
  for (int64_t g : edgeGraph)
    ++graphs.edgeOffsets[g + 1];
  for (int64_t g = 0; g < numGraphs; ++g)
    graphs.edgeOffsets[g + 1] += graphs.edgeOffsets[g];
  if (grouped)
    return {};
  std::vector<int64_t> order = countingSortOrder(numGraphs, edgeGraph);
  std::vector<int64_t> src(order.size()), dst(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    src[k] = graphs.src[order[k]];
    dst[k] = graphs.dst[order[k]];
  }
  graphs.src = std::move(src);
  graphs.dst = std::move(dst);
  return order;
}

} // namespace

std::optional<std::string> tuPrefix(const std::string &dir) {
  std::set<std::string> prefixes;
  std::error_code ec;
  for (const fs::directory_entry &entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0)
      name.resize(name.size() - 3);
    const size_t suffix = std::char_traits<char>::length(kIndicator);
    if (name.size() > suffix &&
        name.compare(name.size() - suffix, suffix, kIndicator) == 0)
      prefixes.insert(name.substr(0, name.size() - suffix));
  }
  if (prefixes.empty())
    return std::nullopt;
  if (prefixes.size() > 1)
    throwDataError(dir, 0,
                   "several TU datasets (" + *prefixes.begin() + ", " +
                       *std::next(prefixes.begin()) +
                       "): expected one <DS>_graph_indicator.txt");
  return *prefixes.begin();
}

GraphCollection readTuCollection(const std::string &dir,
                                 const std::string &prefix) {
  GraphCollection graphs;
  const std::string indicator = *tuFile(dir, prefix, "graph_indicator");
  const std::vector<int64_t> graphOf = readIndicator(indicator, graphs);
  readGraphLabels(dir, prefix, indicator, graphs);

  auto edgeFile = tuFile(dir, prefix, "A");
  if (!edgeFile)
    throwDataError(dir + "/" + prefix + "_A.txt", 0, "no such file");
  const std::vector<int64_t> order =
      readTuEdges(*edgeFile, indicator, graphOf, graphs);

  TuFeatures nodes = readTuFeatures(dir, prefix, "node", graphs.numNodes());
  graphs.numFeatures = nodes.width;
  graphs.features = std::move(nodes.values);
  TuFeatures edges = readTuFeatures(dir, prefix, "edge", graphs.numEdges());
  graphs.numEdgeFeatures = edges.width;
  if (order.empty() || !edges.width) {
    graphs.edgeFeatures = std::move(edges.values);
  } else {
    // The edge rows follow the edges into graph order.
    const int64_t w = edges.width;
    graphs.edgeFeatures.resize(edges.values.size());
    for (size_t k = 0; k < order.size(); ++k)
      std::copy_n(edges.values.data() + order[k] * w, w,
                  graphs.edgeFeatures.data() + int64_t(k) * w);
  }

  const std::string folds = dir + "/" + prefix + "_splits.json";
  std::error_code ec;
  if (fs::is_regular_file(folds, ec)) {
    graphs.folds = readErricaFolds(folds, graphs.numGraphs());
    graphs.foldSource = folds;
  }
  return graphs;
}

} // namespace gnnrt
