//===- GraphBatch.h - Graphs packed block-diagonally ------------*- C++ -*-===//
//
// Graph-level training runs the node-level layers on many small graphs at
// once by packing a batch of them into one graph whose adjacency is block
// diagonal: graph b of the batch keeps its edges, its nodes renumbered to
// follow those of graphs 0..b-1, so no edge joins two graphs and every
// aggregation stays inside its graph. A readout then pools each graph's
// node rows (nodeOffsets / nodeGraph) into one row per graph.
//
// Packing is a pure function of the collection and the list of graph ids:
// graphs in the order given, each graph's nodes and edges in stored order,
// so the same list gives the same batch, byte for byte.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_GRAPHBATCH_H
#define GNNRT_DATA_GRAPHBATCH_H

#include "gnnrt/data/GraphCollection.h"
#include "gnnrt/graph/Graph.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gnnrt {

/// Graphs of a collection packed into one block-diagonal graph.
struct GraphBatch {
  /// The packed graphs' ids in the collection, in batch order.
  std::vector<int64_t> graphIds;
  /// Batch graph b's nodes are [nodeOffsets[b], nodeOffsets[b + 1]) of the
  /// packed graph (graphIds.size() + 1 entries).
  std::vector<int64_t> nodeOffsets{0};
  /// The batch position b of each packed node (the node -> graph index a
  /// readout scatters by).
  std::vector<int64_t> nodeGraph;
  /// The block-diagonal graph (CSR by destination and by source); its
  /// input edge list is the graphs' edges in batch order, which is the
  /// order of edgeFeatures' rows.
  Graph graph;
  /// [numNodes, numFeatures] and [numEdges, numEdgeFeatures] row-major.
  int64_t numFeatures = 0, numEdgeFeatures = 0;
  std::vector<float> features, edgeFeatures;
  /// The graphs' labels in batch order: classes for a classification
  /// collection, targets for a regression one (the other stays empty).
  std::vector<int64_t> classes;
  std::vector<float> targets;

  int64_t numGraphs() const { return int64_t(graphIds.size()); }
  int64_t numNodes() const { return nodeOffsets.back(); }
};

/// Packs graphs ids[0, count) of `graphs`, in that order. Throws DataError
/// for an id outside [0, numGraphs()); an id may repeat (each copy is its
/// own block).
GraphBatch packGraphs(const GraphCollection &graphs, const int64_t *ids,
                      size_t count);
inline GraphBatch packGraphs(const GraphCollection &graphs,
                             const std::vector<int64_t> &ids) {
  return packGraphs(graphs, ids.data(), ids.size());
}

} // namespace gnnrt

#endif // GNNRT_DATA_GRAPHBATCH_H
