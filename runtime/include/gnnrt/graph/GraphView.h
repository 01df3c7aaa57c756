//===- GraphView.h - The graph as generated kernels see it -------*- C++ -*-===//
//
// Generated code never touches gnnrt::Graph or a Dataset: it sees a GraphView,
// a set of raw arrays in one fixed layout. Edges are numbered by their
// position in the destination-major CSR, so every per-edge tensor ([E, ...]:
// gathered rows, attention scores) is laid out destination by destination and
// a destination's in-edges are contiguous. The source-major transpose lists,
// for each source node, the ids of its out-edges in that same numbering, and
// (outDst) their destinations, so a walk over a source's out-edges that needs
// no per-edge value reads its neighbours sequentially instead of through a
// random edgeDst lookup per edge.
//
// A full graph has numSrc == numDst == nodes. A sampled block is bipartite,
// and its destination nodes are the first numDst of its numSrc sources.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_GRAPH_GRAPHVIEW_H
#define GNNRT_GRAPH_GRAPHVIEW_H

#include "gnnrt/graph/RelationIndex.h"

#include <cstdint>
#include <vector>

namespace gnnrt {

struct GraphView {
  int64_t numSrc = 0, numDst = 0, numEdges = 0;
  /// numDst + 1 offsets: the in-edges of destination v are the edge ids
  /// [inOffsets[v], inOffsets[v + 1]).
  const int64_t *inOffsets = nullptr;
  /// numEdges: the source node of edge k.
  const int32_t *edgeSrc = nullptr;
  /// numEdges: the destination node of edge k.
  const int32_t *edgeDst = nullptr;
  /// numSrc + 1 offsets into outEdges: the out-edges of source u are
  /// outEdges[outOffsets[u] .. outOffsets[u + 1]).
  const int64_t *outOffsets = nullptr;
  /// numEdges: edge ids grouped by source, ascending within a source.
  const int64_t *outEdges = nullptr;
  /// numEdges, parallel to outEdges: outDst[i] == edgeDst[outEdges[i]].
  /// Optional (null in a view built by hand); kernels then derive it.
  const int32_t *outDst = nullptr;
  /// Heterogeneous graphs: numEdges relation ids (edge k belongs to relation
  /// edgeType[k] of numRelations); null for a homogeneous graph.
  const int32_t *edgeType = nullptr;
  int32_t numRelations = 0;
  /// A typed graph's (destination, relation) pairs, built once by its
  /// storage; null: kernels build it when they need it.
  const RelationIndex *relationIndex = nullptr;
};

/// Owns the arrays of a GraphView.
class GraphStorage {
public:
  /// Builds the layout from an edge list (edge i goes src[i] -> dst[i]).
  /// Within a destination, edges are ordered by source id (stable for
  /// parallel edges). Throws DataError if an id is out of range, the lists
  /// differ in length, numDst > numSrc, or numSrc >= 2^31 (int32 ids).
  static GraphStorage build(int64_t numSrc, int64_t numDst,
                            const std::vector<int64_t> &src,
                            const std::vector<int64_t> &dst);
  /// build() for a heterogeneous graph: edge i also has relation
  /// edgeType[i] of numRelations, which follows it into CSR order. Throws
  /// DataError for a relation id out of range or a list of another length.
  static GraphStorage build(int64_t numSrc, int64_t numDst,
                            const std::vector<int64_t> &src,
                            const std::vector<int64_t> &dst,
                            const std::vector<int32_t> &edgeType,
                            int32_t numRelations);
  /// build() with the sources of a destination ordered by sourceRank[u]
  /// (a permutation of [0, numSrc)) instead of by id. A partition ranks its
  /// local sources by global id, so that a node's k-th in-edge is the
  /// whole graph's: neighbour draws and sums then match one process.
  /// edgeType may be empty (numRelations 0).
  static GraphStorage build(int64_t numSrc, int64_t numDst,
                            const std::vector<int64_t> &src,
                            const std::vector<int64_t> &dst,
                            const std::vector<int32_t> &edgeType,
                            int32_t numRelations,
                            const std::vector<int64_t> &sourceRank);
  /// Builds the same layout from the destination-major CSR itself: the
  /// in-edges of destination v have sources edgeSrc[inOffsets[v] ..
  /// inOffsets[v + 1]), in the order given (samplers sort them; a
  /// partition's subgraphs keep its order by global id). The transpose is
  /// one O(numSrc + numEdges) counting pass, without build()'s two sorts.
  /// Throws DataError for inOffsets of the wrong length or not rising from 0
  /// to edgeSrc.size(), a source out of range, numDst > numSrc, or
  /// numSrc >= 2^31.
  static GraphStorage fromCsr(int64_t numSrc, int64_t numDst,
                              const std::vector<int64_t> &inOffsets,
                              const std::vector<int32_t> &edgeSrc);
  /// fromCsr into this storage, reusing the memory of its arrays: a sampler
  /// refills the blocks of a recycled batch without allocating.
  /// Without `outEdges`, the out-edge lists are not built (the view's
  /// outOffsets, outEdges and outDst are null): for a block whose readers
  /// walk in-edges only.
  void assignCsr(int64_t numSrc, int64_t numDst,
                 const std::vector<int64_t> &inOffsets,
                 const std::vector<int32_t> &edgeSrc, bool outEdges = true);

  /// Gives the edges (in CSR order) their relations, and builds the
  /// relation index; throws DataError for a list of another length or an
  /// id out of [0, numRelations).
  void setEdgeTypes(std::vector<int32_t> types, int32_t numRelations);

  GraphView view() const;
  int64_t numSrc() const { return nSrc; }
  int64_t numDst() const { return nDst; }
  int64_t numEdges() const { return int64_t(edgeSrc.size()); }

private:
  /// Fills outOffsets, outEdges and outDst from edgeSrc and edgeDst.
  void buildTranspose();

  int64_t nSrc = 0, nDst = 0;
  std::vector<int64_t> inOffsets, outOffsets, outEdges;
  std::vector<int32_t> edgeSrc, edgeDst, outDst;
  std::vector<int32_t> edgeType; ///< empty for a homogeneous graph
  int32_t numRelations = 0;
  /// Built with edgeType; describes the arrays above (a copy of the storage
  /// rebuilds it, since it records their addresses).
  RelationIndex relationIndex;
  void indexRelations();
};

/// The edges of relation `relation` of typed graph `g`, over g's own nodes
/// (numSrc and numDst as g's), in g's edge order: relation(g, "name").
/// Throws DataError when g has no edge types or the relation is out of
/// range.
GraphStorage relationSubgraph(const GraphView &g, int32_t relation);

/// relationSubgraph's view, built once per graph: kept by g's relation
/// index when g carries one that describes it (a typed GraphStorage's
/// views do), for as long as the storage's edges stay the same; otherwise
/// built into `scratch`, which must outlive the view.
GraphView relationView(const GraphView &g, int32_t relation,
                       GraphStorage &scratch);

} // namespace gnnrt

#endif // GNNRT_GRAPH_GRAPHVIEW_H
