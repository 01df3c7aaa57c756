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
#include <vector>

namespace gnnrt {

struct GraphView;

struct RelationIndex {
  /// numDst + 1 offsets into the pair arrays: destination-major, and by
  /// increasing relation within a destination.
  std::vector<int64_t> dstPairs;
  /// Per pair: its relation and its edges, edges[edgeBegin[p] ..
  /// edgeBegin[p + 1]) (edge ids, ascending).
  std::vector<int32_t> relation;
  std::vector<int64_t> edgeBegin;
  std::vector<int64_t> edges;
  /// Pair ids grouped by relation (relationPairs[relationBegin[r] ..
  /// relationBegin[r + 1]), ascending destinations).
  std::vector<int64_t> relationBegin, relationPairs;
  /// Per edge, the message count of its pair (a mean's divisor).
  std::vector<int32_t> pairSizeOfEdge;
  /// What it was built from, so that a view it does not describe is noticed.
  const int64_t *inOffsets = nullptr;
  const int32_t *edgeType = nullptr;
  int64_t numDst = 0, numEdges = 0;

  int64_t size() const { return int64_t(relation.size()); }
  int64_t count(int64_t p) const { return edgeBegin[p + 1] - edgeBegin[p]; }
  /// Whether this is the index of `g` (same arrays, same sizes).
  bool describes(const GraphView &g) const;
};

/// The index of a typed graph (g.edgeType set, ids in [0, g.numRelations)).
RelationIndex buildRelationIndex(const GraphView &g);

} // namespace gnnrt

#endif // GNNRT_GRAPH_RELATIONINDEX_H
