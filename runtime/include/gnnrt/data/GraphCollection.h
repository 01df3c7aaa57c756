//===- GraphCollection.h - Many small graphs stored together ----*- C++ -*-===//
//
// Graph-level learning (molecules, proteins) trains on thousands to millions
// of small graphs, one label each. A GraphCollection holds them the way the
// block-diagonal batcher (GraphBatch.h) reads them: one global edge list
// whose edges are grouped graph by graph, per-graph node and edge offsets
// into the global node and edge arrays, feature rows per node (and per edge,
// optionally), one label per graph, and named folds of graph ids.
//
// Two on-disk layouts are read (docs/data.md, "Graph collections"): TU's
// raw text format (the TUDataset collection: NCI1, PROTEINS, ENZYMES, ...,
// with the Errica et al. folds beside it) and OGB's graph-property layout
// (ogbg-*). Each is registered once in lib/data/graphs/GraphCollection.cpp;
// loadGraphCollection detects the layout. Every value is validated while
// parsing: a bad file is a DataError naming the file and line.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_GRAPHCOLLECTION_H
#define GNNRT_DATA_GRAPHCOLLECTION_H

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// What a graph's label is.
enum class GraphTask {
  /// One class id in [0, numClasses) per graph (GraphCollection::classes).
  Classification,
  /// One float target per graph (GraphCollection::targets).
  Regression,
};

/// A named train / valid / test partition of the graph ids. A list may be
/// empty (an OGB split without valid.csv). The three lists are disjoint.
struct GraphFold {
  std::string name;
  std::vector<int64_t> train, valid, test;
};

struct GraphCollection {
  /// Graph g's nodes are global ids [nodeOffsets[g], nodeOffsets[g + 1]) and
  /// its edges global positions [edgeOffsets[g], edgeOffsets[g + 1]) of
  /// src/dst. Both have numGraphs() + 1 entries, starting at 0. Every graph
  /// has at least one node.
  std::vector<int64_t> nodeOffsets{0}, edgeOffsets{0};
  /// Directed edges as global node ids, grouped by graph (in file order
  /// within a graph); both endpoints of edge e lie in its graph.
  std::vector<int64_t> src, dst;

  /// [numNodes(), numFeatures] row-major; empty when numFeatures is 0.
  int64_t numFeatures = 0;
  std::vector<float> features;
  /// [numEdges(), numEdgeFeatures] row-major, edge e's row at e; optional.
  int64_t numEdgeFeatures = 0;
  std::vector<float> edgeFeatures;

  GraphTask task = GraphTask::Classification;
  /// Classification: one class per graph, numClasses the distinct count.
  std::vector<int64_t> classes;
  int64_t numClasses = 0;
  /// Regression: one target per graph.
  std::vector<float> targets;

  /// The dataset's own folds (Errica's 10 for TU, one per split/<name> for
  /// OGB), in order; empty when it has none (stratifiedFolds makes some).
  std::vector<GraphFold> folds;
  /// Where the folds came from (a file or directory), "" when none.
  std::string foldSource;

  int64_t numGraphs() const { return int64_t(nodeOffsets.size()) - 1; }
  int64_t numNodes() const { return nodeOffsets.back(); }
  int64_t numEdges() const { return edgeOffsets.back(); }
  int64_t nodeCount(int64_t g) const {
    return nodeOffsets[g + 1] - nodeOffsets[g];
  }
  int64_t edgeCount(int64_t g) const {
    return edgeOffsets[g + 1] - edgeOffsets[g];
  }
};

/// The on-disk layouts of a graph collection.
enum class GraphCollectionFormat { Tu, OgbGraph };

/// "tu" or "ogb-graph".
const char *graphCollectionFormatName(GraphCollectionFormat format);

/// Whether `dir` holds a graph collection: a `<DS>_graph_indicator.txt[.gz]`
/// (TU) or `raw/graph-label.csv[.gz]` (OGB graph property). Sets `format`
/// when it does and `format` is not null.
bool isGraphCollection(const std::string &dir,
                       GraphCollectionFormat *format = nullptr);

/// Reads the graph collection in `dir` (without a trailing slash), in
/// whichever layout it has. Throws DataError for a directory that is not a
/// graph collection or for the first bad value (file and line).
GraphCollection loadGraphCollection(const std::string &dir);

/// Appends, graph by graph, the reverse (v, u) of every edge (u, v) after
/// the graph's own edges, with a copy of its feature row: OGB's molecule
/// layout stores each bond once (ogb's add_inverse_edge), TU's both ways.
void addReverseEdges(GraphCollection &graphs);

} // namespace gnnrt

#endif // GNNRT_DATA_GRAPHCOLLECTION_H
