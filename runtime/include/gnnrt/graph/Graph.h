//===- Graph.h - Compressed sparse graph storage ----------------*- C++ -*-===//
//
// A Graph holds one directed edge list in two compressed layouts: rows by
// destination (each node's incoming sources, the order a forward aggregation
// reads, one output row per destination) and rows by source (each node's
// outgoing destinations, the order the backward pass of an aggregation
// reads). Both are built in O(N + E) by stable counting sorts, so the layout
// is a deterministic function of the edge list: rows are sorted by neighbour
// id, and parallel edges keep their input order.
//
// Ids: offsets and edge ids are int64 (E may exceed 2^31); neighbour ids are
// int32 because they index local node arrays, which halves the bytes an
// aggregation streams. A graph therefore holds fewer than 2^31 nodes (a
// partition's local node count, not the global one); fromEdges checks it.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_GRAPH_GRAPH_H
#define GNNRT_GRAPH_GRAPH_H

#include <cstdint>
#include <vector>

namespace gnnrt {

/// The permutation that stably sorts edges by key: result[k] is the edge id
/// placed at position k. `order`, if not empty, is the input order to sort
/// (a permutation of edge ids, as returned by an earlier call), which is how
/// two calls make an O(N + E) LSD radix sort by (primary, secondary) key.
/// Keys must lie in [0, numNodes).
std::vector<int64_t> countingSortOrder(int64_t numNodes,
                                       const std::vector<int64_t> &key,
                                       const std::vector<int64_t> &order = {});

/// A directed graph in CSR-by-destination and CSR-by-source form.
class Graph {
public:
  Graph() = default;

  /// Builds from an edge list (edge e goes src[e] -> dst[e]). Throws
  /// DataError if the lists differ in length, an id is outside
  /// [0, numNodes), or numNodes >= 2^31.
  static Graph fromEdges(int64_t numNodes, const std::vector<int64_t> &src,
                         const std::vector<int64_t> &dst);

  int64_t numNodes() const { return nodes; }
  int64_t numEdges() const { return int64_t(inSrc.size()); }

  /// CSR by destination: the in-edges of node v occupy positions
  /// [inOffsets()[v], inOffsets()[v+1]); inSources() holds their sources in
  /// ascending order and inEdgeIds() their positions in the input edge list
  /// (to index per-edge values such as weights or attention scores).
  const std::vector<int64_t> &inOffsets() const { return inOff; }
  const std::vector<int32_t> &inSources() const { return inSrc; }
  const std::vector<int64_t> &inEdgeIds() const { return inEid; }

  /// CSR by source (the CSC of the destination-major matrix): the out-edges
  /// of node u, destinations ascending, with their input edge ids.
  const std::vector<int64_t> &outOffsets() const { return outOff; }
  const std::vector<int32_t> &outTargets() const { return outDst; }
  const std::vector<int64_t> &outEdgeIds() const { return outEid; }

  int64_t inDegree(int64_t v) const { return inOff[v + 1] - inOff[v]; }
  int64_t outDegree(int64_t u) const { return outOff[u + 1] - outOff[u]; }
  /// Per-node in-degrees (number of incoming edges, parallel edges counted).
  std::vector<int64_t> inDegrees() const;
  /// Per-node out-degrees.
  std::vector<int64_t> outDegrees() const;

private:
  int64_t nodes = 0;
  std::vector<int64_t> inOff{0}, inEid, outOff{0}, outEid;
  std::vector<int32_t> inSrc, outDst;
};

} // namespace gnnrt

#endif // GNNRT_GRAPH_GRAPH_H
