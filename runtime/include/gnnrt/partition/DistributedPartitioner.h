//===- DistributedPartitioner.h - Partitioning across MPI ranks -*- C++ -*-===//
//
// `mpirun -np P gnn-partition --distributed ...` partitions a graph that one
// process cannot hold: every rank reads a slice of the dataset's files
// (DatasetSlice.h), the ranks build the graph distributed by node block,
// PT-Scotch (through its ParMETIS interface) or our multilevel partitioner
// (each rank coarsens its own vertices, METIS partitions the coarsest
// graph, the levels are refined on the way back) partitions it, a distributed
// pass restores METIS's multi-constraint balance and refines the cut, and
// the ranks write the same partition directory writePartitions writes (each
// rank its parts, rank 0 the partition book and the manifest), which the
// trainer reads unchanged. docs/partitioning.md describes the steps and
// their memory.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_PARTITION_DISTRIBUTEDPARTITIONER_H
#define GNNRT_PARTITION_DISTRIBUTEDPARTITIONER_H

#include "gnnrt/comm/Communicator.h"
#include "gnnrt/data/Dataset.h"
#include "gnnrt/partition/PartitionManifest.h"
#include "gnnrt/partition/PartitionOptions.h"

#include <cstdint>
#include <string>

namespace gnnrt {

/// What the steps took, for the tool's report (the same on every rank
/// except the seconds, which are this rank's).
struct DistributedPartitionReport {
  /// `partitionSeconds`: PT-Scotch's or the multilevel partitioner's.
  double readSeconds = 0, graphSeconds = 0, partitionSeconds = 0,
         balanceSeconds = 0, writeSeconds = 0;
  /// The undirected cut (METIS's objective) of the partitioner's assignment
  /// and of the final one; the balance pass's rounds and moves.
  int64_t initialObjective = 0, objective = 0, moved = 0;
  int balanceRounds = 0, refineRounds = 0;
  /// Whether every constraint ended within the ufactor bound.
  bool balanced = false;
  /// Which of options.tries was kept (the manifest records its seed).
  int bestTry = 0;
  /// The multilevel partitioner's coarse levels and the coarsest graph
  /// METIS partitioned (vertices, undirected edges), for the kept try.
  int levels = 0;
  int64_t coarsestVertices = 0, coarsestEdges = 0;
  /// This rank's peak resident memory (MiB) at the end of each step: after
  /// reading, building the graph, partitioning, balancing, and writing.
  double peakMiB[5] = {0, 0, 0, 0, 0};
};

/// Partitions the dataset in `dataDir` (loaded as `load` says; repeated
/// edges are always removed, as gnn-partition loads) into options.numParts
/// parts with the ranks of `comm`, and writes the partition directory
/// `outDir` (atomically, as writePartitions; every rank must see the same
/// file system). options.method must be ParallelScotch (on the ranks of
/// MPI_COMM_WORLD), Multilevel or Blocks (on any communicator);
/// options.balance, edgeAssign and ufactor apply as for METIS. `manifest`
/// brings the dataset fields (path, split, load flags) and, with method Blocks,
/// featuresInPlace: then no feature row is read, moved or written, and the
/// blocks are not refined, so that every part's rows stay one slice of
/// that file. The manifest written is returned on every rank. Any rank's
/// failure (a bad row in its slice, an unwritable directory) becomes the same
/// DataError on every rank. Collective.
PartitionManifest
partitionDistributed(Communicator &comm, const std::string &dataDir,
                     const LoadOptions &load, const PartitionOptions &options,
                     const std::string &outDir, PartitionManifest manifest,
                     DistributedPartitionReport *report = nullptr);

} // namespace gnnrt

#endif // GNNRT_PARTITION_DISTRIBUTEDPARTITIONER_H
