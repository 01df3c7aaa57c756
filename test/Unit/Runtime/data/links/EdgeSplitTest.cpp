//===- EdgeSplitTest.cpp - The random edge split's properties -------------===//
//
// randomEdgeSplit against RandomLinkSplit's contract, checked from the
// definitions: the counts (floor of fraction x undirected pairs, train the
// rest), the splits partition the pairs with (u, v) and (v, u) together, the
// negatives are non-edges without self loops or repeats, message passing
// sees train only, and the split is a function of the graph and the seed
// (not of the edge order). Bad options give exact messages.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/links/EdgeSplit.h"

#include "TestUtil.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

using Pair = std::pair<int64_t, int64_t>;

std::set<Pair> undirectedPairs(const std::vector<int64_t> &src,
                               const std::vector<int64_t> &dst) {
  std::set<Pair> pairs;
  for (size_t e = 0; e < src.size(); ++e)
    pairs.insert({std::min(src[e], dst[e]), std::max(src[e], dst[e])});
  return pairs;
}

std::vector<Pair> pairsOf(const LinkPairs &p) {
  std::vector<Pair> out;
  for (size_t i = 0; i < p.size(); ++i)
    out.push_back({p.src[i], p.dst[i]});
  return out;
}

Dataset cora() {
  LoadOptions options;
  options.useCache = false;
  return loadDataset(coraDir(), options);
}

} // namespace

TEST(EdgeSplit, CoraCountsPartitionAndReversePairsTogether) {
  const Dataset ds = cora();
  const std::set<Pair> all = undirectedPairs(ds.src, ds.dst);
  EdgeSplitOptions o; // 0.85 / 0.05 / 0.10
  o.seed = 11;
  const EdgeSplit s = randomEdgeSplit(ds.numNodes, ds.src, ds.dst, o);
  const size_t m = all.size();
  EXPECT_EQ(s.validPos.size(), size_t(std::floor(0.05 * double(m))));
  EXPECT_EQ(s.testPos.size(), size_t(std::floor(0.10 * double(m))));
  EXPECT_EQ(s.trainPos.size(), m - s.validPos.size() - s.testPos.size());
  EXPECT_EQ(s.validNeg.size(), s.validPos.size());
  EXPECT_EQ(s.testNeg.size(), s.testPos.size());

  // Every pair of the graph in exactly one split, as (min, max).
  std::multiset<Pair> seen;
  for (const LinkPairs *p : {&s.trainPos, &s.validPos, &s.testPos})
    for (const Pair &pair : pairsOf(*p)) {
      EXPECT_LE(pair.first, pair.second);
      seen.insert(pair);
    }
  EXPECT_EQ(seen.size(), m);
  EXPECT_TRUE(std::equal(seen.begin(), seen.end(), all.begin(), all.end()));

  // Message passing: train pairs in both directions, nothing of valid/test.
  std::set<Pair> graph;
  for (const Pair &e : pairsOf(s.graph))
    graph.insert(e);
  EXPECT_EQ(graph.size(), s.graph.size()) << "an edge twice";
  for (const Pair &p : pairsOf(s.trainPos)) {
    EXPECT_TRUE(graph.count(p));
    EXPECT_TRUE(graph.count({p.second, p.first}));
  }
  for (const LinkPairs *held : {&s.validPos, &s.testPos})
    for (const Pair &p : pairsOf(*held)) {
      EXPECT_FALSE(graph.count(p));
      EXPECT_FALSE(graph.count({p.second, p.first}));
    }

  // Negatives: no edge in either direction, no self loop, none twice.
  std::set<Pair> negatives;
  for (const LinkPairs *neg : {&s.validNeg, &s.testNeg})
    for (const Pair &p : pairsOf(*neg)) {
      EXPECT_LT(p.first, p.second);
      EXPECT_FALSE(all.count(p));
      EXPECT_TRUE(negatives.insert(p).second) << "negative drawn twice";
    }

  // Nodes with an edge but none in train: some (degree-1 nodes whose edge
  // went to valid or test), which requireTrainEdges refuses.
  std::set<int64_t> withEdges, withTrainEdges;
  for (const Pair &p : all)
    withEdges.insert({p.first, p.second});
  for (const Pair &e : pairsOf(s.graph))
    withTrainEdges.insert(e.first);
  EXPECT_EQ(s.nodesWithoutTrainEdge,
            int64_t(withEdges.size() - withTrainEdges.size()));
  EXPECT_GT(s.nodesWithoutTrainEdge, 0);
  int64_t firstLeft = -1;
  for (int64_t v : withEdges)
    if (!withTrainEdges.count(v) && firstLeft < 0)
      firstLeft = v;
  o.requireTrainEdges = true;
  EXPECT_EQ(
      dataErrorOf([&] { randomEdgeSplit(ds.numNodes, ds.src, ds.dst, o); }),
      "edge split: " + std::to_string(s.nodesWithoutTrainEdge) +
          " nodes have edges but no train edge (the first is node " +
          std::to_string(firstLeft) + ")");
}

TEST(EdgeSplit, SameGraphAndSeedSameSplitWhateverTheEdgeOrder) {
  const Dataset ds = loadedGraph(300, 1500, 5, 0.6, 0.2, 0.2);
  EdgeSplitOptions o;
  o.seed = 3;
  const EdgeSplit a = randomEdgeSplit(ds.numNodes, ds.src, ds.dst, o);
  // The same graph given as one direction per pair, reversed and in
  // another order.
  std::vector<int64_t> src, dst;
  for (size_t e = ds.src.size(); e-- > 0;)
    if (ds.src[e] < ds.dst[e]) {
      src.push_back(ds.dst[e]);
      dst.push_back(ds.src[e]);
    }
  const EdgeSplit b = randomEdgeSplit(ds.numNodes, src, dst, o);
  for (auto member :
       {&EdgeSplit::trainPos, &EdgeSplit::validPos, &EdgeSplit::testPos,
        &EdgeSplit::validNeg, &EdgeSplit::testNeg, &EdgeSplit::graph}) {
    EXPECT_EQ((a.*member).src, (b.*member).src);
    EXPECT_EQ((a.*member).dst, (b.*member).dst);
  }
  o.seed = 4;
  const EdgeSplit c = randomEdgeSplit(ds.numNodes, ds.src, ds.dst, o);
  EXPECT_NE(a.testPos.src, c.testPos.src);
  EXPECT_NE(a.testNeg.src, c.testNeg.src);
}

TEST(EdgeSplit, DirectedPairsAreSeparateAndFractionsBelowOneLeaveTheRest) {
  // 0 -> 1 and 1 -> 0 are two pairs when directed.
  std::vector<int64_t> src, dst;
  for (int64_t u = 0; u < 40; ++u)
    for (int64_t d = 1; d <= 3; ++d) {
      src.push_back(u);
      dst.push_back((u + d) % 40);
      src.push_back((u + d) % 40);
      dst.push_back(u);
    }
  EdgeSplitOptions o;
  o.undirected = false;
  o.train = 0.5, o.valid = 0.1, o.test = 0.2;
  const EdgeSplit s = randomEdgeSplit(40, src, dst, o);
  // 240 directed pairs: 120 / 24 / 48, 48 in no split.
  EXPECT_EQ(s.trainPos.size(), 120u);
  EXPECT_EQ(s.validPos.size(), 24u);
  EXPECT_EQ(s.testPos.size(), 48u);
  EXPECT_EQ(s.graph.size(), 120u);
  std::set<Pair> edges;
  for (size_t e = 0; e < src.size(); ++e)
    edges.insert({src[e], dst[e]});
  for (const Pair &p : pairsOf(s.testNeg)) {
    EXPECT_NE(p.first, p.second);
    EXPECT_FALSE(edges.count(p));
  }
}

TEST(EdgeSplit, DenseGraphTakesItsFewNonEdges) {
  // K6 without (0,1), (2,3), (4,5): 12 pairs, 3 non-edges.
  std::vector<int64_t> src, dst;
  for (int64_t u = 0; u < 6; ++u)
    for (int64_t v = u + 1; v < 6; ++v)
      if (!(v == u + 1 && u % 2 == 0)) {
        src.push_back(u);
        dst.push_back(v);
      }
  EdgeSplitOptions o;
  o.train = 0.5, o.valid = 0.1, o.test = 0.1; // 1 + 1 negatives of 3
  const EdgeSplit s = randomEdgeSplit(6, src, dst, o);
  ASSERT_EQ(s.validNeg.size() + s.testNeg.size(), 2u);
  std::set<Pair> free = {{0, 1}, {2, 3}, {4, 5}};
  EXPECT_TRUE(free.count({s.validNeg.src[0], s.validNeg.dst[0]}));
  EXPECT_TRUE(free.count({s.testNeg.src[0], s.testNeg.dst[0]}));
  EXPECT_NE(s.validNeg.src[0], s.testNeg.src[0]);
}

TEST(EdgeSplit, BadOptionsAndGraphsGiveExactMessages) {
  std::vector<int64_t> src, dst;
  for (int64_t u = 0; u < 5; ++u)
    for (int64_t v = u + 1; v < 5; ++v) {
      src.push_back(u);
      dst.push_back(v);
    }
  EdgeSplitOptions o;
  o.train = 0.9, o.valid = 0.1, o.test = 0.1;
  EXPECT_EQ(dataErrorOf([&] { randomEdgeSplit(5, src, dst, o); }),
            "edge split: the fractions train 0.9, valid 0.1, test 0.1 sum "
            "to 1.1, above 1");
  o.train = 0.8, o.valid = -0.1;
  EXPECT_EQ(dataErrorOf([&] { randomEdgeSplit(5, src, dst, o); }),
            "edge split: the valid fraction -0.1 is not in [0, 1]");
  // K5 is complete: no pair is free for a negative.
  o.train = 0.4, o.valid = 0.3, o.test = 0.3;
  EXPECT_EQ(dataErrorOf([&] { randomEdgeSplit(5, src, dst, o); }),
            "edge split: valid and test need 6 negative pairs, but the graph "
            "(5 nodes, 10 pairs) has only 0 pairs that are not edges");
  o.train = 0, o.valid = 0.5, o.test = 0.5;
  EXPECT_EQ(dataErrorOf([&] { randomEdgeSplit(9, src, dst, o); }),
            "edge split: no pair left for train (10 pairs, train fraction "
            "0)");
  src.push_back(2);
  dst.push_back(7);
  o.train = 0.8, o.valid = 0.1, o.test = 0.1;
  EXPECT_EQ(dataErrorOf([&] { randomEdgeSplit(5, src, dst, o); }),
            "edge split: edge 10 (2 -> 7) has a node id out of range [0, 5)");
}
