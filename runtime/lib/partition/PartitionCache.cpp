//===- PartitionCache.cpp - Choosing every part's feature cache -----------===//
//
// GLT keeps, beside a part's own feature rows, a cache of the rows of the
// remote nodes its sampled batches read most, so that the hottest remote
// rows are gathered locally instead of fetched every batch. The budget is
// relative to the part (cacheRatio x its owned nodes, so memory grows with
// the part evenly), and the choice is by the part's own pre-sampled access
// counts: the same remote node may be cached by several parts. A node no
// pre-sampled batch read is never cached; it would only take memory.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/PartitionPlan.h"

#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cmath>

namespace gnnrt {

void selectFeatureCache(PartitionPlan &plan, const AccessCounts &hotness,
                        double cacheRatio) {
  if (!(cacheRatio >= 0 && cacheRatio <= 1))
    throw DataError("partition: the cache ratio must lie in [0, 1]");
  const int64_t n = int64_t(plan.owner.size());
  if (hotness.numParts != plan.numParts || hotness.numNodes != n)
    throw DataError(
        "partition: access counts of " + std::to_string(hotness.numParts) +
        " parts and " + std::to_string(hotness.numNodes) +
        " nodes do not fit a plan of " + std::to_string(plan.numParts) +
        " parts and " + std::to_string(n) + " nodes");
  plan.cacheRatio = cacheRatio;
  plan.cacheOffsets.assign(size_t(plan.numParts) + 1, 0);
  plan.cachedNodes.clear();
  std::vector<int64_t> candidates;
  for (int p = 0; p < plan.numParts; ++p) {
    PartCounts &c = plan.counts[size_t(p)];
    // The epsilon keeps 0.29 x 100 from flooring to 28.
    const int64_t budget =
        int64_t(std::floor(cacheRatio * double(c.ownedNodes) + 1e-9));
    candidates.clear();
    if (budget > 0)
      for (int64_t v = 0; v < n; ++v)
        if (plan.owner[size_t(v)] != p && hotness.at(p, v) > 0)
          candidates.push_back(v);
    // Hottest first, lower id first among equals.
    auto hotter = [&](int64_t a, int64_t b) {
      int32_t ca = hotness.at(p, a), cb = hotness.at(p, b);
      return ca != cb ? ca > cb : a < b;
    };
    size_t keep = size_t(std::min<int64_t>(budget, int64_t(candidates.size())));
    std::partial_sort(candidates.begin(), candidates.begin() + ptrdiff_t(keep),
                      candidates.end(), hotter);
    std::sort(candidates.begin(), candidates.begin() + ptrdiff_t(keep));
    plan.cachedNodes.insert(plan.cachedNodes.end(), candidates.begin(),
                            candidates.begin() + ptrdiff_t(keep));
    plan.cacheOffsets[size_t(p) + 1] = int64_t(plan.cachedNodes.size());
    c.cachedNodes = int64_t(keep);
  }
}

void addFeatureCache(PartitionPlan &plan, const Dataset &ds,
                     const PartitionOptions &options) {
  checkSamplingOptions(options);
  if (options.cacheRatio == 0) {
    selectFeatureCache(plan, AccessCounts{plan.numParts, ds.numNodes, 0, {}},
                       0);
    return;
  }
  selectFeatureCache(plan,
                     sampleAccessCounts(ds, plan.owner, plan.numParts, options),
                     options.cacheRatio);
}

} // namespace gnnrt
