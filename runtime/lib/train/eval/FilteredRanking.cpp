//===- FilteredRanking.cpp - Filtered full ranking of KG triples ----------===//
//
// See gnnrt/train/FilteredRanking.h. Queries are grouped by relation (the
// callback scores one relation at a time) and by the entity block holding
// their answer, and taken queryBlock at a time; each batch walks the entity
// blocks, its answers' block first (which gives the answers' scores), and
// each query counts the candidates scoring above and equal to its answer,
// skipping the known true ones, which are one sorted range of an EdgeSet
// per (anchor, relation).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/train/FilteredRanking.h"

#include "gnnrt/data/links/EdgeSet.h"
#include "gnnrt/kernels/Gemm.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace gnnrt {

namespace {

const char *sideName(RankSide side) {
  return side == RankSide::Tail ? "tail" : "head";
}

[[noreturn]] void nanScore(RankSide side, int32_t relation) {
  throw DataError("filtered ranking: a " + std::string(sideName(side)) +
                  " candidate's score of relation " + std::to_string(relation) +
                  " is nan");
}

/// Ranks one side of every query into `ranks`. `known` maps (anchor,
/// relation) to the known answers; anchors and answers are the queries'
/// heads and tails (tails and heads for RankSide::Head).
void rankSide(RankSide side, int64_t numEntities, const EdgeSet &known,
              const std::vector<int64_t> &anchors,
              const std::vector<int32_t> &relations,
              const std::vector<int64_t> &answers, const BlockScorer &score,
              const FilteredRankingOptions &options,
              std::vector<double> &ranks) {
  const size_t n = anchors.size();
  const int64_t entityBlock = std::max<int64_t>(1, options.entityBlock);
  const int64_t queryBlock = std::max<int64_t>(1, options.queryBlock);
  // A batch shares the relation and the block holding the answers, which
  // is scored first: the answers' scores are the ones that call gives.
  auto answerBlock = [&](size_t q) { return answers[q] / entityBlock; };
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (relations[a] != relations[b])
      return relations[a] < relations[b];
    if (answerBlock(a) != answerBlock(b))
      return answerBlock(a) < answerBlock(b);
    return anchors[a] < anchors[b];
  });
  const int64_t numBlocks = (numEntities + entityBlock - 1) / entityBlock;
  std::vector<float> scores(size_t(queryBlock * entityBlock));
  std::vector<int64_t> batchAnchors, batchAnswers, greater, equal;
  std::vector<float> answerScores;
  for (size_t first = 0; first < n;) {
    const int32_t relation = relations[order[first]];
    const int64_t home = answerBlock(order[first]);
    size_t last = first;
    while (last < n && last - first < size_t(queryBlock) &&
           relations[order[last]] == relation &&
           answerBlock(order[last]) == home)
      ++last;
    const int64_t count = int64_t(last - first);
    batchAnchors.resize(size_t(count));
    batchAnswers.resize(size_t(count));
    answerScores.resize(size_t(count));
    greater.assign(size_t(count), 0);
    equal.assign(size_t(count), 0);
    for (int64_t i = 0; i < count; ++i) {
      batchAnchors[size_t(i)] = anchors[order[first + size_t(i)]];
      batchAnswers[size_t(i)] = answers[order[first + size_t(i)]];
    }
    // The answers' block, then the others in order.
    for (int64_t step = 0; step < numBlocks; ++step) {
      const int64_t block = step == 0 ? home : step <= home ? step - 1 : step;
      const int64_t begin = block * entityBlock;
      const int64_t end = std::min(numEntities, begin + entityBlock);
      const int64_t width = end - begin;
      score(side, batchAnchors.data(), count, relation, begin, end,
            scores.data());
      if (step == 0)
        for (int64_t i = 0; i < count; ++i)
          answerScores[size_t(i)] =
              scores[size_t(i * width + batchAnswers[size_t(i)] - begin)];
      bool sawNan = false;
#pragma omp parallel for schedule(static) reduction(|| : sawNan)
      for (int64_t i = 0; i < count; ++i) {
        auto [skip, skipEnd] =
            known.dsts(batchAnchors[size_t(i)], relation, begin, end);
        const float answer = answerScores[size_t(i)];
        const float *row = scores.data() + i * width;
        int64_t above = 0, same = 0;
        sawNan = sawNan || std::isnan(answer);
        for (int64_t c = begin; c < end; ++c) {
          if (skip != skipEnd && *skip == c) {
            ++skip; // a known true triple: filtered out
            continue;
          }
          if (c == batchAnswers[size_t(i)])
            continue;
          const float s = row[c - begin];
          sawNan = sawNan || std::isnan(s);
          above += s > answer;
          same += s == answer;
        }
        greater[size_t(i)] += above;
        equal[size_t(i)] += same;
      }
      if (sawNan)
        nanScore(side, relation);
    }
    for (int64_t i = 0; i < count; ++i)
      ranks[order[first + size_t(i)]] =
          tieAveragedRank(greater[size_t(i)], equal[size_t(i)]);
    first = last;
  }
}

} // namespace

BlockScorer factorScorer(const ScoreFactors &factors) {
  return [factors](RankSide side, const int64_t *anchors, int64_t count,
                   int32_t relation, int64_t begin, int64_t end, float *out) {
    const int64_t width = factors.width;
    const bool tail = side == RankSide::Tail;
    const float *anchorRows = tail ? factors.src : factors.dst;
    const float *candidates = tail ? factors.dst : factors.src;
    const float *r =
        factors.relation ? factors.relation + relation * width : nullptr;
    // The anchors' rows scaled by the relation's diagonal, then one
    // product with the candidates' rows.
    std::vector<float> query(size_t(count * width));
    for (int64_t i = 0; i < count; ++i) {
      const float *a = anchorRows + anchors[i] * width;
      float *q = query.data() + i * width;
      for (int64_t k = 0; k < width; ++k)
        q[k] = r ? a[k] * r[k] : a[k];
    }
    kernels::gemm<float>(false, true, count, end - begin, width, query.data(),
                         candidates + begin * width, out);
  };
}

FilteredRankingResult filteredRanking(const KnowledgeGraph &kg,
                                      const TripleList &queries,
                                      const BlockScorer &score,
                                      const FilteredRankingOptions &options) {
  const int64_t numEntities = kg.numEntities();
  // The known true triples by (head, relation) -> tails and by (tail,
  // relation) -> heads.
  EdgeSet tailsOf(numEntities), headsOf(numEntities);
  for (const TripleList *list : {&kg.train, &kg.valid, &kg.test})
    for (size_t e = 0; e < list->size(); ++e) {
      tailsOf.add(list->head[e], list->tail[e], list->relation[e]);
      headsOf.add(list->tail[e], list->head[e], list->relation[e]);
    }
  tailsOf.seal();
  headsOf.seal();
  const size_t n = queries.size();
  for (size_t q = 0; q < n; ++q)
    if (queries.head[q] < 0 || queries.head[q] >= numEntities ||
        queries.tail[q] < 0 || queries.tail[q] >= numEntities ||
        queries.relation[q] < 0 || queries.relation[q] >= kg.numRelations())
      throw DataError("filtered ranking: query " + std::to_string(q) + " (" +
                      std::to_string(queries.head[q]) + ", relation " +
                      std::to_string(queries.relation[q]) + ", " +
                      std::to_string(queries.tail[q]) + ") is out of range: " +
                      std::to_string(numEntities) + " entities, " +
                      std::to_string(kg.numRelations()) + " relations");
  std::vector<double> tailRanks(n), headRanks(n);
  rankSide(RankSide::Tail, numEntities, tailsOf, queries.head, queries.relation,
           queries.tail, score, options, tailRanks);
  rankSide(RankSide::Head, numEntities, headsOf, queries.tail, queries.relation,
           queries.head, score, options, headRanks);
  FilteredRankingResult result;
  result.tail = summarizeRanks(tailRanks);
  result.head = summarizeRanks(headRanks);
  std::vector<double> all = tailRanks;
  all.insert(all.end(), headRanks.begin(), headRanks.end());
  result.both = summarizeRanks(all);
  return result;
}

} // namespace gnnrt
