//===- Partitioner.cpp - Constraint weights and method dispatch -----------===//
//
// The per-node weights of the balance constraints (METIS's vertex weights)
// and the dispatch from options to a partitioner. Kept apart from the option
// names (PartitionNames.cpp) so that a program that only reads partitions
// does not link METIS.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/Partitioner.h"

#include "gnnrt/support/Error.h"

namespace gnnrt {

std::vector<int64_t>
constraintWeights(const Dataset &ds,
                  const std::vector<BalanceConstraint> &balance,
                  EdgeAssign assign) {
  const size_t ncon = balance.size();
  std::vector<int64_t> weights(size_t(ds.numNodes) * ncon, 0);
  for (size_t c = 0; c < ncon; ++c) {
    switch (balance[c]) {
    case BalanceConstraint::Nodes:
      for (int64_t v = 0; v < ds.numNodes; ++v)
        weights[size_t(v) * ncon + c] = 1;
      break;
    case BalanceConstraint::Edges: {
      // The edges a node brings to its part: those assigned by this node.
      const std::vector<int64_t> &end =
          assign == EdgeAssign::Dst ? ds.dst : ds.src;
      for (int64_t v : end)
        ++weights[size_t(v) * ncon + c];
      break;
    }
    case BalanceConstraint::Train:
      for (int64_t v : ds.trainIdx)
        weights[size_t(v) * ncon + c] = 1;
      break;
    }
  }
  return weights;
}

std::vector<int32_t> partitionNodes(const Dataset &ds,
                                    const PartitionOptions &options,
                                    int64_t *metisObjective) {
  if (metisObjective)
    *metisObjective = -1;
  if (options.numParts < 1)
    throw DataError("partition: the number of parts must be at least 1 (got " +
                    std::to_string(options.numParts) + ")");
  if (options.numParts > ds.numNodes)
    throw DataError("partition: cannot split " + std::to_string(ds.numNodes) +
                    " nodes into " + std::to_string(options.numParts) +
                    " parts");
  checkSamplingOptions(options);
  switch (options.method) {
  case PartitionMethod::Metis:
    return metisPartition(ds, options, metisObjective);
  case PartitionMethod::Random:
    return randomPartition(ds.numNodes, options.numParts, options.seed);
  case PartitionMethod::File:
    return readPartitionAssignment(options.assignmentFile, ds.numNodes,
                                   options.numParts);
  case PartitionMethod::Frequency:
    return frequencyPartition(ds, options);
  case PartitionMethod::ParallelScotch:
    throw DataError("partition: method 'ptscotch' partitions across MPI "
                    "ranks: run mpirun -np P gnn-partition --distributed");
  }
  return {};
}

} // namespace gnnrt
