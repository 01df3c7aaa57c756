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

namespace {
/// Whether `balance`'s Nodes constraint becomes one column per node type.
bool perNodeType(const Dataset &ds) { return ds.nodeTypes.size() > 1; }
} // namespace

std::vector<std::string>
constraintColumns(const Dataset &ds,
                  const std::vector<BalanceConstraint> &balance) {
  std::vector<std::string> columns;
  for (BalanceConstraint c : balance) {
    if (c == BalanceConstraint::Nodes && perNodeType(ds)) {
      for (const NodeType &type : ds.nodeTypes)
        if (type.count > 0)
          columns.push_back(std::string("nodes:") + type.name);
      continue;
    }
    columns.push_back(balanceConstraintName(c));
  }
  return columns;
}

std::vector<BalanceConstraint> defaultBalance(const Dataset &ds) {
  if (ds.isHeterogeneous() && !ds.trainIdx.empty())
    return {BalanceConstraint::Nodes, BalanceConstraint::Train};
  return {BalanceConstraint::Nodes};
}

std::vector<int64_t>
constraintWeights(const Dataset &ds,
                  const std::vector<BalanceConstraint> &balance,
                  EdgeAssign assign) {
  const size_t ncon = constraintColumns(ds, balance).size();
  std::vector<int64_t> weights(size_t(ds.numNodes) * ncon, 0);
  size_t c = 0; // the first column of the current constraint
  for (BalanceConstraint constraint : balance) {
    switch (constraint) {
    case BalanceConstraint::Nodes:
      if (perNodeType(ds)) {
        for (const NodeType &type : ds.nodeTypes) {
          if (type.count == 0)
            continue;
          for (int64_t v = type.offset; v < type.offset + type.count; ++v)
            weights[size_t(v) * ncon + c] = 1;
          ++c;
        }
        continue; // c is past this constraint's columns already
      }
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
    ++c;
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
  case PartitionMethod::Multilevel:
    throw DataError(std::string("partition: method '") +
                    partitionMethodName(options.method) +
                    "' partitions across MPI ranks: run mpirun -np P "
                    "gnn-partition --distributed");
  case PartitionMethod::Blocks:
    throw DataError("partition: method 'blocks' is the out-of-core "
                    "trainer's start-up partitioning (--offload), not a "
                    "serial method");
  }
  return {};
}

} // namespace gnnrt
