//===- Reorder.cpp - Node orders that make gathers hit the cache ----------===//
//
// Three candidate orders and the cache model that picks one of them (see
// Reorder.h). Each order is a deterministic function of the graph: the
// parallel loops write one element per node, and ties break by node or
// label id, never by thread timing.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/graph/Reorder.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <numeric>

namespace gnnrt {

namespace {

int64_t inDegree(const GraphView &g, int64_t v) {
  return g.inOffsets[v + 1] - g.inOffsets[v];
}

/// The permutation that lists the nodes by ascending key, ties by id.
std::vector<int64_t> sortedBy(const std::vector<int64_t> &key) {
  std::vector<int64_t> order(key.size());
  std::iota(order.begin(), order.end(), int64_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return key[a] < key[b]; });
  return order;
}

/// A label's priority among labels tied for most frequent in one round:
/// the same for every node, so a tie resolves the same way everywhere and
/// labels merge instead of flickering.
uint64_t labelPriority(int64_t label, int round) {
  uint64_t x = uint64_t(label) * 0x9E3779B97F4A7C15ull + uint64_t(round);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  return x ^ (x >> 29);
}

/// Rounds of label propagation, and the share of nodes whose label may still
/// change when it stops early.
constexpr int kPropagationRounds = 10;
constexpr double kSettledShare = 0.001;

/// Synchronous label propagation: every node takes the label most frequent
/// among its in-neighbours (keeping its own when that is among the most
/// frequent), from all-distinct labels, but only a label that held fewer
/// than maxCommunity nodes at the start of the round: without the cap one
/// label floods the graph (a community of all nodes orders nothing), and a
/// community no larger than a share of the cache is what gathers reuse.
/// Then the communities, one after another, each in id order.
std::vector<int64_t> communityOrder(const GraphView &g, int64_t maxCommunity) {
  const int64_t n = g.numDst;
  std::vector<int64_t> label(static_cast<size_t>(n)),
      next(static_cast<size_t>(n)), size(static_cast<size_t>(n), 1);
  std::iota(label.begin(), label.end(), int64_t(0));
  for (int round = 0; round < kPropagationRounds; ++round) {
    int64_t changed = 0;
#pragma omp parallel reduction(+ : changed)
    {
      // Label counts of one node's neighbours: an open-addressed table of
      // at least twice the degree (a sort of the labels took 5x longer).
      std::vector<int64_t> keys, counts;
#pragma omp for schedule(dynamic, 1024)
      for (int64_t v = 0; v < n; ++v) {
        const int64_t begin = g.inOffsets[v], end = g.inOffsets[v + 1];
        size_t slots = 16;
        while (slots < size_t(2 * (end - begin)))
          slots *= 2;
        keys.assign(slots, -1);
        counts.assign(slots, 0);
        const int64_t current = label[size_t(v)];
        int64_t own = 0;
        for (int64_t k = begin; k < end; ++k) {
          const int64_t l = label[size_t(g.edgeSrc[k])];
          own += l == current;
          size_t h = size_t(labelPriority(l, 0)) & (slots - 1);
          while (keys[h] != -1 && keys[h] != l)
            h = (h + 1) & (slots - 1);
          keys[h] = l;
          ++counts[h];
        }
        int64_t best = current, bestCount = own;
        uint64_t bestPriority = 0;
        for (size_t h = 0; h < slots; ++h) {
          if (keys[h] < 0 || size[size_t(keys[h])] >= maxCommunity)
            continue;
          const uint64_t priority = labelPriority(keys[h], round + 1);
          if (counts[h] > bestCount ||
              (counts[h] == bestCount && counts[h] > own &&
               priority > bestPriority)) {
            best = keys[h];
            bestCount = counts[h];
            bestPriority = priority;
          }
        }
        next[size_t(v)] = best;
        changed += best != current;
      }
    }
    label.swap(next);
    std::fill(size.begin(), size.end(), 0);
    for (int64_t l : label)
      ++size[size_t(l)];
    if (double(changed) < kSettledShare * double(n))
      break;
  }
  return sortedBy(label);
}

/// Reverse Cuthill-McKee: breadth-first from a node of least degree,
/// neighbours by ascending degree, every component in turn; reversed.
std::vector<int64_t> rcmOrder(const GraphView &g) {
  const int64_t n = g.numDst;
  std::vector<int64_t> degree(static_cast<size_t>(n));
  for (int64_t v = 0; v < n; ++v)
    degree[size_t(v)] = inDegree(g, v);
  const std::vector<int64_t> starts = sortedBy(degree);
  std::vector<char> visited(size_t(n), 0);
  std::vector<int64_t> order;
  order.reserve(size_t(n));
  std::vector<int64_t> neighbours;
  for (int64_t s : starts) {
    if (visited[size_t(s)])
      continue;
    visited[size_t(s)] = 1;
    size_t head = order.size();
    order.push_back(s);
    while (head < order.size()) {
      const int64_t u = order[head++];
      neighbours.clear();
      for (int64_t k = g.inOffsets[u]; k < g.inOffsets[u + 1]; ++k) {
        const int64_t w = g.edgeSrc[k];
        if (!visited[size_t(w)]) {
          visited[size_t(w)] = 1;
          neighbours.push_back(w);
        }
      }
      std::stable_sort(neighbours.begin(), neighbours.end(),
                       [&](int64_t a, int64_t b) {
                         return degree[size_t(a)] < degree[size_t(b)];
                       });
      order.insert(order.end(), neighbours.begin(), neighbours.end());
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

std::vector<int64_t> degreeOrder(const GraphView &g) {
  std::vector<int64_t> key(static_cast<size_t>(g.numDst));
  for (int64_t v = 0; v < g.numDst; ++v)
    key[size_t(v)] = -inDegree(g, v);
  return sortedBy(key);
}

/// Saving below which chooseNodeOrder keeps the original ids.
constexpr double kWorthwhileSaving = 0.1;
constexpr int kCacheWays = 16;
/// gatherMissRate's sample of a large graph: runs of this many consecutive
/// destinations (long enough to reuse a community's rows), about this many
/// edges in all.
constexpr int64_t kModelRun = 65536;
constexpr int64_t kModelEdges = int64_t(16) << 20;

} // namespace

const char *nodeOrderName(NodeOrder order) {
  switch (order) {
  case NodeOrder::Original:
    return "original";
  case NodeOrder::Community:
    return "community";
  case NodeOrder::Rcm:
    return "rcm";
  case NodeOrder::Degree:
    return "degree";
  }
  return "original";
}

std::optional<NodeOrder> nodeOrderFromName(const std::string &name) {
  for (NodeOrder order : {NodeOrder::Original, NodeOrder::Community,
                          NodeOrder::Rcm, NodeOrder::Degree})
    if (name == nodeOrderName(order))
      return order;
  return std::nullopt;
}

std::vector<int64_t> computeNodeOrder(const GraphView &g, NodeOrder order,
                                      int64_t rowBytes) {
  switch (order) {
  case NodeOrder::Original:
    break;
  case NodeOrder::Community:
    return communityOrder(
        g, std::max<int64_t>(1, lastLevelCacheBytes() / rowBytes / 2));
  case NodeOrder::Rcm:
    return rcmOrder(g);
  case NodeOrder::Degree:
    return degreeOrder(g);
  }
  std::vector<int64_t> identity(static_cast<size_t>(g.numDst));
  std::iota(identity.begin(), identity.end(), int64_t(0));
  return identity;
}

double gatherMissRate(const GraphView &g, const std::vector<int64_t> &newToOld,
                      int64_t rowBytes, int64_t cacheBytes) {
  if (g.numEdges == 0)
    return 0;
  const int64_t n = g.numDst;
  std::vector<int64_t> oldToNew;
  if (!newToOld.empty()) {
    oldToNew.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i)
      oldToNew[size_t(newToOld[size_t(i)])] = i;
  }
  // A set-associative LRU cache of whole rows; consecutive rows fall in
  // consecutive sets, as consecutive lines do in hardware.
  const int64_t rows = std::max<int64_t>(kCacheWays, cacheBytes / rowBytes);
  const int64_t sets = rows / kCacheWays;
  std::vector<int64_t> tag(size_t(sets * kCacheWays), -1);
  std::vector<int64_t> used(size_t(sets * kCacheWays), 0);
  // A large graph is sampled: runs of kModelRun destinations spread evenly
  // over the walk, about kModelEdges edges in all.
  const int64_t runs = std::max<int64_t>(
      1, std::min<int64_t>(
             n / kModelRun,
             kModelEdges / std::max<int64_t>(1, g.numEdges / n * kModelRun)));
  const int64_t stride = runs > 1 ? n / runs : n;
  const int64_t runLength = runs > 1 ? kModelRun : n;
  int64_t clock = 0, misses = 0, gathered = 0;
  for (int64_t start = 0; start < n; start += stride) {
    for (int64_t i = start; i < std::min(n, start + runLength); ++i) {
      const int64_t v = newToOld.empty() ? i : newToOld[size_t(i)];
      for (int64_t k = g.inOffsets[v]; k < g.inOffsets[v + 1]; ++k) {
        const int64_t u = g.edgeSrc[k];
        const int64_t row = oldToNew.empty() ? u : oldToNew[size_t(u)];
        int64_t *t = tag.data() + (row % sets) * kCacheWays;
        int64_t *age = used.data() + (row % sets) * kCacheWays;
        int way = 0;
        while (way < kCacheWays && t[way] != row)
          ++way;
        if (way == kCacheWays) {
          ++misses;
          way = int(std::min_element(age, age + kCacheWays) - age);
          t[way] = row;
        }
        age[way] = ++clock;
      }
      gathered += g.inOffsets[v + 1] - g.inOffsets[v];
    }
  }
  return gathered ? double(misses) / double(gathered) : 0;
}

int64_t lastLevelCacheBytes() {
  // $GNNRT_CACHE_BYTES stands in for the machine's (tests model a small
  // cache on a small graph).
  if (const char *bytes = std::getenv("GNNRT_CACHE_BYTES"))
    if (std::atoll(bytes) > 0)
      return std::atoll(bytes);
  // sysfs names the L3 that CPU 0 shares with its neighbours; glibc's
  // sysconf(_SC_LEVEL3_CACHE_SIZE) reports the whole package's (ten times
  // as much on a 2-core slice of an EPYC), which no thread can use.
  std::ifstream file("/sys/devices/system/cpu/cpu0/cache/index3/size");
  int64_t size = 0;
  char unit = 0;
  if (file >> size >> unit && size > 0)
    return unit == 'M' ? size << 20 : unit == 'K' ? size << 10 : size;
  return int64_t(32) << 20;
}

NodeOrderChoice chooseNodeOrder(const GraphView &g, int64_t rowBytes) {
  const int64_t cache = lastLevelCacheBytes();
  NodeOrderChoice best;
  // Rows that all fit in the cache miss once each whatever the order.
  if (g.numDst * rowBytes <= cache)
    return best;
  best.originalMissRate = best.missRate =
      gatherMissRate(g, {}, rowBytes, cache);
  // The candidates are independent: one per thread.
  const NodeOrder candidates[] = {NodeOrder::Community, NodeOrder::Rcm,
                                  NodeOrder::Degree};
  std::vector<int64_t> orders[3];
  double rates[3];
  for (int c = 0; c < 3; ++c)
    orders[c] = computeNodeOrder(g, candidates[c], rowBytes);
#pragma omp parallel for schedule(dynamic, 1)
  for (int c = 0; c < 3; ++c)
    rates[c] = gatherMissRate(g, orders[c], rowBytes, cache);
  for (int c = 0; c < 3; ++c)
    if (rates[c] < best.missRate) {
      best.order = candidates[c];
      best.newToOld = std::move(orders[c]);
      best.missRate = rates[c];
    }
  if (best.missRate > (1 - kWorthwhileSaving) * best.originalMissRate) {
    best.order = NodeOrder::Original;
    best.newToOld.clear();
    best.missRate = best.originalMissRate;
  }
  return best;
}

} // namespace gnnrt
