//===- PartitionPlan.cpp - Edge placement, halos and per-part counts ------===//
//
// From a node assignment to everything that needs the whole graph at once:
// nodes and edges grouped by part (stable counting sorts, so each group is
// ascending), every part's halo and the counts the manifest records. The
// halo of a part is the set of remote endpoints of its edges; it is sorted by
// (owner, global id), the one order both sides of an exchange agree on
// without communicating. Cost: O(N + E) plus sorting the halos.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/PartitionPlan.h"

#include "gnnrt/graph/Graph.h"
#include "gnnrt/support/Error.h"

#include <algorithm>

namespace gnnrt {

bool PartCounts::operator==(const PartCounts &o) const {
  return ownedNodes == o.ownedNodes && edges == o.edges &&
         haloNodes == o.haloNodes && sendNodes == o.sendNodes &&
         train == o.train && valid == o.valid && test == o.test &&
         cutEdges == o.cutEdges && cachedNodes == o.cachedNodes;
}

PartitionPlan buildPartitionPlan(const Dataset &ds, std::vector<int32_t> owner,
                                 int numParts, EdgeAssign assign) {
  const int64_t n = ds.numNodes, m = ds.numEdges();
  if (numParts < 1)
    throw DataError("partition: the number of parts must be at least 1 (got " +
                    std::to_string(numParts) + ")");
  if (int64_t(owner.size()) != n)
    throw DataError("partition: the assignment has " +
                    std::to_string(owner.size()) + " entries for " +
                    std::to_string(n) + " nodes");
  for (int64_t v = 0; v < n; ++v)
    if (owner[size_t(v)] < 0 || owner[size_t(v)] >= numParts)
      throw DataError("partition: node " + std::to_string(v) +
                      " is assigned to part " +
                      std::to_string(owner[size_t(v)]) + ", expected [0, " +
                      std::to_string(numParts) + ")");

  PartitionPlan plan;
  plan.numParts = numParts;
  plan.edgeAssign = assign;
  plan.counts.assign(size_t(numParts), PartCounts{});
  plan.cacheOffsets.assign(size_t(numParts) + 1, 0); // no cache yet

  // Nodes grouped by part; a node's local id is its rank within its group.
  {
    std::vector<int64_t> key(owner.begin(), owner.end());
    plan.partNodes = countingSortOrder(numParts, key);
  }
  plan.nodeOffsets.assign(size_t(numParts) + 1, 0);
  for (int32_t p : owner)
    ++plan.nodeOffsets[size_t(p) + 1];
  for (int p = 0; p < numParts; ++p) {
    plan.nodeOffsets[size_t(p) + 1] += plan.nodeOffsets[size_t(p)];
    plan.counts[size_t(p)].ownedNodes =
        plan.nodeOffsets[size_t(p) + 1] - plan.nodeOffsets[size_t(p)];
  }
  plan.localId.resize(size_t(n));
  for (int p = 0; p < numParts; ++p)
    for (int64_t k = plan.nodeOffsets[size_t(p)];
         k < plan.nodeOffsets[size_t(p) + 1]; ++k)
      plan.localId[size_t(plan.partNodes[size_t(k)])] =
          k - plan.nodeOffsets[size_t(p)];

  // Edges grouped by the part of the endpoint that places them.
  const std::vector<int64_t> &placer =
      assign == EdgeAssign::Dst ? ds.dst : ds.src;
  const std::vector<int64_t> &other =
      assign == EdgeAssign::Dst ? ds.src : ds.dst;
  {
    std::vector<int64_t> key(static_cast<size_t>(m));
    for (int64_t e = 0; e < m; ++e)
      key[size_t(e)] = owner[size_t(placer[size_t(e)])];
    plan.partEdges = countingSortOrder(numParts, key);
    plan.edgeOffsets.assign(size_t(numParts) + 1, 0);
    for (int64_t p : key)
      ++plan.edgeOffsets[size_t(p) + 1];
  }
  for (int p = 0; p < numParts; ++p) {
    plan.edgeOffsets[size_t(p) + 1] += plan.edgeOffsets[size_t(p)];
    plan.counts[size_t(p)].edges =
        plan.edgeOffsets[size_t(p) + 1] - plan.edgeOffsets[size_t(p)];
  }

  // Halos: the first sighting of a remote endpoint in part p (stamp != p)
  // adds it; every edge with a remote endpoint is a cut edge.
  std::vector<int32_t> stamp(size_t(n), -1);
  plan.haloOffsets.assign(size_t(numParts) + 1, 0);
  for (int p = 0; p < numParts; ++p) {
    size_t first = plan.haloNodes.size();
    PartCounts &c = plan.counts[size_t(p)];
    for (int64_t k = plan.edgeOffsets[size_t(p)];
         k < plan.edgeOffsets[size_t(p) + 1]; ++k) {
      int64_t w = other[size_t(plan.partEdges[size_t(k)])];
      if (owner[size_t(w)] == p)
        continue;
      ++c.cutEdges;
      if (stamp[size_t(w)] != p) {
        stamp[size_t(w)] = p;
        plan.haloNodes.push_back(w);
      }
    }
    std::sort(plan.haloNodes.begin() + ptrdiff_t(first), plan.haloNodes.end(),
              [&](int64_t a, int64_t b) {
                int32_t oa = owner[size_t(a)], ob = owner[size_t(b)];
                return oa != ob ? oa < ob : a < b;
              });
    plan.haloOffsets[size_t(p) + 1] = int64_t(plan.haloNodes.size());
    c.haloNodes = int64_t(plan.haloNodes.size() - first);
    plan.edgeCut += c.cutEdges;
  }
  // Each halo entry is one row its owner sends.
  for (int64_t w : plan.haloNodes)
    ++plan.counts[size_t(owner[size_t(w)])].sendNodes;

  auto countSplit = [&](const std::vector<int64_t> &idx,
                        int64_t PartCounts::*field) {
    for (int64_t v : idx)
      ++(plan.counts[size_t(owner[size_t(v)])].*field);
  };
  countSplit(ds.trainIdx, &PartCounts::train);
  countSplit(ds.validIdx, &PartCounts::valid);
  countSplit(ds.testIdx, &PartCounts::test);

  plan.owner = std::move(owner);
  return plan;
}

} // namespace gnnrt
