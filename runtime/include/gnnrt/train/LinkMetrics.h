//===- LinkMetrics.h - AUC, AP, MRR and Hits@K of link scores ---*- C++ -*-===//
//
// The evaluation metrics of link prediction, over the scores a model gave
// positive and negative pairs, with the semantics of the libraries peers
// report them with:
//
// - rocAuc: the area under the ROC curve (sklearn's roc_auc_score), i.e. the
//   Mann-Whitney U statistic: the probability that a positive outscores a
//   negative, a tie counting one half (average ranks).
// - averagePrecision: sklearn's average_precision_score, sum over distinct
//   score thresholds (descending) of (recall_n - recall_{n-1}) * precision_n,
//   tied scores forming one threshold, no interpolation.
// - rankAgainstNegatives: each positive ranked among its own k negatives as
//   OGB's linkproppred Evaluator does (_eval_mrr): rank = 1 + #negatives
//   scoring higher + #negatives scoring equal / 2, the mean of the
//   optimistic and the pessimistic rank; MRR is the mean of 1 / rank and
//   Hits@K the fraction with rank <= K (a tie can give a rank of 1.5).
//
// Sums run in a fixed order, so the numbers do not depend on the thread
// count. A nan score is an error: it would rank silently wherever a
// comparison puts it.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TRAIN_LINKMETRICS_H
#define GNNRT_TRAIN_LINKMETRICS_H

#include <cstdint>
#include <vector>

namespace gnnrt {

/// Throws DataError unless both are non-empty and free of nan.
double rocAuc(const std::vector<float> &positive,
              const std::vector<float> &negative);
double averagePrecision(const std::vector<float> &positive,
                        const std::vector<float> &negative);

/// Mean reciprocal rank and Hits@1/3/10 over `count` ranked queries.
struct RankingMetrics {
  double mrr = 0, hits1 = 0, hits3 = 0, hits10 = 0;
  int64_t count = 0;
};

/// OGB's tie-averaged rank: 1 + greater + equal / 2.
inline double tieAveragedRank(int64_t greater, int64_t equal) {
  return 1.0 + double(greater) + 0.5 * double(equal);
}

/// The metrics of the given ranks (summed in order).
RankingMetrics summarizeRanks(const std::vector<double> &ranks);

/// Positive i ranked among negative[i * k, (i + 1) * k). Throws DataError
/// for k < 1, a negative count other than positive.size() * k, or nan.
RankingMetrics rankAgainstNegatives(const std::vector<float> &positive,
                                    const std::vector<float> &negative,
                                    int64_t k);

} // namespace gnnrt

#endif // GNNRT_TRAIN_LINKMETRICS_H
