//===- PartitionExtract.cpp - Materializing one part of a plan ------------===//
//
// Turns the global plan into the local view of one part: its edges renumbered
// to local ids and laid out as a destination-major CSR (the layout
// GraphView's kernels read), the halo-exchange tables, and the owned rows of
// features, labels and splits. Memory is proportional to the part, not the
// graph: a remote endpoint's local id is found by binary search in the halo
// (sorted by owner, then id) instead of through a global lookup table.
// A part with a feature cache also gets the cached remote rows.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/Partition.h"

#include "PartitionCsr.h"
#include "gnnrt/graph/Graph.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cstring>

namespace gnnrt {

namespace {
/// The range [begin, end) of the halo `halo` (sorted by owner) whose owner is
/// `part`, as offsets from halo.begin().
std::pair<int64_t, int64_t> ownerRange(const int64_t *halo, int64_t size,
                                       const std::vector<int32_t> &owner,
                                       int part) {
  auto below = [&](int64_t w, int p) { return owner[size_t(w)] < p; };
  auto above = [&](int p, int64_t w) { return p < owner[size_t(w)]; };
  const int64_t *lo = std::lower_bound(halo, halo + size, part, below);
  const int64_t *hi = std::upper_bound(lo, halo + size, part, above);
  return {lo - halo, hi - halo};
}
} // namespace

Partition extractPartition(const Dataset &ds, const PartitionPlan &plan,
                           int part) {
  if (part < 0 || part >= plan.numParts)
    throw DataError("partition: part " + std::to_string(part) +
                    " out of range [0, " + std::to_string(plan.numParts) + ")");
  const size_t p = size_t(part);
  Partition out;
  out.part = part;
  out.numParts = plan.numParts;
  out.edgeAssign = plan.edgeAssign;
  out.numGlobalNodes = ds.numNodes;
  out.numFeatures = ds.numFeatures;
  out.numClasses = ds.numClasses;
  out.ownedNodes.assign(plan.partNodes.begin() + plan.nodeOffsets[p],
                        plan.partNodes.begin() + plan.nodeOffsets[p + 1]);
  out.haloNodes.assign(plan.haloNodes.begin() + plan.haloOffsets[p],
                       plan.haloNodes.begin() + plan.haloOffsets[p + 1]);
  const int64_t numOwned = out.numOwned(), numLocal = out.numLocal();
  if (numLocal >= (int64_t(1) << 31))
    throw DataError("partition: part " + std::to_string(part) + " has " +
                    std::to_string(numLocal) +
                    " local nodes, more than 32-bit local ids hold; use "
                    "more parts");
  out.haloOwners.resize(out.haloNodes.size());
  for (size_t h = 0; h < out.haloNodes.size(); ++h)
    out.haloOwners[h] = plan.owner[size_t(out.haloNodes[h])];

  // Receive ranges: the halo is grouped by owner.
  out.recvOffsets.assign(size_t(plan.numParts) + 1, 0);
  for (int q = 0; q < plan.numParts; ++q)
    out.recvOffsets[size_t(q) + 1] =
        ownerRange(out.haloNodes.data(), numLocal - numOwned, plan.owner, q)
            .second;
  // Send lists: the rows of mine in every other part's halo, in its order.
  out.sendOffsets.assign(size_t(plan.numParts) + 1, 0);
  for (int q = 0; q < plan.numParts; ++q) {
    const int64_t *halo = plan.haloNodes.data() + plan.haloOffsets[size_t(q)];
    int64_t size =
        plan.haloOffsets[size_t(q) + 1] - plan.haloOffsets[size_t(q)];
    auto [lo, hi] = q == part ? std::pair<int64_t, int64_t>{0, 0}
                              : ownerRange(halo, size, plan.owner, part);
    for (int64_t k = lo; k < hi; ++k)
      out.sendNodes.push_back(plan.localId[size_t(halo[k])]);
    out.sendOffsets[size_t(q) + 1] = int64_t(out.sendNodes.size());
  }

  // Edges in local ids, then the CSR.
  auto local = [&](int64_t v) -> int64_t {
    int32_t o = plan.owner[size_t(v)];
    if (o == part)
      return plan.localId[size_t(v)];
    const int64_t *begin = out.haloNodes.data() + out.recvOffsets[size_t(o)];
    const int64_t *end = out.haloNodes.data() + out.recvOffsets[size_t(o) + 1];
    return numOwned + (std::lower_bound(begin, end, v) - out.haloNodes.data());
  };
  const int64_t first = plan.edgeOffsets[p],
                count = plan.edgeOffsets[p + 1] - first;
  std::vector<int64_t> src(static_cast<size_t>(count)),
      dst(static_cast<size_t>(count));
  for (int64_t k = 0; k < count; ++k) {
    int64_t e = plan.partEdges[size_t(first + k)];
    src[size_t(k)] = local(ds.src[size_t(e)]);
    dst[size_t(k)] = local(ds.dst[size_t(e)]);
  }
  fillPartitionCsr(
      out, src, dst,
      std::vector<int64_t>(plan.partEdges.begin() + first,
                           plan.partEdges.begin() + first + count));
  if (ds.isHeterogeneous()) {
    out.nodeTypes = ds.nodeTypes;
    out.relations = ds.relations;
    out.targetType = ds.targetType;
    out.edgeTypes.resize(size_t(count));
    for (int64_t k = 0; k < count; ++k)
      out.edgeTypes[size_t(k)] = ds.edgeType[size_t(out.edgeIds[size_t(k)])];
  }

  // Owned rows.
  const int64_t f = ds.numFeatures;
  if (f > 0) {
    out.features.resize(size_t(numOwned * f));
    for (int64_t i = 0; i < numOwned; ++i)
      std::memcpy(out.features.data() + i * f,
                  ds.features.data() + out.ownedNodes[size_t(i)] * f,
                  size_t(f) * sizeof(float));
  }
  out.labels.resize(size_t(numOwned));
  for (int64_t i = 0; i < numOwned; ++i)
    out.labels[size_t(i)] =
        ds.labels.empty() ? -1 : ds.labels[size_t(out.ownedNodes[size_t(i)])];
  auto split = [&](const std::vector<int64_t> &idx) {
    std::vector<int64_t> mine;
    for (int64_t v : idx)
      if (plan.owner[size_t(v)] == part)
        mine.push_back(plan.localId[size_t(v)]);
    std::sort(mine.begin(), mine.end());
    return mine;
  };
  out.trainIdx = split(ds.trainIdx);
  out.validIdx = split(ds.validIdx);
  out.testIdx = split(ds.testIdx);

  // The feature cache: remote rows this part holds as well.
  if (!plan.cacheOffsets.empty()) {
    out.cachedNodes.assign(plan.cachedNodes.begin() + plan.cacheOffsets[p],
                           plan.cachedNodes.begin() + plan.cacheOffsets[p + 1]);
    if (f > 0) {
      out.cachedFeatures.resize(out.cachedNodes.size() * size_t(f));
      for (size_t i = 0; i < out.cachedNodes.size(); ++i)
        std::memcpy(out.cachedFeatures.data() + i * size_t(f),
                    ds.features.data() + out.cachedNodes[i] * f,
                    size_t(f) * sizeof(float));
    }
  }
  return out;
}

void fillPartitionCsr(Partition &out, const std::vector<int64_t> &src,
                      const std::vector<int64_t> &dst,
                      const std::vector<int64_t> &edgeIds,
                      const std::vector<int32_t> &edgeTypes) {
  // The same stable two-pass radix sort as Graph.
  const int64_t numLocal = out.numLocal(), count = int64_t(src.size());
  std::vector<int64_t> order =
      countingSortOrder(numLocal, dst, countingSortOrder(numLocal, src));
  out.indptr.assign(size_t(numLocal) + 1, 0);
  for (int64_t d : dst)
    ++out.indptr[size_t(d) + 1];
  for (int64_t v = 0; v < numLocal; ++v)
    out.indptr[size_t(v) + 1] += out.indptr[size_t(v)];
  out.indices.resize(size_t(count));
  out.edgeIds.resize(size_t(count));
  for (int64_t k = 0; k < count; ++k) {
    int64_t e = order[size_t(k)];
    out.indices[size_t(k)] = int32_t(src[size_t(e)]);
    out.edgeIds[size_t(k)] = edgeIds[size_t(e)];
  }
  if (edgeTypes.empty())
    return;
  out.edgeTypes.resize(size_t(count));
  for (int64_t k = 0; k < count; ++k)
    out.edgeTypes[size_t(k)] = edgeTypes[size_t(order[size_t(k)])];
}

} // namespace gnnrt
