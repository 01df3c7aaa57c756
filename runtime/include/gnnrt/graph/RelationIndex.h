//===- RelationIndex.h - A typed graph's (destination, relation) pairs -*- C++ -*-===//
//
// The relation-batched kernels (kernels/Relational.h) loop over the
// (destination, relation) pairs of a typed graph that have edges, each with
// its edges listed contiguously. Building that index is a pass over the
// edges with a sort per destination: a GraphStorage with edge types builds
// it once, beside its CSR, and its views carry it, so that the forward and
// both adjoints of every layer of every step share one. A view the index
// does not describe (built by hand, or changed after view()) gets one built
// per kernel call instead.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_GRAPH_RELATIONINDEX_H
#define GNNRT_GRAPH_RELATIONINDEX_H

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace gnnrt {

struct GraphView;
class GraphStorage;

/// The subgraphs of single relations (relation(g, "name")) of the graph an
/// index describes, each built on first use. The index is rebuilt whenever
/// its storage's edges change, and a new index starts with no subgraphs: a
/// full graph's or a partition's are built once per run, a sampled block's
/// at most once per block. Thread-safe.
class RelationSubgraphs {
public:
  explicit RelationSubgraphs(int32_t numRelations);
  ~RelationSubgraphs();
  /// Relation r's subgraph of g (the graph of the index that owns this).
  const GraphStorage &get(const GraphView &g, int32_t relation);

private:
  std::mutex mutex;
  std::vector<std::unique_ptr<GraphStorage>> built;
};

/// One side's grouping of a typed graph's edges: the (node, relation)
/// pairs that have edges, node-major and by increasing relation within a
/// node, with each pair's edges contiguous.
struct RelationPairs {
  /// numNodes + 1 offsets into the pair arrays.
  std::vector<int64_t> nodePairs;
  /// Per pair: its relation, its node and its edges, edges[edgeBegin[p] ..
  /// edgeBegin[p + 1]) (edge ids, in the side's CSR order).
  std::vector<int32_t> relation;
  std::vector<int64_t> pairNode;
  std::vector<int64_t> edgeBegin;
  std::vector<int64_t> edges;
  /// Pair ids grouped by relation (relationPairs[relationBegin[r] ..
  /// relationBegin[r + 1]), ascending nodes): within a relation every pair
  /// has its own node.
  std::vector<int64_t> relationBegin, relationPairs;

  int64_t size() const { return int64_t(relation.size()); }
  int64_t count(int64_t p) const { return edgeBegin[p + 1] - edgeBegin[p]; }
};

struct RelationIndex {
  /// (destination, relation) pairs, over the in-edges (edge ids ascending).
  RelationPairs byDst;
  /// (source, relation) pairs, over the out-edges (GraphView::outEdges
  /// order).
  RelationPairs bySrc;
  /// Per edge, the message count of its (destination, relation) pair (a
  /// mean's divisor).
  std::vector<int32_t> pairSizeOfEdge;
  /// What it was built from, so that a view it does not describe is noticed.
  const int64_t *inOffsets = nullptr, *outOffsets = nullptr;
  const int32_t *edgeType = nullptr;
  int64_t numSrc = 0, numDst = 0, numEdges = 0;
  /// Relations' subgraphs, shared by copies of the index (which describe
  /// the same arrays, or none).
  std::shared_ptr<RelationSubgraphs> subgraphs;

  /// Whether this is the index of `g` (same arrays, same sizes).
  bool describes(const GraphView &g) const;
};

/// The index of a typed graph (g.edgeType set, ids in [0, g.numRelations)).
RelationIndex buildRelationIndex(const GraphView &g);

} // namespace gnnrt

#endif // GNNRT_GRAPH_RELATIONINDEX_H
