//===- Metrics.h - Accuracy and the per-epoch metrics log -------*- C++ -*-===//
//
// Internal to gnnrt. What one epoch produced (loss, time and, on evaluation
// epochs, split accuracies) and the `--metrics` file: JSON lines, one object
// per epoch, flushed as written so a running job can be followed with
// `tail -f`. A split without labeled nodes has no accuracy and its key is
// left out, and so is a split the train block's `evaluate = [...]` does not
// name; a non-finite loss is written as null (JSON has no NaN).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_METRICS_H
#define GNNRT_LIB_TRAIN_METRICS_H

#include "gnnrt/train/Program.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace gnnrt {

/// The first index of the largest of row[0..classes).
int64_t argmaxRow(const float *row, int64_t classes);

/// Correct and labeled rows of a split: what ranks sum to get the accuracy
/// of the whole graph.
struct AccuracyCounts {
  int64_t correct = 0, labeled = 0;
  std::optional<double> fraction() const; ///< none without labeled rows
};
AccuracyCounts accuracyCounts(const float *logits, int64_t classes,
                              const int64_t *labels,
                              const std::vector<int64_t> &nodes);

/// Which of train, valid and test (in that order) the train block's
/// `evaluate = [...]` names; every split when it names none. The others are
/// not evaluated and print as n/a.
std::array<bool, 3> evaluatedSplits(const TrainSettings &settings);

/// The fraction of `nodes` with a label >= 0 whose logits' argmax equals the
/// label; none if no node of `nodes` is labeled.
std::optional<double> accuracy(const float *logits, int64_t classes,
                               const int64_t *labels,
                               const std::vector<int64_t> &nodes);

struct Accuracies {
  std::optional<double> train, valid, test;
  /// The mean cross-entropy over the labeled validation nodes; computed
  /// only when early stopping watches it (wantsValidLoss). A link
  /// program's: the mean binary cross-entropy over the valid pairs.
  std::optional<double> validLoss;
  /// Link-prediction programs (their accuracies are unset): the ROC AUC
  /// and the average precision of the valid and test splits' pairs.
  std::optional<double> validAuc, validAp, testAuc, testAp;
  /// Knowledge-graph programs (kg(...)): the filtered MRR of the valid and
  /// test triples, and the test triples' filtered Hits@1, @3 and @10.
  std::optional<double> validMrr, testMrr, testHits1, testHits3, testHits10;

  /// Whether these are a knowledge graph's ranking metrics.
  bool isRanking() const { return validMrr || testMrr; }
  /// Whether these are a link program's metrics.
  bool isLink() const { return validAuc || testAuc || isRanking(); }
  /// What the best validation epoch is chosen by: valid_mrr for a
  /// knowledge graph, valid_auc for another link program, valid_acc
  /// otherwise.
  const std::optional<double> &validScore() const {
    return isRanking() ? validMrr : isLink() ? validAuc : valid;
  }
};

/// Whether evaluations compute Accuracies::validLoss: early stopping on
/// valid_loss.
bool wantsValidLoss(const TrainSettings &settings);

/// The cross-entropy of one row of logits (float64 log-softmax, as
/// torch.nn.functional.cross_entropy) against `label`.
double crossEntropyRow(const float *row, int64_t classes, int64_t label);

/// The summed cross-entropy and the count of the labeled rows of `nodes`:
/// what ranks sum to get the mean over the whole graph.
struct LossSum {
  double sum = 0, count = 0;
  std::optional<double> mean() const; ///< none without labeled rows
};
LossSum crossEntropySum(const float *logits, int64_t classes,
                        const int64_t *labels,
                        const std::vector<int64_t> &nodes);

struct EpochRecord {
  int64_t epoch = 0; ///< 1-based
  /// The fold it trained, under cross-validation (graph collections).
  std::optional<int64_t> fold;
  double loss = 0;
  double seconds = 0;             ///< training step + optimizer update
  /// The CPU time of the process (every thread, user + system) over the
  /// same span: on a shared machine it moves less than `seconds` when
  /// others take time slices.
  double cpuSeconds = 0;
  /// The process's peak resident set so far (VmHWM), after the epoch.
  int64_t peakRssBytes = 0;
  std::optional<Accuracies> eval; ///< set on evaluation epochs
  /// The learning rate the epoch trained at, when a schedule or a warm-up
  /// moves it.
  std::optional<double> lr;
};

/// {"epoch":1,"fold":0,"loss":...,"lr":...,"train_acc":...,"valid_acc":...,
/// "test_acc":...,"valid_loss":...,"epoch_seconds":...,
/// "epoch_cpu_seconds":...,"peak_rss_bytes":...} without a trailing
/// newline; fold, lr and valid_loss only when set. A link program's line
/// has "valid_auc", "valid_ap", "test_auc" and "test_ap" after the
/// accuracies' place (which it leaves out).
std::string metricsJson(const EpochRecord &record);

/// A number as the metrics lines write it (`format`: %.9g, a float's round
/// trip), `null` when not finite (JSON has no NaN).
std::string metricsNumber(double value, const char *format = "%.9g");

/// The CPU time this process has used so far (every thread), in seconds.
double processCpuSeconds();

/// The process's peak resident set so far, in bytes: VmHWM from
/// /proc/self/status (0 where there is none).
int64_t peakResidentBytes();

/// Appends metricsJson lines to a file.
class MetricsLog {
public:
  /// Creates (truncates) `path`, throwing DataError if it cannot; an empty
  /// path makes a log that writes nothing. A resumed run passes
  /// `keepThroughEpoch`, the checkpoint's epoch: the file keeps its lines of
  /// epochs up to it and loses those the interrupted run wrote after it (the
  /// resumed run writes them again) and any torn last line, so that it reads
  /// as one uninterrupted run's, however often the run was restarted.
  explicit MetricsLog(const std::string &path,
                      std::optional<int64_t> keepThroughEpoch = std::nullopt);
  ~MetricsLog();
  MetricsLog(const MetricsLog &) = delete;
  MetricsLog &operator=(const MetricsLog &) = delete;

  void append(const EpochRecord &record);
  /// Appends a line that is no epoch's (`json` without its newline): a
  /// cross-validation's per-fold results and summary.
  void appendLine(const std::string &json);

private:
  std::string path;
  std::FILE *file = nullptr;
};

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_METRICS_H
