//===- PartitionCsr.h - A part's local CSR from its edge list ---*- C++ -*-===//
//
// Internal to gnnrt: the one place that lays a part's edges out as the
// destination-major CSR GraphView's kernels read, for extractPartition and
// the distributed partitioner alike.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_PARTITION_PARTITIONCSR_H
#define GNNRT_LIB_PARTITION_PARTITIONCSR_H

#include "gnnrt/partition/Partition.h"

#include <cstdint>
#include <vector>

namespace gnnrt {

/// Sets part.indptr, indices and edgeIds from the part's edges in local ids
/// (src[i] -> dst[i], dataset edge id edgeIds[i]), sorted by (destination,
/// source) with a stable sort, so parallel edges keep their order; with
/// `edgeTypes` (edge i's relation) also part.edgeTypes, in the same order.
/// part.numLocal() must already be set (owned and halo nodes).
void fillPartitionCsr(Partition &part, const std::vector<int64_t> &src,
                      const std::vector<int64_t> &dst,
                      const std::vector<int64_t> &edgeIds,
                      const std::vector<int32_t> &edgeTypes = {});

} // namespace gnnrt

#endif // GNNRT_LIB_PARTITION_PARTITIONCSR_H
