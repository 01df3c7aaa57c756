//===- FilteredRankingTest.cpp - Filtered full ranking in blocks ----------===//
//
// filteredRanking against a brute-force ranking written here (every entity
// scored at once, the known triples in a std::set), on a random knowledge
// graph whose scores are quantized so that ties occur, for several block
// shapes and thread counts; the nan error; factorScorer against a float64
// trilinear sum.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/train/FilteredRanking.h"

#include "TestUtil.h"
#include "gnnrt/support/Random.h"

#include <cmath>
#include <omp.h>
#include <set>
#include <tuple>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

constexpr int64_t kEntities = 57;

KnowledgeGraph randomGraph() {
  KnowledgeGraph kg;
  for (int64_t e = 0; e < kEntities; ++e)
    kg.entities.push_back("e" + std::to_string(e));
  kg.relations = {"r0", "r1", "r2", "r3"};
  CounterRng rng(17, 0);
  std::set<std::tuple<int64_t, int32_t, int64_t>> seen;
  for (int i = 0; i < 500; ++i) {
    const int64_t h = rng.nextBelow(kEntities), t = rng.nextBelow(kEntities);
    const int32_t r = int32_t(rng.nextBelow(4));
    if (!seen.insert({h, r, t}).second)
      continue;
    (i % 10 == 0 ? kg.test : i % 10 == 1 ? kg.valid : kg.train).push(h, r, t);
  }
  return kg;
}

/// A score of (h, r, t) alone, in steps of 1/8: ties are common.
float pairScore(int64_t h, int32_t r, int64_t t) {
  return std::floor(uniform(3, uint64_t(r), uint64_t(h * kEntities + t)) * 8) /
         8;
}

void scoreBlock(RankSide side, const int64_t *anchors, int64_t count,
                int32_t relation, int64_t begin, int64_t end, float *out) {
  for (int64_t i = 0; i < count; ++i)
    for (int64_t c = begin; c < end; ++c)
      out[i * (end - begin) + c - begin] =
          side == RankSide::Tail ? pairScore(anchors[i], relation, c)
                                 : pairScore(c, relation, anchors[i]);
}

/// Brute force: ranks of both sides, tails first, as rank = 1 + above +
/// equal / 2 over the unfiltered other entities.
std::vector<double> bruteForceRanks(const KnowledgeGraph &kg,
                                    const TripleList &q) {
  std::set<std::tuple<int64_t, int32_t, int64_t>> known;
  for (const TripleList *l : {&kg.train, &kg.valid, &kg.test})
    for (size_t i = 0; i < l->size(); ++i)
      known.insert({l->head[i], l->relation[i], l->tail[i]});
  std::vector<double> tails, heads;
  for (size_t i = 0; i < q.size(); ++i) {
    const int64_t h = q.head[i], t = q.tail[i];
    const int32_t r = q.relation[i];
    const double truth = pairScore(h, r, t);
    double above[2] = {0, 0}, equal[2] = {0, 0};
    for (int64_t e = 0; e < kEntities; ++e) {
      if (e != t && !known.count({h, r, e})) {
        above[0] += pairScore(h, r, e) > truth;
        equal[0] += pairScore(h, r, e) == truth;
      }
      if (e != h && !known.count({e, r, t})) {
        above[1] += pairScore(e, r, t) > truth;
        equal[1] += pairScore(e, r, t) == truth;
      }
    }
    tails.push_back(1 + above[0] + equal[0] / 2);
    heads.push_back(1 + above[1] + equal[1] / 2);
  }
  tails.insert(tails.end(), heads.begin(), heads.end());
  return tails;
}

} // namespace

TEST(FilteredRanking, MatchesBruteForceInAnyBlocksAndThreads) {
  const KnowledgeGraph kg = randomGraph();
  ASSERT_GT(kg.test.size(), 30u);
  const std::vector<double> ranks = bruteForceRanks(kg, kg.test);
  double mrr = 0, hits10 = 0, hits1 = 0;
  for (double r : ranks)
    mrr += 1 / r, hits10 += r <= 10, hits1 += r <= 1;
  const double n = double(ranks.size());
  const int saved = omp_get_max_threads();
  for (auto [entityBlock, queryBlock, threads] :
       {std::tuple<int64_t, int64_t, int>{1, 1, 1},
        {5, 3, 2},
        {16, 7, 3},
        {1000, 1000, 1}}) {
    omp_set_num_threads(threads);
    const FilteredRankingResult result =
        filteredRanking(kg, kg.test, scoreBlock, {entityBlock, queryBlock});
    EXPECT_NEAR(result.both.mrr, mrr / n, 1e-12) << entityBlock;
    EXPECT_NEAR(result.both.hits1, hits1 / n, 1e-12) << entityBlock;
    EXPECT_NEAR(result.both.hits10, hits10 / n, 1e-12) << entityBlock;
    EXPECT_EQ(result.both.count, int64_t(n));
    EXPECT_EQ(result.tail.count + result.head.count, int64_t(n));
  }
  omp_set_num_threads(saved);
}

TEST(FilteredRanking, QueryOutOfRangeIsAnError) {
  const KnowledgeGraph kg = randomGraph();
  TripleList q;
  q.push(3, 1, kEntities);
  EXPECT_EQ(dataErrorOf([&] { filteredRanking(kg, q, scoreBlock); }),
            "filtered ranking: query 0 (3, relation 1, 57) is out of range: "
            "57 entities, 4 relations");
}

TEST(FilteredRanking, NanScoreIsAnError) {
  const KnowledgeGraph kg = randomGraph();
  auto nanAt = [](RankSide side, const int64_t *anchors, int64_t count,
                  int32_t relation, int64_t begin, int64_t end, float *out) {
    scoreBlock(side, anchors, count, relation, begin, end, out);
    if (begin <= 40 && 40 < end && count > 1)
      out[40 - begin] = std::nanf("");
  };
  EXPECT_EQ(dataErrorOf([&] { filteredRanking(kg, kg.test, nanAt); }),
            "filtered ranking: a tail candidate's score of relation 0 is nan");
}

// factorScorer's block of a trilinear score against the float64 sum, with
// different head and tail tables (a swap of the sides would show) and
// without a relation table (a dot product).
TEST(FilteredRanking, FactorScorerIsTheTrilinearSum) {
  constexpr int64_t width = 5, relations = 3;
  std::vector<float> src(kEntities * width), dst(kEntities * width),
      rel(relations * width);
  for (size_t i = 0; i < src.size(); ++i) {
    src[i] = float(uniform(5, 0, i) - 0.5);
    dst[i] = float(uniform(5, 1, i) - 0.5);
  }
  for (size_t i = 0; i < rel.size(); ++i)
    rel[i] = float(uniform(5, 2, i) - 0.5);
  const std::vector<int64_t> anchors = {4, 0, 56, 13};
  for (bool relational : {true, false}) {
    ScoreFactors factors;
    factors.src = src.data();
    factors.relation = relational ? rel.data() : nullptr;
    factors.dst = dst.data();
    factors.width = width;
    const BlockScorer score = factorScorer(factors);
    for (RankSide side : {RankSide::Tail, RankSide::Head}) {
      const int64_t begin = 7, end = 30, r = 2;
      std::vector<float> out(anchors.size() * (end - begin));
      score(side, anchors.data(), int64_t(anchors.size()), int32_t(r), begin,
            end, out.data());
      for (size_t i = 0; i < anchors.size(); ++i)
        for (int64_t c = begin; c < end; ++c) {
          const int64_t h = side == RankSide::Tail ? anchors[i] : c;
          const int64_t t = side == RankSide::Tail ? c : anchors[i];
          double expected = 0;
          for (int64_t k = 0; k < width; ++k)
            expected += double(src[h * width + k]) *
                        (relational ? double(rel[r * width + k]) : 1.0) *
                        double(dst[t * width + k]);
          EXPECT_NEAR(out[i * (end - begin) + c - begin], expected, 1e-6)
              << (side == RankSide::Tail ? "tail " : "head ") << h << " " << t;
        }
    }
  }
}
