//===- EdgeSplit.cpp - A deterministic random split of a graph's edges ----===//
//
// See gnnrt/data/links/EdgeSplit.h. The pairs are put in a canonical order
// (deduplicated, sorted) before anything random happens, so the split
// depends on the graph, not on how its edge list was ordered; the shuffle
// and the negatives draw from their own Philox streams of the seed.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/links/EdgeSplit.h"

#include "gnnrt/data/links/EdgeSet.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/Random.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <string>

namespace gnnrt {

namespace {

// Philox streams of the split's seed ("LS" + use), apart from every other
// use of a seed in gnnrt.
constexpr uint64_t kShuffleStream = 0x4c53000000000001ull;
constexpr uint64_t kNegativeStream = 0x4c53000000000002ull;

std::string fractionText(double f) {
  std::ostringstream out;
  out << f;
  return out.str();
}

void checkFractions(const EdgeSplitOptions &o) {
  const std::pair<const char *, double> fractions[] = {
      {"train", o.train}, {"valid", o.valid}, {"test", o.test}};
  for (const auto &[name, f] : fractions)
    if (!(f >= 0 && f <= 1))
      throw DataError("edge split: the " + std::string(name) + " fraction " +
                      fractionText(f) + " is not in [0, 1]");
  const double sum = o.train + o.valid + o.test;
  if (sum > 1 + 1e-9)
    throw DataError("edge split: the fractions train " + fractionText(o.train) +
                    ", valid " + fractionText(o.valid) + ", test " +
                    fractionText(o.test) + " sum to " + fractionText(sum) +
                    ", above 1");
}

int64_t share(double fraction, int64_t pairs) {
  // The epsilon keeps 0.07 * 100 = 7.000000000000001 and friends at 7.
  return int64_t(std::floor(fraction * double(pairs) + 1e-9));
}

/// The graph's distinct pairs, (min, max) when undirected, sorted.
std::vector<std::pair<int64_t, int64_t>>
canonicalPairs(int64_t numNodes, const std::vector<int64_t> &src,
               const std::vector<int64_t> &dst, bool undirected) {
  std::vector<std::pair<int64_t, int64_t>> pairs(src.size());
  for (size_t e = 0; e < src.size(); ++e) {
    int64_t u = src[e], v = dst[e];
    if (u < 0 || u >= numNodes || v < 0 || v >= numNodes)
      throw DataError("edge split: edge " + std::to_string(e) + " (" +
                      std::to_string(u) + " -> " + std::to_string(v) +
                      ") has a node id out of range [0, " +
                      std::to_string(numNodes) + ")");
    if (undirected && v < u)
      std::swap(u, v);
    pairs[e] = {u, v};
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

/// `count` distinct non-edges without self loops, (min, max) when
/// undirected, in draw order. `available` is how many there are.
std::vector<std::pair<int64_t, int64_t>>
drawNegatives(int64_t numNodes, const EdgeSet &edges, bool undirected,
              int64_t count, int64_t available, uint64_t seed) {
  std::vector<std::pair<int64_t, int64_t>> drawn;
  CounterRng rng(seed, kNegativeStream);
  if (available <= 2 * count) {
    // Dense: rejection would mostly reject. Enumerate the non-edges (at
    // most 2 * count of them) and take a random subset.
    std::vector<std::pair<int64_t, int64_t>> free;
    for (int64_t u = 0; u < numNodes; ++u)
      for (int64_t v = undirected ? u + 1 : 0; v < numNodes; ++v)
        if (u != v && !edges.contains(u, v))
          free.push_back({u, v});
    for (int64_t i = 0; i < count; ++i)
      std::swap(free[size_t(i)],
                free[size_t(i + int64_t(rng.nextBelow64(uint64_t(free.size()) -
                                                        uint64_t(i))))]);
    free.resize(size_t(count));
    return free;
  }
  // Sparse: at most half the candidates are taken, so each draw is
  // accepted with probability above 1/2.
  std::set<std::pair<int64_t, int64_t>> seen;
  while (int64_t(drawn.size()) < count) {
    int64_t u = int64_t(rng.nextBelow64(uint64_t(numNodes)));
    int64_t v = int64_t(rng.nextBelow64(uint64_t(numNodes)));
    if (u == v)
      continue;
    if (undirected && v < u)
      std::swap(u, v);
    if (edges.contains(u, v) || !seen.insert({u, v}).second)
      continue;
    drawn.push_back({u, v});
  }
  return drawn;
}

void append(LinkPairs &to, const std::pair<int64_t, int64_t> &pair) {
  to.src.push_back(pair.first);
  to.dst.push_back(pair.second);
}

} // namespace

EdgeSplit randomEdgeSplit(int64_t numNodes, const std::vector<int64_t> &src,
                          const std::vector<int64_t> &dst,
                          const EdgeSplitOptions &options) {
  checkFractions(options);
  const bool undirected = options.undirected;
  std::vector<std::pair<int64_t, int64_t>> pairs =
      canonicalPairs(numNodes, src, dst, undirected);
  const int64_t numPairs = int64_t(pairs.size());
  const int64_t numValid = share(options.valid, numPairs);
  const int64_t numTest = share(options.test, numPairs);
  const bool whole =
      std::abs(options.train + options.valid + options.test - 1) < 1e-9;
  const int64_t numTrain =
      whole ? numPairs - numValid - numTest : share(options.train, numPairs);
  if (numTrain <= 0)
    throw DataError("edge split: no pair left for train (" +
                    std::to_string(numPairs) + " pairs, train fraction " +
                    fractionText(options.train) + ")");

  // Negatives avoid every edge of the full graph, before the shuffle
  // (which does not change the set).
  EdgeSet edges(numNodes);
  int64_t selfLoops = 0;
  for (const auto &[u, v] : pairs) {
    edges.add(u, v);
    selfLoops += u == v;
  }
  edges.seal();
  const int64_t candidates =
      undirected ? numNodes * (numNodes - 1) / 2 : numNodes * (numNodes - 1);
  const int64_t available = candidates - (numPairs - selfLoops);
  const int64_t numNegatives = numValid + numTest;
  if (numNegatives > available)
    throw DataError(
        "edge split: valid and test need " + std::to_string(numNegatives) +
        " negative pairs, but the graph (" + std::to_string(numNodes) +
        " nodes, " + std::to_string(numPairs) + " pairs) has only " +
        std::to_string(available) + " pairs that are not edges");

  // Fisher-Yates from the front: valid, then test, then train.
  CounterRng rng(options.seed, kShuffleStream);
  for (int64_t i = 0; i + 1 < numPairs; ++i)
    std::swap(
        pairs[size_t(i)],
        pairs[size_t(i + int64_t(rng.nextBelow64(uint64_t(numPairs - i))))]);
  EdgeSplit split;
  for (int64_t i = 0; i < numValid + numTest + numTrain; ++i)
    append(i < numValid             ? split.validPos
           : i < numValid + numTest ? split.testPos
                                    : split.trainPos,
           pairs[size_t(i)]);

  std::vector<std::pair<int64_t, int64_t>> negatives = drawNegatives(
      numNodes, edges, undirected, numNegatives, available, options.seed);
  for (int64_t i = 0; i < numNegatives; ++i)
    append(i < numValid ? split.validNeg : split.testNeg, negatives[size_t(i)]);

  std::vector<std::pair<int64_t, int64_t>> graph;
  graph.reserve(split.trainPos.size() * (undirected ? 2 : 1));
  for (size_t i = 0; i < split.trainPos.size(); ++i) {
    const int64_t u = split.trainPos.src[i], v = split.trainPos.dst[i];
    graph.push_back({u, v});
    if (undirected && u != v)
      graph.push_back({v, u});
  }
  std::sort(graph.begin(), graph.end());
  // 0: no edge, 1: edges, none in train, 2: a train edge.
  std::vector<uint8_t> state(size_t(numNodes), 0);
  for (const auto &[u, v] : pairs)
    state[size_t(u)] = state[size_t(v)] = 1;
  for (const auto &pair : graph) {
    append(split.graph, pair);
    state[size_t(pair.first)] = state[size_t(pair.second)] = 2;
  }
  split.nodesWithoutTrainEdge =
      int64_t(std::count(state.begin(), state.end(), uint8_t(1)));
  if (options.requireTrainEdges && split.nodesWithoutTrainEdge > 0)
    throw DataError(
        "edge split: " + std::to_string(split.nodesWithoutTrainEdge) +
        " nodes have edges but no train edge (the first is node " +
        std::to_string(std::find(state.begin(), state.end(), uint8_t(1)) -
                       state.begin()) +
        ")");
  return split;
}

} // namespace gnnrt
