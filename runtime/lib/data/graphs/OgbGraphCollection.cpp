//===- OgbGraphCollection.cpp - Reader for OGB's graph-property layout ----===//
//
// The layout ogb's DatasetSaver writes for graph property prediction
// (ogbg-molhiv, ogbg-ppa, PCQM4M), every table `.csv` or `.csv.gz`:
//
//   raw/num-node-list    one row per graph: its node count (>= 1)
//   raw/num-edge-list    one row per graph: its edge count
//   raw/edge             the graphs' edges in graph order, node ids local to
//                        their graph: graph g's are rows [sum of the edge
//                        counts before g, + its count)
//   raw/graph-label      one row per graph: an integer class, or a float
//                        target (any non-integer value makes it regression)
//   raw/node-feat        (optional) one row of floats per node, graph order
//   raw/edge-feat        (optional) one row of floats per edge
//   split/<name>/{train,valid,test}   graph ids; each split one fold
//
// The tables are parsed by OgbTables.h's readers where the node-level
// layout has the same table; this file checks what a collection adds.
//
//===----------------------------------------------------------------------===//

#include "graphs/GraphReaders.h"

#include "gnnrt/data/Dataset.h"
#include "gnnrt/io/CsvReader.h"
#include "gnnrt/support/Error.h"
#include "ogb/OgbTables.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>

namespace fs = std::filesystem;

namespace gnnrt {

namespace {

/// Appends `count` to the running total of `offsets`, or fails at the
/// current row when the total would pass int64's range.
void addCount(CsvReader &in, int64_t count, const char *noun,
              std::vector<int64_t> &offsets) {
  if (count > INT64_MAX - offsets.back())
    in.fail(std::string("the ") + noun + " counts sum past " +
            std::to_string(INT64_MAX));
  offsets.push_back(offsets.back() + count);
}

/// num-node-list: every graph has a node.
void readNodeCounts(const std::string &raw, GraphCollection &graphs) {
  CsvReader in(requireTable(raw, "num-node-list"));
  std::vector<std::string_view> fields;
  while (in.nextLine()) {
    in.split(fields, 1);
    const int64_t count = in.intField(fields[0]);
    const int64_t g = graphs.numGraphs();
    if (count < 1)
      in.fail("graph " + std::to_string(g) + " has " +
              (count ? std::to_string(count) + " nodes" : "no nodes"));
    addCount(in, count, "node", graphs.nodeOffsets);
  }
  if (graphs.numGraphs() == 0)
    throwDataError(in.path(), 0, "no graphs");
}

void readEdgeCounts(const std::string &raw, const std::string &nodeList,
                    GraphCollection &graphs) {
  CsvReader in(requireTable(raw, "num-edge-list"));
  std::vector<std::string_view> fields;
  int64_t rows = 0;
  for (; in.nextLine(); ++rows) {
    in.split(fields, 1);
    const int64_t count = in.intField(fields[0]);
    if (count < 0)
      in.fail("graph " + std::to_string(rows) + " has " +
              std::to_string(count) + " edges");
    addCount(in, count, "edge", graphs.edgeOffsets);
  }
  if (rows != graphs.numGraphs())
    throwDataError(in.path(), 0,
                   "expected " + std::to_string(graphs.numGraphs()) +
                       " rows (one per graph of " + fileName(nodeList) +
                       "), found " + std::to_string(rows));
}

/// edge: row r belongs to the graph whose edge range holds r, and both its
/// ids lie in that graph.
void readEdges(const std::string &raw, const std::string &edgeList,
               GraphCollection &graphs) {
  CsvReader in(requireTable(raw, "edge"));
  std::vector<std::string_view> fields;
  const int64_t expected = graphs.numEdges();
  graphs.src.reserve(size_t(std::min(expected, kReserveRows)));
  graphs.dst.reserve(size_t(std::min(expected, kReserveRows)));
  int64_t row = 0, g = 0;
  auto wrongCount = [&](int64_t found) {
    throwDataError(in.path(), 0,
                   "expected " + std::to_string(expected) +
                       " rows (the sum of " + fileName(edgeList) + "), found " +
                       std::to_string(found));
  };
  for (; in.nextLine(); ++row) {
    if (row == expected) {
      while (in.nextLine())
        ++row;
      wrongCount(row + 1);
    }
    while (graphs.edgeOffsets[g + 1] <= row)
      ++g;
    in.split(fields, 2);
    const int64_t nodes = graphs.nodeCount(g);
    for (int k = 0; k < 2; ++k) {
      const int64_t id = in.intField(fields[k]);
      if (id < 0 || id >= nodes)
        in.fail("node " + std::to_string(id) + " is not in graph " +
                std::to_string(g) + " (its nodes are " + rangeText(nodes) +
                ")");
      (k ? graphs.dst : graphs.src).push_back(graphs.nodeOffsets[g] + id);
    }
  }
  if (row != expected)
    wrongCount(row);
}

/// graph-label: classes when every value is an integer, else targets.
void readGraphLabels(const std::string &raw, GraphCollection &graphs) {
  CsvReader in(requireTable(raw, "graph-label"));
  std::vector<std::string_view> fields;
  std::vector<int64_t> classes;
  std::vector<float> targets;
  bool integers = true;
  int64_t firstNegative = 0; // line of the first negative integer
  int64_t firstTooLarge = 0, tooLarge = 0; // and of one above kMaxClassId
  while (in.nextLine()) {
    in.split(fields, 1);
    int64_t value;
    if (integers && parseInt64(fields[0], value)) {
      if (value < 0 && !firstNegative)
        firstNegative = in.lineNumber();
      if (value > kMaxClassId && !firstTooLarge) {
        firstTooLarge = in.lineNumber();
        tooLarge = value;
      }
      classes.push_back(value);
      targets.push_back(float(value));
      continue;
    }
    integers = false;
    const float target = in.floatField(fields[0]);
    if (!std::isfinite(target))
      in.fail("graph " + std::to_string(targets.size()) + "'s label is " +
              quoteToken(fields[0]) + " (labels must be finite numbers)");
    targets.push_back(target);
  }
  if (int64_t(targets.size()) != graphs.numGraphs())
    throwDataError(in.path(), 0,
                   "expected " + std::to_string(graphs.numGraphs()) +
                       " rows (one per graph), found " +
                       std::to_string(targets.size()));
  if (!integers) {
    graphs.task = GraphTask::Regression;
    graphs.targets = std::move(targets);
    return;
  }
  if (firstNegative)
    throwDataError(in.path(), firstNegative,
                   "a class label is negative (classes are 0, 1, ...)");
  if (firstTooLarge)
    throwDataError(in.path(), firstTooLarge, classIdTooLarge(tooLarge));
  graphs.task = GraphTask::Classification;
  graphs.numClasses = *std::max_element(classes.begin(), classes.end()) + 1;
  graphs.classes = std::move(classes);
}

/// One fold per split/<name>, in name order.
void readSplits(const std::string &dir, GraphCollection &graphs) {
  const std::string root = dir + "/split";
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    return;
  std::vector<std::string> names;
  for (const fs::directory_entry &entry : fs::directory_iterator(root, ec))
    if (entry.is_directory(ec))
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const std::string &name : names) {
    GraphFold fold;
    fold.name = name;
    std::vector<int64_t> *lists[3] = {&fold.train, &fold.valid, &fold.test};
    bool any = false;
    for (size_t k = 0; k < 3; ++k)
      if (auto path = findTable(root + "/" + name, kSplitNames[k])) {
        *lists[k] = readSplitTable(*path, graphs.numGraphs(), "", "graph");
        any = true;
      }
    if (!any)
      throwDataError(root + "/" + name, 0,
                     "no train, valid or test.csv[.gz] (every directory of "
                     "split/ is a fold)");
    checkFoldDisjoint(fold, graphs.numGraphs(), root + "/" + name, "");
    graphs.folds.push_back(std::move(fold));
  }
  if (!names.empty())
    graphs.foldSource = root;
}

} // namespace

GraphCollection readOgbGraphCollection(const std::string &dir) {
  GraphCollection graphs;
  const std::string raw = dir + "/raw";
  readNodeCounts(raw, graphs);
  const std::string nodeList = *findTable(raw, "num-node-list");
  readEdgeCounts(raw, nodeList, graphs);
  readEdges(raw, *findTable(raw, "num-edge-list"), graphs);
  readGraphLabels(raw, graphs);
  if (auto path = findTable(raw, "node-feat"))
    graphs.numFeatures = readFeatureTable(*path, graphs.numNodes(),
                                          graphs.features, 0, -1, "node");
  if (auto path = findTable(raw, "edge-feat"))
    graphs.numEdgeFeatures = readFeatureTable(
        *path, graphs.numEdges(), graphs.edgeFeatures, 0, -1, "edge");
  readSplits(dir, graphs);
  return graphs;
}

} // namespace gnnrt
