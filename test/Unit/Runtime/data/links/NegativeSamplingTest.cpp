//===- NegativeSamplingTest.cpp - Negatives as functions of their index ---===//
//
// What P ranks draw, each for its chunk of the positives, is what one
// process draws for all of them; another epoch draws otherwise; exclusion
// redraws only the known positives and fails with an exact message when
// there is nothing else; triple corruption keeps the relation and the node
// type of the side it replaces, and picks each side about half the time.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/links/NegativeSampling.h"

#include "TestUtil.h"
#include "gnnrt/data/links/EdgeSet.h"
#include "gnnrt/support/Random.h"

#include <cmath>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

LinkPairs ring(int64_t n) {
  LinkPairs p;
  for (int64_t u = 0; u < n; ++u) {
    p.src.push_back(u);
    p.dst.push_back((u + 1) % n);
  }
  return p;
}

} // namespace

TEST(NegativeSampling, ChunksDrawWhatTheWholeDraws) {
  const LinkPairs positives = ring(1000);
  NegativeSamplerOptions o;
  o.seed = 9, o.k = 3, o.numNodes = 1000;
  const NegativeSampler sampler(o);
  const LinkPairs whole = sampler.sampleTails(4, positives, 0, 1000);
  ASSERT_EQ(whole.size(), 3000u);
  // Three "ranks" of uneven chunks.
  LinkPairs joined;
  for (auto [begin, end] :
       {std::pair<int64_t, int64_t>{0, 333}, {333, 334}, {334, 1000}}) {
    const LinkPairs part = sampler.sampleTails(4, positives, begin, end);
    joined.src.insert(joined.src.end(), part.src.begin(), part.src.end());
    joined.dst.insert(joined.dst.end(), part.dst.begin(), part.dst.end());
  }
  EXPECT_EQ(joined.src, whole.src);
  EXPECT_EQ(joined.dst, whole.dst);
  for (size_t i = 0; i < whole.size(); ++i)
    ASSERT_EQ(whole.src[i], positives.src[i / 3]);
  // A resumed epoch draws the same; the next epoch does not.
  EXPECT_EQ(sampler.sampleTails(4, positives, 0, 1000).dst, whole.dst);
  EXPECT_NE(sampler.sampleTails(5, positives, 0, 1000).dst, whole.dst);

  // Uniform over the nodes: each tenth of the ids gets 300 +- 5 sigma.
  std::vector<int64_t> tenths(10, 0);
  for (int64_t v : whole.dst) {
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 1000);
    ++tenths[size_t(v / 100)];
  }
  for (int64_t count : tenths)
    EXPECT_NEAR(double(count), 300.0, 5 * std::sqrt(300.0 * 0.9));
}

// A sampled link batch draws the negatives of its (shuffled) links alone:
// each link's are the whole epoch's draws for it.
TEST(NegativeSampling, AnyLinksDrawWhatTheWholeDrawsForThem) {
  const LinkPairs positives = ring(500);
  NegativeSamplerOptions o;
  o.seed = 3, o.k = 2, o.numNodes = 500;
  const NegativeSampler sampler(o);
  const LinkPairs whole = sampler.sampleTails(7, positives, 0, 500);
  const std::vector<int64_t> links = {499, 0, 17, 17, 250};
  const LinkPairs some = sampler.sampleTailsOf(7, positives, links);
  ASSERT_EQ(some.size(), 2 * links.size());
  for (size_t i = 0; i < links.size(); ++i)
    for (size_t j = 0; j < 2; ++j) {
      EXPECT_EQ(some.src[2 * i + j], whole.src[size_t(2 * links[i]) + j]);
      EXPECT_EQ(some.dst[2 * i + j], whole.dst[size_t(2 * links[i]) + j]);
    }
  EXPECT_EQ(sampler.sampleTailsOf(7, positives, {}).size(), 0u);
}

TEST(NegativeSampling, ExclusionRedrawsKnownPositives) {
  // Node 0 links to every node but 3 (and itself); 1 and 2 link to 0.
  LinkPairs known;
  for (int64_t v : {0, 1, 2, 4, 5}) {
    known.src.push_back(0);
    known.dst.push_back(v);
  }
  const EdgeSet exclude(6, known.src, known.dst);
  LinkPairs positives;
  positives.src = {0, 0, 1};
  positives.dst = {1, 2, 0};
  NegativeSamplerOptions o;
  o.seed = 1, o.k = 4, o.numNodes = 6, o.exclude = &exclude;
  o.maxAttempts = 200;
  const NegativeSampler sampler(o);
  const LinkPairs neg = sampler.sampleTails(0, positives, 0, 3);
  for (size_t i = 0; i < 8; ++i)
    EXPECT_EQ(neg.dst[i], 3) << "negative " << i << " of node 0";
  // Node 1's draws are unaffected by exclusion: the plain sampler's.
  NegativeSamplerOptions plain = o;
  plain.exclude = nullptr;
  const LinkPairs free = NegativeSampler(plain).sampleTails(0, positives, 0, 3);
  for (size_t i = 8; i < 12; ++i)
    EXPECT_EQ(neg.dst[i], free.dst[i]);
  // Chunked draws with exclusion are the whole's too.
  EXPECT_EQ(sampler.sampleTails(0, positives, 1, 3).dst,
            std::vector<int64_t>(neg.dst.begin() + 4, neg.dst.end()));

  // Nothing left to draw for node 0 once 3 is known too.
  known.src.push_back(0);
  known.dst.push_back(3);
  const EdgeSet full(6, known.src, known.dst);
  o.exclude = &full;
  o.maxAttempts = 32;
  EXPECT_EQ(
      dataErrorOf([&] { NegativeSampler(o).sampleTails(0, positives, 0, 3); }),
      "negative sampling: positive 0 (0 -> 1) has no negative outside "
      "the known positives in 32 attempts");
}

// An epoch's draw with exclusion visits the positives grouped by source
// (for the known-link checks' locality); every negative stays the function
// of its slot that single-link draws give, and a failure names the lowest
// failing positive whatever the visit order.
TEST(NegativeSampling, EpochDrawsBySourceKeepEverySlot) {
  const int64_t nodes = 500, links = 30000;
  LinkPairs positives;
  CounterRng rng(5, 0);
  for (int64_t e = 0; e < links; ++e) {
    positives.src.push_back(int64_t(rng.nextBelow(nodes)));
    positives.dst.push_back(int64_t(rng.nextBelow(nodes)));
  }
  const EdgeSet known(nodes, positives.src, positives.dst);
  NegativeSamplerOptions o;
  o.seed = 3, o.k = 4, o.numNodes = nodes, o.exclude = &known;
  const NegativeSampler sampler(o);
  LinkPairs whole;
  sampler.sampleTailsInto(2, positives, whole); // 120000 draws: by source
  ASSERT_EQ(whole.size(), size_t(links * 4));
  for (int64_t e = 0; e < links; e += 97) {
    const LinkPairs one = sampler.sampleTailsOf(2, positives, {e});
    for (int64_t j = 0; j < 4; ++j) {
      ASSERT_EQ(whole.src[size_t(e * 4 + j)], positives.src[size_t(e)]);
      ASSERT_EQ(whole.dst[size_t(e * 4 + j)], one.dst[size_t(j)])
          << "positive " << e << ", negative " << j;
      EXPECT_FALSE(known.contains(positives.src[size_t(e)],
                                  whole.dst[size_t(e * 4 + j)]));
    }
  }
  // Sources 7 and 400 link to every node: the lowest such positive is
  // named, not the first one visited.
  LinkPairs dense = positives;
  for (int64_t v = 0; v < nodes; ++v)
    for (int64_t u : {int64_t(400), int64_t(7)}) {
      dense.src.push_back(u);
      dense.dst.push_back(v);
    }
  const EdgeSet full(nodes, dense.src, dense.dst);
  o.exclude = &full;
  o.maxAttempts = 16;
  int64_t first = 0;
  while (positives.src[size_t(first)] != 7 && positives.src[size_t(first)] != 400)
    ++first;
  LinkPairs out;
  EXPECT_EQ(dataErrorOf([&] {
              NegativeSampler(o).sampleTailsInto(2, positives, out);
            }),
            "negative sampling: positive " + std::to_string(first) + " (" +
                std::to_string(positives.src[size_t(first)]) + " -> " +
                std::to_string(positives.dst[size_t(first)]) +
                ") has no negative outside the known positives in 16 "
                "attempts");
}

TEST(NegativeSampling, TriplesKeepTheRelationAndTheNodeTypes) {
  // Relation 0: type A [0, 10) -> type B [10, 15); relation 1: B -> A.
  TripleList positives;
  for (int64_t i = 0; i < 400; ++i) {
    if (i % 2)
      positives.push(10 + i % 5, 1, i % 10);
    else
      positives.push(i % 10, 0, 10 + i % 5);
  }
  const std::vector<CorruptionRange> ranges = {{0, 10, 10, 15},
                                               {10, 15, 0, 10}};
  NegativeSamplerOptions o;
  o.seed = 2, o.k = 2, o.numNodes = 15;
  const NegativeSampler sampler(o);
  const TripleList neg = sampler.corruptTriples(1, positives, 0, 400, ranges);
  ASSERT_EQ(neg.size(), 800u);
  int64_t heads = 0, kept = 0;
  for (size_t i = 0; i < neg.size(); ++i) {
    const size_t e = i / 2;
    const int32_t r = positives.relation[e];
    ASSERT_EQ(neg.relation[i], r);
    const CorruptionRange &range = ranges[size_t(r)];
    ASSERT_GE(neg.head[i], range.headBegin);
    ASSERT_LT(neg.head[i], range.headEnd);
    ASSERT_GE(neg.tail[i], range.tailBegin);
    ASSERT_LT(neg.tail[i], range.tailEnd);
    // One side is the positive's.
    ASSERT_TRUE(neg.head[i] == positives.head[e] ||
                neg.tail[i] == positives.tail[e]);
    if (neg.head[i] != positives.head[e])
      ++heads;
    if (neg.head[i] == positives.head[e] && neg.tail[i] == positives.tail[e])
      ++kept;
  }
  // The side is a fair coin: of 800, the head changes in about 400 x
  // (1 - 1/range) draws; bounds of 5 sigma.
  const double expected = 400.0 * (1 - (0.5 * 0.1 + 0.5 * 0.2));
  EXPECT_NEAR(double(heads), expected, 5 * std::sqrt(800 * 0.25));
  // Both sides unchanged: the replacement drew the positive's own node,
  // 1/10 or 1/5 of the time on either side (0.15).
  EXPECT_NEAR(double(kept), 120.0, 5 * std::sqrt(800 * 0.15 * 0.85));
  // Chunks draw the same.
  const TripleList tail =
      sampler.corruptTriples(1, positives, 150, 400, ranges);
  EXPECT_EQ(tail.head,
            std::vector<int64_t>(neg.head.begin() + 300, neg.head.end()));
  EXPECT_EQ(tail.tail,
            std::vector<int64_t>(neg.tail.begin() + 300, neg.tail.end()));
}

TEST(NegativeSampling, RangesFromATypedDatasetsNodeTypes) {
  LoadOptions load;
  load.useCache = false;
  const Dataset ds = loadDataset(aifbDir(), load);
  const std::vector<CorruptionRange> ranges = corruptionRanges(ds);
  ASSERT_EQ(ranges.size(), ds.relations.size());
  for (size_t r = 0; r < ranges.size(); ++r) {
    const NodeType &from = ds.nodeTypes[size_t(ds.relations[r].srcType)];
    const NodeType &to = ds.nodeTypes[size_t(ds.relations[r].dstType)];
    EXPECT_EQ(ranges[r].headBegin, from.offset);
    EXPECT_EQ(ranges[r].headEnd, from.offset + from.count);
    EXPECT_EQ(ranges[r].tailBegin, to.offset);
    EXPECT_EQ(ranges[r].tailEnd, to.offset + to.count);
  }
}

TEST(NegativeSampling, TripleExclusionKeepsRelationsApart) {
  // (0, r0, t) is known for every t but 4; (0, r1, t) for none.
  TripleList known;
  for (int64_t t = 0; t < 6; ++t)
    if (t != 4) {
      known.push(0, 0, t);
      known.push(t, 0, 0);
    }
  const EdgeSet exclude(6, known.head, known.tail, known.relation);
  TripleList positives;
  positives.push(0, 0, 0);
  positives.push(0, 1, 0);
  NegativeSamplerOptions o;
  o.seed = 6, o.k = 20, o.numNodes = 6, o.exclude = &exclude;
  o.maxAttempts = 256;
  const TripleList neg = NegativeSampler(o).corruptTriples(0, positives, 0, 2);
  bool sawOther = false;
  for (size_t i = 0; i < 20; ++i)
    EXPECT_TRUE(neg.head[i] == 4 || neg.tail[i] == 4) << i;
  for (size_t i = 20; i < 40; ++i)
    sawOther = sawOther || (neg.head[i] != 4 && neg.tail[i] != 4);
  EXPECT_TRUE(sawOther) << "relation 1's negatives are not excluded";
}

TEST(NegativeSampling, BadOptionsGiveExactMessages) {
  NegativeSamplerOptions o;
  o.numNodes = 5, o.k = 0;
  EXPECT_EQ(dataErrorOf([&] { NegativeSampler s(o); }),
            "negative sampling: k = 0 negatives per positive (expected at "
            "least 1)");
  o.k = 1, o.maxAttempts = 1000;
  EXPECT_EQ(dataErrorOf([&] { NegativeSampler s(o); }),
            "negative sampling: 1000 attempts per negative, expected 1 to 256");
}
