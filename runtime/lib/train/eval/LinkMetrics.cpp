//===- LinkMetrics.cpp - AUC, AP, MRR and Hits@K of link scores -----------===//
//
// See gnnrt/train/LinkMetrics.h. AUC and AP sort the scores once; ties are
// handled as groups of equal scores, so the order of equal scores after the
// sort does not matter.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/train/LinkMetrics.h"

#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace gnnrt {

namespace {

void checkScores(const char *metric, const std::vector<float> &positive,
                 const std::vector<float> &negative) {
  if (positive.empty() || negative.empty())
    throw DataError(std::string(metric) +
                    " needs positive and negative "
                    "scores, found " +
                    std::to_string(positive.size()) + " positive and " +
                    std::to_string(negative.size()) + " negative");
  for (const auto *scores : {&positive, &negative})
    for (size_t i = 0; i < scores->size(); ++i)
      if (std::isnan((*scores)[i]))
        throw DataError(std::string(metric) + ": the score of " +
                        (scores == &positive ? "positive " : "negative ") +
                        std::to_string(i) + " is nan");
}

/// (score, is positive), ascending by score.
std::vector<std::pair<float, bool>>
sortedScores(const std::vector<float> &positive,
             const std::vector<float> &negative) {
  std::vector<std::pair<float, bool>> all;
  all.reserve(positive.size() + negative.size());
  for (float s : positive)
    all.push_back({s, true});
  for (float s : negative)
    all.push_back({s, false});
  std::sort(all.begin(), all.end());
  return all;
}

} // namespace

double rocAuc(const std::vector<float> &positive,
              const std::vector<float> &negative) {
  checkScores("AUC", positive, negative);
  const auto all = sortedScores(positive, negative);
  // U = (sum of the positives' 1-based ranks, ties averaged) - P(P+1)/2.
  double rankSum = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i, positives = 0;
    for (; j < all.size() && all[j].first == all[i].first; ++j)
      positives += all[j].second;
    const double averageRank = 0.5 * double(i + 1 + j);
    rankSum += averageRank * double(positives);
    i = j;
  }
  const double p = double(positive.size()), n = double(negative.size());
  return (rankSum - p * (p + 1) / 2) / (p * n);
}

double averagePrecision(const std::vector<float> &positive,
                        const std::vector<float> &negative) {
  checkScores("AP", positive, negative);
  const auto all = sortedScores(positive, negative);
  const double p = double(positive.size());
  double ap = 0, truePositives = 0, predicted = 0, recallBefore = 0;
  // Thresholds from the highest score down, one per distinct score.
  for (size_t j = all.size(); j > 0;) {
    size_t i = j;
    for (; i > 0 && all[i - 1].first == all[j - 1].first; --i)
      truePositives += all[i - 1].second;
    predicted += double(j - i);
    const double recall = truePositives / p;
    ap += (recall - recallBefore) * (truePositives / predicted);
    recallBefore = recall;
    j = i;
  }
  return ap;
}

RankingMetrics summarizeRanks(const std::vector<double> &ranks) {
  RankingMetrics m;
  m.count = int64_t(ranks.size());
  for (double rank : ranks) {
    m.mrr += 1.0 / rank;
    m.hits1 += rank <= 1;
    m.hits3 += rank <= 3;
    m.hits10 += rank <= 10;
  }
  if (m.count) {
    const double n = double(m.count);
    m.mrr /= n, m.hits1 /= n, m.hits3 /= n, m.hits10 /= n;
  }
  return m;
}

RankingMetrics rankAgainstNegatives(const std::vector<float> &positive,
                                    const std::vector<float> &negative,
                                    int64_t k) {
  if (k < 1 || negative.size() != positive.size() * size_t(k))
    throw DataError("MRR: " + std::to_string(negative.size()) +
                    " negative scores for " + std::to_string(positive.size()) +
                    " positives with k = " + std::to_string(k) +
                    " negatives each");
  checkScores("MRR", positive, negative);
  std::vector<double> ranks(positive.size());
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < int64_t(positive.size()); ++i) {
    int64_t greater = 0, equal = 0;
    for (int64_t j = 0; j < k; ++j) {
      const float s = negative[size_t(i * k + j)];
      greater += s > positive[size_t(i)];
      equal += s == positive[size_t(i)];
    }
    ranks[size_t(i)] = tieAveragedRank(greater, equal);
  }
  return summarizeRanks(ranks);
}

} // namespace gnnrt
