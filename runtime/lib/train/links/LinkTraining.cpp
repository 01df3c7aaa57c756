//===- LinkTraining.cpp - the data of link-prediction training ------------===//
//
// See LinkTraining.h.
//
//===----------------------------------------------------------------------===//

#include "LinkTraining.h"

#include "gnnrt/data/links/NegativeSampling.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace gnnrt {

void fillPairBatch(int64_t numNodes, const LinkPairs &positive,
                   const LinkPairs &negative, PairBatch &out) {
  fillPairBatch(numNodes, numNodes, positive, negative, out);
}

void fillPairBatch(int64_t numSrc, int64_t numDst, const LinkPairs &positive,
                   const LinkPairs &negative, PairBatch &out) {
  const int64_t p = int64_t(positive.size()), n = int64_t(negative.size());
  auto srcOf = [&](int64_t i) {
    return i < p ? positive.src[size_t(i)] : negative.src[size_t(i - p)];
  };
  auto dstOf = [&](int64_t i) {
    return i < p ? positive.dst[size_t(i)] : negative.dst[size_t(i - p)];
  };
  for (int64_t i = 0; i < p + n; ++i)
    for (auto [v, count] : {std::pair{srcOf(i), numSrc}, {dstOf(i), numDst}})
      if (v < 0 || v >= count)
        throw DataError("pair " + std::to_string(i) + ": node id " +
                        std::to_string(v) + " out of range [0, " +
                        std::to_string(count) + ")");
  // GraphStorage orders edges by destination, then source, stably: a radix
  // sort by source, then stably by destination, whose last counts are the
  // CSR's offsets; the labels follow their pairs into that order.
  std::vector<int64_t> &starts = out.starts;
  auto countingPass = [&](auto keyOf, int64_t keys,
                          const std::vector<int64_t> *from,
                          std::vector<int64_t> &to) {
    starts.assign(size_t(keys) + 1, 0);
    for (int64_t i = 0; i < p + n; ++i)
      ++starts[size_t(keyOf(i)) + 1];
    for (int64_t v = 0; v < keys; ++v)
      starts[size_t(v) + 1] += starts[size_t(v)];
    to.resize(size_t(p + n));
    std::vector<int64_t> next(starts.begin(), starts.end() - 1);
    for (int64_t k = 0; k < p + n; ++k) {
      const int64_t i = from ? (*from)[size_t(k)] : k;
      to[size_t(next[size_t(keyOf(i))]++)] = i;
    }
  };
  countingPass(srcOf, numSrc, nullptr, out.bySource);
  countingPass(dstOf, numDst, &out.bySource, out.byDestination);
  out.sources.resize(size_t(p + n));
  out.labels.resize(size_t(p + n));
  for (int64_t k = 0; k < p + n; ++k) {
    const int64_t i = out.byDestination[size_t(k)];
    out.sources[size_t(k)] = int32_t(srcOf(i));
    out.labels[size_t(k)] = i < p ? 1 : 0;
  }
  out.graph.assignCsr(numSrc, numDst, starts, out.sources,
                      /*outEdges=*/true);
  out.positives = p;
  out.negatives = n;
}

std::vector<int64_t> pairsOverEndpoints(const LinkPairs &positive,
                                        const LinkPairs &negative,
                                        PairBatch &local) {
  std::vector<int64_t> endpoints;
  endpoints.reserve(2 * (positive.size() + negative.size()));
  for (const LinkPairs *pairs : {&positive, &negative}) {
    endpoints.insert(endpoints.end(), pairs->src.begin(), pairs->src.end());
    endpoints.insert(endpoints.end(), pairs->dst.begin(), pairs->dst.end());
  }
  std::sort(endpoints.begin(), endpoints.end());
  endpoints.erase(std::unique(endpoints.begin(), endpoints.end()),
                  endpoints.end());
  auto renumbered = [&](const LinkPairs &pairs) {
    LinkPairs over;
    over.src.reserve(pairs.size());
    over.dst.reserve(pairs.size());
    auto at = [&](int64_t v) {
      return int64_t(std::lower_bound(endpoints.begin(), endpoints.end(), v) -
                     endpoints.begin());
    };
    for (size_t i = 0; i < pairs.size(); ++i) {
      over.src.push_back(at(pairs.src[i]));
      over.dst.push_back(at(pairs.dst[i]));
    }
    return over;
  };
  fillPairBatch(int64_t(endpoints.size()), renumbered(positive),
                renumbered(negative), local);
  return endpoints;
}

PairBatch makePairBatch(int64_t numNodes, const LinkPairs &positive,
                        const LinkPairs &negative) {
  PairBatch batch;
  fillPairBatch(numNodes, positive, negative, batch);
  return batch;
}

PairBatch makeTriplePairBatch(int64_t numNodes, int32_t numRelations,
                              const TripleList &positive,
                              const TripleList &negative) {
  const int64_t p = int64_t(positive.size()), n = int64_t(negative.size());
  auto of = [&](int64_t i) -> std::tuple<int64_t, int32_t, int64_t> {
    const TripleList &list = i < p ? positive : negative;
    const size_t j = size_t(i < p ? i : i - p);
    return {list.head[j], list.relation[j], list.tail[j]};
  };
  std::vector<int64_t> order(size_t(p + n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const auto [ha, ra, ta] = of(a);
    const auto [hb, rb, tb] = of(b);
    return ta != tb ? ta < tb : ha < hb;
  });
  std::vector<int64_t> src(order.size()), dst(order.size());
  std::vector<int32_t> relation(order.size());
  PairBatch batch;
  batch.labels.resize(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    const auto [h, r, t] = of(order[k]);
    src[k] = h;
    dst[k] = t;
    relation[k] = r;
    batch.labels[k] = order[k] < p ? 1 : 0;
  }
  batch.graph =
      GraphStorage::build(numNodes, numNodes, src, dst, relation, numRelations);
  batch.positives = p;
  batch.negatives = n;
  batch.byDestination = std::move(order);
  return batch;
}

namespace {

/// Whether every edge's reverse is an edge too.
bool isSymmetric(const Dataset &ds) {
  const EdgeSet edges(ds.numNodes, ds.src, ds.dst);
  for (size_t e = 0; e < ds.src.size(); ++e)
    if (!edges.contains(ds.dst[e], ds.src[e]))
      return false;
  return true;
}

} // namespace

LinkSplitData::LinkSplitData(const Dataset &ds,
                             const TrainSettings::Links &links, uint64_t seed,
                             bool addReverseEdges, const std::string &where)
    : numNodes(ds.numNodes), negativesPerLink(links.negatives),
      negativeSeed(seed), known(ds.numNodes) {
  if (links.negatives < 1)
    throw DataError(where + ": negatives = uniform(" +
                    std::to_string(links.negatives) +
                    "): at least one negative per link");
  isUndirected = addReverseEdges || isSymmetric(ds);
  EdgeSplitOptions options;
  options.valid = links.valid;
  options.test = links.test;
  options.train = 1 - links.valid - links.test;
  options.undirected = isUndirected;
  options.seed = seed;
  try {
    edges = randomEdgeSplit(ds.numNodes, ds.src, ds.dst, options);
  } catch (const DataError &e) {
    throw DataError(where + ": " + e.what());
  }
  trainPositives = edges.trainPos;
  if (isUndirected)
    for (size_t i = 1; i < trainPositives.size(); i += 2)
      std::swap(trainPositives.src[i], trainPositives.dst[i]);
  for (size_t i = 0; i < edges.graph.size(); ++i)
    known.add(edges.graph.src[i], edges.graph.dst[i]);
  for (int64_t v = 0; v < numNodes; ++v)
    known.add(v, v);
  known.seal();
  // A link whose source links to every node has no negative to draw:
  // say so now rather than after the sampler's attempts ran out.
  const std::vector<int64_t> knownDegree = known.degrees();
  for (size_t i = 0; i < trainPositives.size(); ++i) {
    const int64_t u = trainPositives.src[i];
    if (knownDegree[size_t(u)] >= numNodes)
      throw DataError(
          where + ": negatives = uniform(" + std::to_string(links.negatives) +
          "): node " + std::to_string(u) + " has a train link to every node " +
          "(itself excluded), so no negative of its link " + std::to_string(u) +
          " -> " + std::to_string(trainPositives.dst[i]) + " exists");
  }
}

void LinkSplitData::messagePassingEdges(bool selfLoops,
                                        std::vector<int64_t> &src,
                                        std::vector<int64_t> &dst) const {
  src = edges.graph.src;
  dst = edges.graph.dst;
  if (selfLoops)
    for (int64_t v = 0; v < numNodes; ++v) {
      src.push_back(v);
      dst.push_back(v);
    }
}

PairBatch LinkSplitData::trainPairs(int64_t epoch) const {
  return makePairBatch(numNodes, trainPositives, trainNegatives(epoch));
}

void LinkSplitData::trainPairs(int64_t epoch, PairBatch &out,
                               LinkPairs &negatives) const {
  negativeSampler().sampleTailsInto(epoch, trainPositives, negatives);
  fillPairBatch(numNodes, trainPositives, negatives, out);
}

NegativeSampler LinkSplitData::negativeSampler() const {
  NegativeSamplerOptions options;
  options.seed = negativeSeed;
  options.k = negativesPerLink;
  options.numNodes = numNodes;
  options.exclude = &known;
  options.maxAttempts = kMaxNegativeAttempts;
  return NegativeSampler(options);
}

LinkPairs LinkSplitData::trainNegatives(int64_t epoch) const {
  return negativeSampler().sampleTails(epoch, trainPositives, 0,
                                       int64_t(trainPositives.size()));
}

LinkPairs
LinkSplitData::trainNegativesOf(int64_t epoch,
                                const std::vector<int64_t> &links) const {
  return negativeSampler().sampleTailsOf(epoch, trainPositives, links);
}

PairBatch LinkSplitData::evaluationPairs(bool test) const {
  return test ? makePairBatch(numNodes, edges.testPos, edges.testNeg)
              : makePairBatch(numNodes, edges.validPos, edges.validNeg);
}

} // namespace gnnrt
