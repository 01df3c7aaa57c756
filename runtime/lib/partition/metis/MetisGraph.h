//===- MetisGraph.h - The undirected graph METIS partitions -----*- C++ -*-===//
//
// Internal to gnnrt. METIS wants a symmetric adjacency structure without self
// loops or repeated neighbours, with 32-bit ids (Debian's libmetis is built
// with IDXTYPEWIDTH 32). The library call (MetisPartitioner.cpp) and the
// graph file for gpmetis (MetisFiles.cpp) both take the graph from here, so
// the two partition exactly the same input.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_PARTITION_METISGRAPH_H
#define GNNRT_LIB_PARTITION_METISGRAPH_H

#include "gnnrt/data/Dataset.h"
#include "gnnrt/partition/PartitionOptions.h"

#include <cstdint>
#include <vector>

namespace gnnrt {

struct MetisGraph {
  int64_t numVertices = 0;
  int ncon = 1;
  /// CSR: the neighbours of v are adjncy[xadj[v] .. xadj[v + 1]), ascending.
  std::vector<int32_t> xadj, adjncy;
  /// Per adjacency entry: how many directed dataset edges join the pair.
  /// Empty when every pair has the same count (METIS then uses unit weights,
  /// which gives the same partition objective up to that constant factor).
  std::vector<int32_t> adjwgt;
  /// [numVertices x ncon] vertex weights; empty for the single "nodes"
  /// constraint, which is METIS's default of unit weights.
  std::vector<int32_t> vwgt;

  int64_t numUndirectedEdges() const { return int64_t(adjncy.size()) / 2; }
};

/// Builds the METIS input for `ds`. Throws DataError if balance is empty or
/// repeats a constraint, a constraint has zero total weight, or the graph
/// exceeds METIS's 32-bit ids and weights.
MetisGraph buildMetisGraph(const Dataset &ds,
                           const std::vector<BalanceConstraint> &balance,
                           EdgeAssign assign);

/// METIS_PartGraphKway on `g` into numParts parts, called as gpmetis calls
/// it (default options, then seed and ufactor). `widenTolerances`: a
/// constraint in which one vertex alone outweighs the ufactor's slack over
/// the mean part gets that vertex's slack instead (typed graphs; the coarse
/// graph of the distributed multilevel partitioner). Returns each vertex's
/// part and sets *objective (if given) to METIS's edge cut. Throws DataError if
/// METIS fails.
std::vector<int32_t> partitionMetisGraph(MetisGraph &g, int numParts,
                                         int64_t ufactor, uint64_t seed,
                                         bool widenTolerances,
                                         int64_t *objective);

} // namespace gnnrt

#endif // GNNRT_LIB_PARTITION_METISGRAPH_H
