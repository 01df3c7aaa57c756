//===- PartitionNames.cpp - Spelling of partitioning options --------------===//
//
// The names every layer shares: the tool's flags, the manifest's fields and
// the language's `metis(balance = [...], edge_assign = dst)` all spell
// methods, constraints and edge assignments the same way.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/PartitionOptions.h"

namespace gnnrt {

const char *partitionMethodName(PartitionMethod method) {
  switch (method) {
  case PartitionMethod::Metis:
    return "metis";
  case PartitionMethod::Random:
    return "random";
  case PartitionMethod::File:
    return "file";
  case PartitionMethod::Frequency:
    return "frequency";
  case PartitionMethod::ParallelScotch:
    return "ptscotch";
  case PartitionMethod::Multilevel:
    return "multilevel";
  case PartitionMethod::Blocks:
    return "blocks";
  }
  return "";
}

const char *edgeAssignName(EdgeAssign assign) {
  return assign == EdgeAssign::Dst ? "dst" : "src";
}

const char *balanceConstraintName(BalanceConstraint c) {
  switch (c) {
  case BalanceConstraint::Nodes:
    return "nodes";
  case BalanceConstraint::Edges:
    return "edges";
  case BalanceConstraint::Train:
    return "train";
  }
  return "";
}

std::optional<PartitionMethod> partitionMethodFromName(std::string_view name) {
  for (PartitionMethod m :
       {PartitionMethod::Metis, PartitionMethod::Random, PartitionMethod::File,
        PartitionMethod::Frequency, PartitionMethod::ParallelScotch,
        PartitionMethod::Multilevel, PartitionMethod::Blocks})
    if (name == partitionMethodName(m))
      return m;
  return std::nullopt;
}

std::optional<EdgeAssign> edgeAssignFromName(std::string_view name) {
  for (EdgeAssign a : {EdgeAssign::Dst, EdgeAssign::Src})
    if (name == edgeAssignName(a))
      return a;
  return std::nullopt;
}

std::optional<BalanceConstraint>
balanceConstraintFromName(std::string_view name) {
  for (BalanceConstraint c :
       {BalanceConstraint::Nodes, BalanceConstraint::Edges,
        BalanceConstraint::Train})
    if (name == balanceConstraintName(c))
      return c;
  return std::nullopt;
}

} // namespace gnnrt
