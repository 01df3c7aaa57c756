//===- DistributedBalance.h - Multi-constraint balance ---------*- C++ -*-===//
//
// Internal to gnnrt. PT-Scotch balances one folded vertex weight
// (ParallelScotch.h); METIS, which the serial partitioner calls, balances
// every constraint on its own: each part's weight of each constraint stays
// within (1 + ufactor / 1000) x the mean. balanceParts restores that
// guarantee on the distributed assignment, then refines the cut, in rounds
// of vertex moves decided by every rank for its own vertices:
//
//  - balance rounds: the ranks take turns (one moves per round, so its
//    accounting of the parts' weights is exact); the mover takes its
//    vertices in parts over the bound in a constraint they weigh in, best
//    cut gain first, each to the neighbouring (or else the least loaded)
//    part that most reduces the total excess over the bound, while a move
//    reduces it. Rounds stop once every part is within the bound, or when
//    a full turn of the ranks moves nothing;
//  - refinement rounds: every rank moves its boundary vertices with a
//    positive gain (fewer cut edge weights) to a neighbouring part that
//    stays within the bound, only from lower to higher parts in even rounds
//    and back in odd ones, so two neighbours never swap past each other.
//    Moves of different ranks land in the same parts at once, so the room
//    under each part's bound is granted to the ranks' requests in rank
//    order: the bound holds after every round, and every rank computes the
//    same grants from the same all-reduced requests.
//
// The neighbours' parts come from their owners after every round (a halo of
// ghost vertices).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_PARTITION_DISTRIBUTEDBALANCE_H
#define GNNRT_LIB_PARTITION_DISTRIBUTEDBALANCE_H

#include "DistributedGraph.h"

#include <cstdint>
#include <vector>

namespace gnnrt {

struct BalanceOutcome {
  int balanceRounds = 0, refineRounds = 0;
  int64_t moved = 0;     ///< vertex moves, all rounds and ranks
  bool balanced = false; ///< every constraint within the bound at the end
  /// The undirected cut of the symmetrized graph (METIS's objective), before
  /// and after.
  int64_t objectiveBefore = 0, objective = 0;
};

/// Rebalances and refines `part` (this rank's vertices of `vtxdist`'s
/// block) in place. With `moveVertices` false only measures: the objective
/// and whether the bound holds, the assignment kept as it is (node blocks
/// whose parts read their feature rows in place must stay consecutive).
/// Collective.
BalanceOutcome balanceParts(Communicator &comm,
                            const std::vector<int64_t> &vtxdist,
                            const DistributedMetisGraph &g, int numParts,
                            int64_t ufactor, std::vector<int32_t> &part,
                            bool moveVertices = true);

} // namespace gnnrt

#endif // GNNRT_LIB_PARTITION_DISTRIBUTEDBALANCE_H
