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

/// The same CSR from edges already in fillPartitionCsr's order (by local
/// destination, then local source, parallel edges by edge id), as records
/// with `src`, `dst`, `id` and (with `typed`) `type` fields: no copy of
/// the edge list besides the CSR itself.
template <typename Edge>
void fillSortedPartitionCsr(Partition &out, const std::vector<Edge> &edges,
                            bool typed) {
  const size_t count = edges.size();
  out.indptr.assign(size_t(out.numLocal()) + 1, 0);
  for (const Edge &e : edges)
    ++out.indptr[size_t(e.dst) + 1];
  for (size_t v = 1; v < out.indptr.size(); ++v)
    out.indptr[v] += out.indptr[v - 1];
  out.indices.resize(count);
  out.edgeIds.resize(count);
  out.edgeTypes.resize(typed ? count : 0);
  for (size_t k = 0; k < count; ++k) {
    out.indices[k] = int32_t(edges[k].src);
    out.edgeIds[k] = edges[k].id;
    if (typed)
      out.edgeTypes[k] = edges[k].type;
  }
}

} // namespace gnnrt

#endif // GNNRT_LIB_PARTITION_PARTITIONCSR_H
