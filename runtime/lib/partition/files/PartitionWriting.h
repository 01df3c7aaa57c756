//===- PartitionWriting.h - Writing a partition directory ------*- C++ -*-===//
//
// Internal to gnnrt. writePartitions (one process) and the distributed
// partitioner (one rank per group of parts, rank 0 for the rest) write the
// same directory the same way: into a temporary sibling that is moved into
// place when complete (see PartitionWriter.cpp), so the target is never
// half-written and an earlier partitioning survives a failed run.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_PARTITION_PARTITIONWRITING_H
#define GNNRT_LIB_PARTITION_PARTITIONWRITING_H

#include "gnnrt/partition/Partition.h"
#include "gnnrt/partition/PartitionManifest.h"

#include <string>
#include <vector>

namespace gnnrt {

/// Removes a directory tree at scope exit unless released.
class TreeGuard {
public:
  explicit TreeGuard(std::string dir = "") : dir(std::move(dir)) {}
  ~TreeGuard();
  TreeGuard(const TreeGuard &) = delete;
  TreeGuard &operator=(const TreeGuard &) = delete;
  void reset(std::string tree) { dir = std::move(tree); }
  void release() { dir.clear(); }

private:
  std::string dir;
};

/// Checks that the partition directory `outDir` may be written (absent,
/// empty, or an earlier partitioning), creates its parent, and returns a new
/// empty temporary directory beside it to write into.
std::string startPartitionDirectory(const std::string &outDir);

/// Writes part<k>/ of a partition directory under `dir`. Without
/// `withFeatures` its feature rows are left to writePartFeatureRows.
void writePartDirectory(const std::string &dir, const Partition &part,
                        bool withCache, bool withFeatures = true);

/// Writes part<k>/'s feature rows under `dir` from `datasetFeatures`, the
/// dataset's [nodes x features] float32 .npy, a few MiB at a time (the
/// distributed partitioner: no rank holds a part's rows). Throws DataError
/// naming the file for a shape that is not the part's, a short read, or a
/// row that is not finite.
void writePartFeatureRows(const std::string &dir, const Partition &part,
                          const std::string &datasetFeatures);

/// Writes node_owner.npy and, last, manifest.json under `dir`.
void writePartitionBookAndManifest(const std::string &dir,
                                   const std::vector<int32_t> &owner,
                                   const PartitionManifest &manifest);

/// Moves the finished temporary directory onto `outDir`, replacing an
/// earlier partitioning there.
void finishPartitionDirectory(const std::string &temp,
                              const std::string &outDir);

} // namespace gnnrt

#endif // GNNRT_LIB_PARTITION_PARTITIONWRITING_H
