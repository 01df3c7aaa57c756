//===- ParallelScotch.h - PT-Scotch via its ParMETIS interface -*- C++ -*-===//
//
// Internal to gnnrt. One call of ParMETIS_V3_PartKway as PT-Scotch's
// compatibility library implements it (Debian's libscotchparmetis-dev;
// ParMETIS itself is not packaged). That implementation reads one vertex
// weight per vertex and ignores ncon, ubvec and options (checked in its
// source, libscotchmetis/parmetis_dgraph_part.c), so it balances a single
// weight: the caller folds the constraints into one (foldedVertexWeights)
// and enforces each of them afterwards (DistributedBalance.h).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_PARTITION_PARALLELSCOTCH_H
#define GNNRT_LIB_PARTITION_PARALLELSCOTCH_H

#include "DistributedGraph.h"

#include <cstdint>
#include <vector>

namespace gnnrt {

/// Partitions the distributed graph into numParts parts with PT-Scotch and
/// returns the part of each local vertex. `vtxdist` has one entry per rank
/// plus one. Collective over MPI_COMM_WORLD, which `comm` must be.
std::vector<int32_t>
parallelScotchPartition(Communicator &comm, const std::vector<int64_t> &vtxdist,
                        DistributedMetisGraph &g,
                        std::vector<int32_t> &vertexWeights, int numParts,
                        uint64_t seed);

} // namespace gnnrt

#endif // GNNRT_LIB_PARTITION_PARALLELSCOTCH_H
