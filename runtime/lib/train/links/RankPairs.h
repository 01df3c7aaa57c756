//===- RankPairs.h - a rank's share of the pairs a step scores --*- C++ -*-===//
//
// Internal to gnnrt. Full-graph link prediction under mpirun: every rank
// makes the same split and draws the same negatives (functions of the seed
// and the epoch), and holds one partition of the message-passing graph. A
// rank scores the pairs whose destination it owns. Their sources can be
// anyone's: those owned elsewhere are the pairs' own halo, sorted by
// (owner, id) as a partition's halo is, and filled by a HaloExchange made
// for these pairs (ExecContext::pairHalo: the generated code's exchange for
// gathers over `pairs(g)`, whose adjoint sends the sources' gradients back
// to their owners). For evaluation every rank holds every pair, so each
// derives what it sends and receives without communicating; a train
// epoch's pairs are drawn in shares and routed instead (drawRankPairs).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_RANKPAIRS_H
#define GNNRT_LIB_TRAIN_RANKPAIRS_H

#include "LinkTraining.h"

#include "gnnrt/comm/HaloExchange.h"

#include <memory>
#include <vector>

namespace gnnrt {

/// Where each node of a partitioned graph lives: its owner and its row
/// there (owned rows ascend with the global id, as PartitionPlan numbers
/// them).
class NodeOwners {
public:
  /// Every rank's owned nodes (the first `numOwned` of `nodeIds`), shared.
  /// Collective.
  NodeOwners(const std::vector<int64_t> &nodeIds, int64_t numOwned,
             int64_t numGlobalNodes, Communicator &comm);

  int32_t owner(int64_t v) const { return ownerOf[size_t(v)]; }
  int64_t row(int64_t v) const { return rowOf[size_t(v)]; }
  bool mine(int64_t v) const { return owner(v) == me; }
  int64_t numOwned() const { return owned; }
  int64_t numGlobalNodes() const { return int64_t(ownerOf.size()); }

private:
  std::vector<int32_t> ownerOf;
  std::vector<int64_t> rowOf;
  int32_t me = 0;
  int64_t owned = 0;
};

/// A rank's pairs of one batch and the exchange of their sources.
struct RankPairs {
  /// The pairs whose destination the rank owns, in the whole batch's edge
  /// order: destinations are owned rows, sources owned rows then the
  /// halo's (numSrc = owned + halo).
  PairBatch batch;
  /// The whole batch's edge each local edge is.
  std::vector<int64_t> pairOf;
  /// Fills the halo rows of a tensor over the batch's sources.
  std::unique_ptr<HaloExchange> halo;
  /// Every rank's pairs together (the batch's size).
  int64_t globalPairs = 0;
  /// Bytes this rank sent and received making them (drawRankPairs).
  int64_t routedBytes = 0;
  /// A node's position in the halo while the exchange is made.
  std::vector<int64_t> haloSlot;
};

/// This rank's share of `whole` (pairs over global ids, as fillPairBatch
/// orders them) into `out` (its memory reused).
void selectRankPairs(const PairBatch &whole, const NodeOwners &owners,
                     Communicator &comm, RankPairs &out);
/// Epoch `epoch`'s train pairs into `out` without any rank drawing them
/// all: each rank draws the negatives of a contiguous 1/P of the train
/// links (the draws one process makes for them), sends every pair to its
/// destination's owner, and asks the owners of its pairs' remote sources
/// for their rows. Collective; out.pairOf is left empty.
void drawRankPairs(const LinkSplitData &links, int64_t epoch,
                   const NodeOwners &owners, Communicator &comm,
                   RankPairs &out);

/// Output rows [pairs, 2] of a batch of `numPairs` pairs that the ranks
/// scored in shares: `rows` holds this rank's (row k is pair pairOf[k]).
/// Every rank gets all of them. Collective.
std::vector<float> gatherPairRows(Communicator &comm, int64_t numPairs,
                                  const std::vector<int64_t> &pairOf,
                                  const std::vector<float> &rows);

/// Writes the rows of `nodes` (global ids; `rows` [nodes, width] float32)
/// that every rank holds for its own nodes as one [numGlobalNodes, width]
/// .npy at `path`, from rank 0 (whole or not at all). Collective; one
/// process (every node, in id order) writes its rows as they are.
void writeGatheredEmbeddings(Communicator &comm, const std::string &path,
                             const std::vector<int64_t> &nodes,
                             const std::vector<float> &rows,
                             int64_t numGlobalNodes);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_RANKPAIRS_H
