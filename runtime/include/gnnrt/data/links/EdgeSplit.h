//===- EdgeSplit.h - A deterministic random split of edges --*- C++ -*-===//
//
// Link prediction trains on some edges and evaluates on others it has not
// seen. randomEdgeSplit splits a graph's edges as PyG's RandomLinkSplit
// does: an undirected pair (u, v) / (v, u) is one positive and goes to one
// split whole; valid and test get negatives drawn once, as many as their
// positives, never an edge of the full graph nor a self loop, no pair twice;
// message passing sees the train positives only (both directions). The split
// is a pure function of (graph, options): the pairs are deduplicated and
// sorted before a Philox-keyed shuffle, so the input's edge order, the
// thread count and the rank count do not change it.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_LINKS_EDGESPLIT_H
#define GNNRT_DATA_LINKS_EDGESPLIT_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gnnrt {

/// Pairs of node ids, as parallel arrays.
struct LinkPairs {
  std::vector<int64_t> src, dst;
  size_t size() const { return src.size(); }
};

struct EdgeSplitOptions {
  /// Fractions of the (undirected) pairs; they must sum to at most 1. When
  /// they sum to 1 train takes what the rounding down of valid and test
  /// leaves; otherwise each split gets floor(fraction * pairs) and the rest
  /// is in no split (neither trained on nor seen by message passing).
  double train = 0.85, valid = 0.05, test = 0.10;
  /// (u, v) and (v, u) are one pair (RandomLinkSplit's is_undirected).
  bool undirected = true;
  uint64_t seed = 0;
  /// Refuse a split that leaves a node with edges no train edge (its
  /// representation could not use the graph). Off by default: PyG allows
  /// it, and Cora at 85/5/10 has such nodes.
  bool requireTrainEdges = false;
};

/// The result: positives and negatives per split, and the graph message
/// passing uses.
struct EdgeSplit {
  /// Positives, each pair once: (min, max) for an undirected split.
  LinkPairs trainPos, validPos, testPos;
  /// Negatives of valid and test (as many as their positives), disjoint
  /// from each other and from every edge of the graph; (min, max) when
  /// undirected.
  LinkPairs validNeg, testNeg;
  /// The message-passing edges: the train positives, and their reverses
  /// when undirected (a self loop once), sorted by (src, dst).
  LinkPairs graph;
  /// How many nodes with an edge in the graph have none in `graph`.
  int64_t nodesWithoutTrainEdge = 0;
};

/// Splits the edges (src[e], dst[e]) of a graph of `numNodes` nodes.
/// Throws DataError for fractions out of [0, 1] or summing above 1, an
/// edge out of range, a split with no train pair, negatives asked of a
/// graph too dense to have them, or (requireTrainEdges) a node left with
/// no train edge.
EdgeSplit randomEdgeSplit(int64_t numNodes, const std::vector<int64_t> &src,
                          const std::vector<int64_t> &dst,
                          const EdgeSplitOptions &options);

} // namespace gnnrt

#endif // GNNRT_DATA_LINKS_EDGESPLIT_H
