//===- EdgeSet.cpp - A sorted set of (src, relation, dst) links -----------===//
//
// See gnnrt/data/links/EdgeSet.h.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/links/EdgeSet.h"

#include <algorithm>

namespace gnnrt {

EdgeSet::EdgeSet(int64_t numNodes, const std::vector<int64_t> &src,
                 const std::vector<int64_t> &dst,
                 const std::vector<int32_t> &relation)
    : numNodes(numNodes) {
  keys.reserve(src.size());
  for (size_t e = 0; e < src.size(); ++e)
    add(src[e], dst[e], relation.empty() ? 0 : relation[e]);
  seal();
}

void EdgeSet::add(int64_t src, int64_t dst, int32_t relation) {
  keys.push_back({src, int64_t(relation) * numNodes + dst});
}

void EdgeSet::seal() {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  dstOf.resize(keys.size());
  for (size_t i = 0; i < keys.size(); ++i)
    dstOf[i] = numNodes ? keys[i].rest % numNodes : 0;
  // Where each source's keys start: a lookup then searches one node's
  // keys (a cache line or two) instead of the whole set.
  srcStart.assign(size_t(numNodes) + 1, 0);
  bool inRange = true;
  for (const Key &key : keys) {
    inRange = inRange && key.src >= 0 && key.src < numNodes;
    if (inRange)
      ++srcStart[size_t(key.src) + 1];
  }
  if (!inRange) {
    srcStart.clear();
    return;
  }
  for (int64_t v = 0; v < numNodes; ++v)
    srcStart[size_t(v) + 1] += srcStart[size_t(v)];
}

const EdgeSet::Key *EdgeSet::lowerBound(Key key) const {
  const Key *begin = keys.data(), *end = keys.data() + keys.size();
  if (!srcStart.empty() && key.src >= 0 && key.src < numNodes) {
    end = keys.data() + srcStart[size_t(key.src) + 1];
    begin = keys.data() + srcStart[size_t(key.src)];
  }
  return std::lower_bound(begin, end, key);
}

bool EdgeSet::contains(int64_t src, int64_t dst, int32_t relation) const {
  const Key key{src, int64_t(relation) * numNodes + dst};
  const Key *at = lowerBound(key);
  return at != keys.data() + keys.size() && *at == key;
}

std::pair<const int64_t *, const int64_t *>
EdgeSet::dsts(int64_t src, int32_t relation, int64_t dstBegin,
              int64_t dstEnd) const {
  const int64_t base = int64_t(relation) * numNodes;
  const size_t first = size_t(lowerBound({src, base + dstBegin}) - keys.data());
  const size_t last = size_t(lowerBound({src, base + dstEnd}) - keys.data());
  return {dstOf.data() + first, dstOf.data() + last};
}

int64_t EdgeSet::degree(int64_t src, int32_t relation) const {
  auto range = dsts(src, relation, 0, numNodes);
  return range.second - range.first;
}

std::vector<int64_t> EdgeSet::degrees() const {
  // Relation 0's keys are rest < numNodes: one pass in key order.
  std::vector<int64_t> out(size_t(numNodes), 0);
  for (const Key &key : keys)
    if (key.rest < numNodes)
      ++out[size_t(key.src)];
  return out;
}

} // namespace gnnrt
