//===- DistributedMultilevel.h - Multilevel partitioning across ranks -*- C++
//-*-===//
//
// Internal to gnnrt. The distributed partitioner's own method (`multilevel`),
// for graphs whose PT-Scotch run needs more memory than their slices: each
// rank coarsens its own vertices, the coarsest graph is small enough for one
// process, and METIS partitions it there with every balance constraint.
//
//  - Coarsening: size-constrained label propagation over each rank's own
//    vertices (a cluster never spans ranks, so its weight is known exactly
//    and a level's coarse vertices stay on the rank of their members), then
//    the vertices left alone are grouped by their heaviest neighbour (local
//    or remote: two hops apart), as KaMinPar's two-hop clustering does.
//    A cluster of level l weighs at most 2^(l + 1) average vertices (in the
//    folded weight of every constraint), so that a level about halves the
//    graph as METIS's matchings do, and at most a small share of a part. A
//    level's coarse graph sums the members' constraint weights and the edge
//    weights between clusters. Coarsening stops at about max(20000,
//    100 x parts) vertices, or when a level keeps more than 90% of its
//    vertices.
//  - The coarsest graph goes to rank 0, METIS_PartGraphKway partitions it
//    (multi-constraint, the caller's ufactor and seed), and every rank gets
//    its coarse vertices' parts back.
//  - Uncoarsening: each level's vertices take their cluster's part, and the
//    distributed balance and refinement (DistributedBalance.h) runs on every
//    level but the finest, which the caller balances and refines itself (as
//    it does PT-Scotch's assignment).
//
// Memory per rank: the finest graph (the caller's), a cluster id per vertex
// of every level, and the coarse levels, each a fraction of the one below;
// rank 0 also holds the coarsest graph whole.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_PARTITION_DISTRIBUTEDMULTILEVEL_H
#define GNNRT_LIB_PARTITION_DISTRIBUTEDMULTILEVEL_H

#include "DistributedGraph.h"

#include <cstdint>
#include <vector>

namespace gnnrt {

struct MultilevelReport {
  int levels = 0; ///< coarse levels built
  /// The coarsest graph's vertices and undirected edges.
  int64_t coarsestVertices = 0, coarsestEdges = 0;
};

/// Partitions the distributed graph into numParts parts and returns the
/// part of each local vertex (`vtxdist` has one entry per rank plus one),
/// not yet balanced and refined on this finest level. Deterministic for a
/// seed and rank count. Collective; any rank's failure is every rank's
/// DataError.
std::vector<int32_t> multilevelPartition(Communicator &comm,
                                         const std::vector<int64_t> &vtxdist,
                                         const DistributedMetisGraph &g,
                                         int numParts, int64_t ufactor,
                                         uint64_t seed,
                                         MultilevelReport *report = nullptr);

} // namespace gnnrt

#endif // GNNRT_LIB_PARTITION_DISTRIBUTEDMULTILEVEL_H
