//===- PartitionOptions.h - How a graph is partitioned ----------*- C++ -*-===//
//
// The choices of a partitioning (docs/partitioning.md): how nodes are
// assigned to parts, which endpoint's owner stores an edge, what METIS
// balances, and the pre-sampling that frequency partitioning and the
// feature cache run. A PartitionOptions is what gnn-partition's flags and
// a train block's `partition = ...` fill in.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_PARTITION_PARTITIONOPTIONS_H
#define GNNRT_PARTITION_PARTITIONOPTIONS_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gnnrt {

/// How nodes are assigned to parts.
enum class PartitionMethod {
  Metis,  ///< METIS_PartGraphKway on the symmetrized graph
  Random, ///< a seeded random permutation cut into equal chunks
  File,   ///< read from an assignment file (one part id per line)
  /// GLT's FrequencyPartitioner: every node goes to the part whose
  /// pre-sampled training batches access it most (needs fanouts)
  Frequency,
  /// PT-Scotch across MPI ranks, then METIS's per-constraint balance
  /// (partitionDistributed; gnn-partition --distributed)
  ParallelScotch,
  /// Across MPI ranks without PT-Scotch: each rank coarsens its own
  /// vertices, METIS partitions the coarsest graph, the levels are refined
  /// on the way back (partitionDistributed; gnn-partition --distributed
  /// --method multilevel)
  Multilevel,
  /// Contiguous blocks of node ids, then the same balance and cut
  /// refinement as ParallelScotch (partitionDistributed on any
  /// communicator: --offload's start-up partitioning in bounded memory)
  Blocks
};

/// Which endpoint's owner stores an edge (GLT's edge_assign_strategy).
enum class EdgeAssign {
  Dst, ///< with its destination: halo nodes are remote sources
  Src  ///< with its source: halo nodes are remote destinations
};

/// A quantity METIS keeps balanced across parts; each selected one is one
/// METIS constraint (vertex weight column).
enum class BalanceConstraint {
  Nodes, ///< weight 1 per node
  Edges, ///< the node's edges in its part: in-degree (Dst) or out-degree (Src)
  Train  ///< 1 for a training node, else 0
};

const char *partitionMethodName(PartitionMethod method); ///< "metis", ...
const char *edgeAssignName(EdgeAssign assign);           ///< "dst" or "src"
const char *balanceConstraintName(BalanceConstraint c);  ///< "nodes", ...
/// The inverses of the name functions; nullopt for an unknown name.
std::optional<PartitionMethod> partitionMethodFromName(std::string_view name);
std::optional<EdgeAssign> edgeAssignFromName(std::string_view name);
std::optional<BalanceConstraint>
balanceConstraintFromName(std::string_view name);

struct PartitionOptions {
  PartitionMethod method = PartitionMethod::Metis;
  int numParts = 1;
  /// METIS constraints, in this order; at least one, no repeats.
  std::vector<BalanceConstraint> balance = {BalanceConstraint::Nodes};
  EdgeAssign edgeAssign = EdgeAssign::Dst;
  /// METIS's seed (taken modulo 2^31), PT-Scotch's, the multilevel
  /// partitioner's, or the random permutation's seed.
  uint64_t seed = 0;
  /// ParallelScotch, Multilevel: partitions from this many seeds (seed,
  /// then seeds drawn from it) and keeps the best (balanced first, then the
  /// smallest cut), as METIS's ncuts. PT-Scotch's cut varies with the seed
  /// far more than METIS's (Cora, 4 parts: 840 to 1,300 against METIS's 748).
  int tries = 1;
  /// METIS's load imbalance tolerance in thousandths: every part's weight of
  /// every constraint stays at most (1 + ufactor / 1000) x the mean (METIS's
  /// k-way default, and gpmetis's, is 30).
  int64_t ufactor = 30;
  /// For PartitionMethod::File: the assignment file.
  std::string assignmentFile;
  /// Pre-sampling (Frequency, the feature cache and estimateRemoteRows): the
  /// training fanouts, layer 0 (the input side) first as in SamplerOptions,
  /// each > 0 or -1 (all in-neighbours), and the batch size. Frequency also
  /// reads `ufactor` (a part holds at most ceil(N / P) x (1 + ufactor /
  /// 1000) nodes) and `seed` (the training split and the sampling).
  std::vector<int64_t> fanouts;
  int64_t batchSize = 1024;
  /// The feature cache (any method; needs fanouts): every part also holds
  /// the feature rows of its floor(cacheRatio x owned nodes) hottest remote
  /// nodes. In [0, 1]; 0 = no cache.
  double cacheRatio = 0;
};

} // namespace gnnrt

#endif // GNNRT_PARTITION_PARTITIONOPTIONS_H
