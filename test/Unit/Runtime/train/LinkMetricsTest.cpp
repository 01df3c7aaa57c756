//===- LinkMetricsTest.cpp - AUC, AP, MRR and Hits@K ----------------------===//
//
// Checked against published values (sklearn's documentation example:
// roc_auc_score 0.75 and average_precision_score 0.8333 for labels
// [0, 0, 1, 1] and scores [0.1, 0.4, 0.35, 0.8]), against brute-force
// float64 definitions written here (AUC as the fraction of pairs ordered
// right, AP as the sum over thresholds, OGB's tie-averaged rank) on random
// scores with ties, and for independence of the thread count.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/train/LinkMetrics.h"

#include "TestUtil.h"
#include "gnnrt/support/Random.h"

#include <cmath>
#include <limits>
#include <omp.h>
#include <set>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

/// Scores rounded to a tenth: many ties.
std::vector<float> roundedScores(size_t n, uint64_t stream, float shift) {
  std::vector<float> s(n);
  for (size_t i = 0; i < n; ++i)
    s[i] = std::round((normal(5, stream, i) + shift) * 10) / 10;
  return s;
}

double pairwiseAuc(const std::vector<float> &pos,
                   const std::vector<float> &neg) {
  double sum = 0;
  for (float p : pos)
    for (float n : neg)
      sum += p > n ? 1.0 : p == n ? 0.5 : 0.0;
  return sum / double(pos.size() * neg.size());
}

double thresholdAp(const std::vector<float> &pos,
                   const std::vector<float> &neg) {
  std::set<float> thresholds(pos.begin(), pos.end());
  thresholds.insert(neg.begin(), neg.end());
  double ap = 0, recallBefore = 0;
  for (auto t = thresholds.rbegin(); t != thresholds.rend(); ++t) {
    double tp = 0, fp = 0;
    for (float p : pos)
      tp += p >= *t;
    for (float n : neg)
      fp += n >= *t;
    const double recall = tp / double(pos.size());
    ap += (recall - recallBefore) * tp / (tp + fp);
    recallBefore = recall;
  }
  return ap;
}

} // namespace

TEST(LinkMetrics, SklearnDocumentationExample) {
  // labels [0, 0, 1, 1], scores [0.1, 0.4, 0.35, 0.8].
  const std::vector<float> pos = {0.35f, 0.8f}, neg = {0.1f, 0.4f};
  EXPECT_DOUBLE_EQ(rocAuc(pos, neg), 0.75);
  EXPECT_DOUBLE_EQ(averagePrecision(pos, neg), 0.8333333333333333);
}

TEST(LinkMetrics, AucAndApMatchTheDefinitionsWithTies) {
  const std::vector<float> pos = roundedScores(150, 1, 0.7f);
  const std::vector<float> neg = roundedScores(230, 2, 0.0f);
  EXPECT_NEAR(rocAuc(pos, neg), pairwiseAuc(pos, neg), 1e-12);
  EXPECT_NEAR(averagePrecision(pos, neg), thresholdAp(pos, neg), 1e-12);
  // All tied: AUC one half, AP the positive rate.
  const std::vector<float> same(4, 1.0f);
  EXPECT_DOUBLE_EQ(rocAuc(same, {1.0f, 1.0f}), 0.5);
  EXPECT_DOUBLE_EQ(averagePrecision(same, {1.0f, 1.0f}), 4.0 / 6.0);
}

TEST(LinkMetrics, RanksAverageTiesAsOgb) {
  // Positive 1.0 against [1.0, 2.0, 0.5]: one above, one equal: 2.5.
  // Positive 3.0 against [1.0, 2.0, 0.5]: rank 1.
  const RankingMetrics m = rankAgainstNegatives(
      {1.0f, 3.0f}, {1.0f, 2.0f, 0.5f, 1.0f, 2.0f, 0.5f}, 3);
  EXPECT_DOUBLE_EQ(m.mrr, (1 / 2.5 + 1) / 2);
  EXPECT_DOUBLE_EQ(m.hits1, 0.5);
  EXPECT_DOUBLE_EQ(m.hits3, 1.0);
  EXPECT_EQ(m.count, 2);

  const int64_t k = 30;
  const std::vector<float> pos = roundedScores(200, 3, 1.0f);
  const std::vector<float> neg = roundedScores(200 * k, 4, 0.0f);
  double mrr = 0, hits[3] = {0, 0, 0};
  for (size_t i = 0; i < pos.size(); ++i) {
    double above = 0, equal = 0;
    for (int64_t j = 0; j < k; ++j) {
      above += neg[i * k + j] > pos[i];
      equal += neg[i * k + j] == pos[i];
    }
    const double rank = 1 + above + equal / 2;
    mrr += 1 / rank;
    hits[0] += rank <= 1, hits[1] += rank <= 3, hits[2] += rank <= 10;
  }
  const RankingMetrics r = rankAgainstNegatives(pos, neg, k);
  EXPECT_NEAR(r.mrr, mrr / 200, 1e-12);
  EXPECT_NEAR(r.hits1, hits[0] / 200, 1e-12);
  EXPECT_NEAR(r.hits3, hits[1] / 200, 1e-12);
  EXPECT_NEAR(r.hits10, hits[2] / 200, 1e-12);

  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const RankingMetrics one = rankAgainstNegatives(pos, neg, k);
  omp_set_num_threads(3);
  const RankingMetrics three = rankAgainstNegatives(pos, neg, k);
  omp_set_num_threads(saved);
  EXPECT_EQ(one.mrr, three.mrr);
  EXPECT_EQ(one.hits10, three.hits10);
}

TEST(LinkMetrics, BadScoresGiveExactMessages) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(dataErrorOf([&] {
              rocAuc({1.0f}, {0.5f, nan});
            }),
            "AUC: the score of negative 1 is nan");
  EXPECT_EQ(dataErrorOf([&] {
              averagePrecision({}, {0.5f, 1.0f});
            }),
            "AP needs positive and negative scores, found 0 positive and 2 "
            "negative");
  EXPECT_EQ(dataErrorOf([&] {
              rankAgainstNegatives({1.0f, 2.0f}, {1, 2, 3, 4, 5}, 3);
            }),
            "MRR: 5 negative scores for 2 positives with k = 3 negatives "
            "each");
}
