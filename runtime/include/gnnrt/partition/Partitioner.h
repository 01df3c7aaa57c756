//===- Partitioner.h - Who owns each node -----------------------*- C++ -*-===//
//
// Step 1 of partitioning (see Partition.h): every node is assigned to a
// part, with METIS (multi-constraint k-way, balancing any of nodes, edges
// and training nodes, as DistDGL's --balance_edges --balance_train), at
// random (a seeded balanced shuffle, as GLT's RandomPartitioner), by access
// frequency (GLT's FrequencyPartitioner: each part pre-samples an epoch from
// its share of the training nodes and keeps the nodes its batches read
// most), or from an external assignment file (gpmetis's output format).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_PARTITION_PARTITIONER_H
#define GNNRT_PARTITION_PARTITIONER_H

#include "gnnrt/data/Dataset.h"
#include "gnnrt/partition/PartitionOptions.h"
#include "gnnrt/partition/PartitionSampling.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// The vertex-weight columns METIS balances for `balance` on `ds`, named:
/// one per constraint ("nodes", "edges", "train"), except that on a
/// heterogeneous dataset "nodes" is one column per non-empty node type
/// ("nodes:paper"), so that every part gets its share of each type, as
/// DistDGL balances node types.
std::vector<std::string>
constraintColumns(const Dataset &ds,
                  const std::vector<BalanceConstraint> &balance);

/// What METIS balances when the user names nothing: nodes; on a
/// heterogeneous dataset with training nodes, nodes (one column per type)
/// and training nodes, as DistDGL partitions typed graphs.
std::vector<BalanceConstraint> defaultBalance(const Dataset &ds);

/// Each node's weight per constraint column, row-major [numNodes x
/// constraintColumns(ds, balance).size()] (METIS's vwgt layout).
std::vector<int64_t>
constraintWeights(const Dataset &ds,
                  const std::vector<BalanceConstraint> &balance,
                  EdgeAssign assign);

/// GLT's RandomPartitioner: a random permutation of the nodes (Philox,
/// stream-separated from every other use of `seed`) cut into numParts
/// contiguous chunks whose sizes differ by at most one. Deterministic.
std::vector<int32_t> randomPartition(int64_t numNodes, int numParts,
                                     uint64_t seed);

/// METIS_PartGraphKway on the dataset's edges made undirected, without self
/// loops or repeats (a typed dataset's homogeneous view: relations do not
/// matter to the cut), with the vertex-weight columns of constraintColumns and
/// options.ufactor / options.seed. An undirected edge is weighted by how
/// many directed edges it stands for, unless all weigh the same (the usual
/// symmetric graph), when METIS gets unit weights. `objective`, if given,
/// receives METIS's edge cut of that graph (what gpmetis prints).
/// Throws DataError if a constraint has zero total weight (e.g. balancing
/// training nodes of a dataset without any) or METIS fails.
std::vector<int32_t> metisPartition(const Dataset &ds,
                                    const PartitionOptions &options,
                                    int64_t *objective = nullptr);

/// Dispatches on options.method. Throws DataError for numParts < 1 or
/// numParts > numNodes, or invalid sampling options
/// (checkSamplingOptions).
std::vector<int32_t> partitionNodes(const Dataset &ds,
                                    const PartitionOptions &options,
                                    int64_t *metisObjective = nullptr);

/// Writes the graph metisPartition would partition, in METIS's graph file
/// format (1-based, "n m fmt ncon" header), for running gpmetis on it.
void writeMetisGraph(const std::string &path, const Dataset &ds,
                     const std::vector<BalanceConstraint> &balance,
                     EdgeAssign assign);

/// Reads an assignment in gpmetis's output format: numNodes lines, line i
/// the part of node i-1, each in [0, numParts). Errors name file and line.
std::vector<int32_t> readPartitionAssignment(const std::string &path,
                                             int64_t numNodes, int numParts);

/// GLT's FrequencyPartitioner. The training nodes are split among the parts
/// at random (balanced, seeded); each part pre-samples an epoch from its
/// share (sampleAccessCounts). Training nodes stay with the part that
/// sampled them; every other node, hottest first, goes to the part that
/// accessed it most among those below the capacity ceil(N / P) x (1 +
/// ufactor / 1000); ties and never-accessed nodes go to the least loaded
/// part. Deterministic in options.seed. `hotness`, if given, receives the
/// access counts (valid for the returned assignment: its training nodes
/// are where the counts sampled them).
std::vector<int32_t> frequencyPartition(const Dataset &ds,
                                        const PartitionOptions &options,
                                        AccessCounts *hotness = nullptr);

} // namespace gnnrt

#endif // GNNRT_PARTITION_PARTITIONER_H
