//===- DistributedGraph.h - A graph spread over ranks ----------*- C++ -*-===//
//
// Internal to gnnrt. The distributed partitioner's view of the graph: rank
// r of P owns the nodes of a block of ids holding about 1 / P of the nodes
// plus edges (DistributedEdges::vtxdist) and, after the load options
// are applied, exactly the edges whose source it owns, sorted by (source,
// destination) without repeats. That is the order loadDataset leaves a
// deduplicated dataset in, so the edge ids (positions in the loaded edge
// list) are the ranks' counts prefix-summed, with no global sort. From it,
// buildDistributedMetisGraph derives ParMETIS's input: each rank's rows of
// the symmetrized graph (the same graph MetisGraph.h builds in one process)
// and the vertex weights of the balance constraints.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_PARTITION_DISTRIBUTEDGRAPH_H
#define GNNRT_LIB_PARTITION_DISTRIBUTEDGRAPH_H

#include "gnnrt/comm/Communicator.h"
#include "gnnrt/data/DatasetSlice.h"
#include "gnnrt/partition/PartitionOptions.h"

#include <cstdint>
#include <vector>

namespace gnnrt {

/// The rank whose block of `vtxdist` (one entry per rank plus one) holds
/// node v.
int blockOwner(const std::vector<int64_t> &vtxdist, int64_t v);

/// This rank's edges of the loaded graph.
struct DistributedEdges {
  int64_t numNodes = 0, numEdges = 0; ///< global
  /// vtxdist[r] .. vtxdist[r + 1]: the nodes rank r owns (P + 1 entries).
  std::vector<int64_t> vtxdist;
  /// Edge firstEdgeId + i is src[i] -> dst[i]; src in this rank's block.
  int64_t firstEdgeId = 0;
  std::vector<int64_t> src, dst;
  /// A typed graph's: edge i's relation (after the load's inverses and
  /// self loops) and its id, ids[i], in the loaded edge list, which a
  /// typed load sorts by (relation, src, dst) (Dataset.cpp's dedupe), so
  /// not firstEdgeId + i. Empty for an untyped graph.
  std::vector<int32_t> type;
  std::vector<int64_t> ids;

  int64_t edgeId(int64_t i) const {
    return ids.empty() ? firstEdgeId + i : ids[size_t(i)];
  }

  int64_t nodeBegin(int rank) const { return vtxdist[size_t(rank)]; }
  int blockOwner(int64_t v) const { return gnnrt::blockOwner(vtxdist, v); }
};

/// Applies `options`' edge steps (reverse edges, self loops; repeats are
/// always removed, as gnn-partition loads) to every rank's slice of edges,
/// which it consumes; a typed slice's edges keep their relations (a
/// reversed edge takes its relation's inverse, a self loop `self`, as
/// finalizeDataset numbers them). Collective.
DistributedEdges distributeEdges(Communicator &comm, DatasetSlice &slice,
                                 const LoadOptions &options);

/// ParMETIS's distributed CSR: this rank's rows, neighbours as global ids.
struct DistributedMetisGraph {
  int64_t numLocal = 0;
  std::vector<int32_t> xadj, adjncy;
  /// Per adjacency entry, the directed edges it stands for; empty when all
  /// pairs of the whole graph weigh the same (as MetisGraph.h).
  std::vector<int32_t> adjwgt;
  int64_t edgeWeight(size_t i) const { return adjwgt.empty() ? 1 : adjwgt[i]; }
  /// [numLocal x ncon] weights of the balance constraints, and every
  /// constraint's global total.
  int ncon = 1;
  std::vector<int64_t> vwgt, totals;
};

/// Builds the symmetrized graph without self loops and the constraint
/// weights (nodes: 1; edges: the edges the node places, in-degree under
/// EdgeAssign::Dst, out-degree under Src; train: 1 per training node).
/// Throws DataError (on every rank) for a constraint of zero total weight
/// or a graph past 32-bit ids. Collective.
DistributedMetisGraph
buildDistributedMetisGraph(Communicator &comm, const DistributedEdges &edges,
                           const std::vector<int64_t> &trainIdx,
                           const std::vector<BalanceConstraint> &balance,
                           EdgeAssign assign);

/// One weight per local vertex: the sum over constraints of the vertex's
/// weight scaled so that every constraint's total counts about the same
/// (the largest total over this one's, rounded), so that balancing the sum
/// keeps every constraint near balance (PT-Scotch balances one weight; the
/// multilevel partitioner bounds its clusters by one). Throws DataError if
/// the sum exceeds 32 bits.
std::vector<int32_t> foldedVertexWeights(const DistributedMetisGraph &g);

} // namespace gnnrt

#endif // GNNRT_LIB_PARTITION_DISTRIBUTEDGRAPH_H
