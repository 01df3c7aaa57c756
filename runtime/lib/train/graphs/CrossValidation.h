//===- CrossValidation.h - Folds, selected epochs, mean +- std --*- C++ -*-===//
//
// Internal to gnnrt. Graph classification is reported as the mean +- std
// test accuracy over k folds (Errica et al., ICLR 2020): each fold trains a
// model afresh on its train split, selects the epoch of the best validation
// accuracy (the earlier of a tie, as TrainLoop's best-valid record keeps it;
// early stopping's best when it watches valid_loss) and reports that epoch's
// test accuracy. This file decides which folds a run trains (--fold), what
// a fold reports, and the summary over the folds run; the trainer's fold
// loop (cli/Driver.cpp) prints and logs them.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_CROSSVALIDATION_H
#define GNNRT_LIB_TRAIN_CROSSVALIDATION_H

#include "cli/CommandLine.h"
#include "output/Checkpoint.h"
#include "schedule/Schedule.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gnnrt {

/// What one fold reports: its selected epoch's accuracies.
struct FoldResult {
  int64_t fold = 0;
  std::string name;
  int64_t epoch = 0;
  /// Whether `epoch` was selected on the validation split; false when the
  /// fold has no validation graphs (then it is the last epoch).
  bool selectedOnValid = true;
  std::optional<double> valid, test;
};

/// The test accuracies of the folds run: their mean and (population,
/// numpy.std's) standard deviation over the folds that have one.
struct FoldSummary {
  int64_t folds = 0;
  std::optional<double> mean, std;
};

/// The folds of `names` (Schedule::folds()) that a run trains: fold K alone
/// with --fold K, else every fold. Empty when the data has no folds. Throws
/// UsageError for --fold outside [0, names.size()) (naming the range), for
/// --fold on data without folds, and for the options that belong to one
/// model (--resume, --save, --predict, --eval-only) in a run over several
/// folds.
std::vector<int64_t> foldsToRun(const std::vector<std::string> &names,
                                const DriverOptions &options);

/// Throws UsageError unless `checkpoint` (the --resume file `path`) was
/// written training fold `fold`.
void checkResumedFold(const ResumableCheckpoint &checkpoint,
                      const std::string &path, int64_t fold);

/// Fold `fold`'s report from its training: the best validation epoch, or
/// the last one when no epoch had a validation accuracy.
FoldResult foldResult(int64_t fold, const std::string &name,
                      const TrainingResult &result);

FoldSummary summarizeFolds(const std::vector<FoldResult> &folds);

/// `fold 3: epoch 57 valid_acc 0.8125 test_acc 0.7956` (the name follows
/// the index when it is not "fold<index>"; "(last)" marks an epoch not
/// selected on validation).
std::string foldLine(const FoldResult &result);
/// {"fold":3,"selected_epoch":57,"valid_acc":...,"test_acc":...}
std::string foldJson(const FoldResult &result);
/// `cross_validation: 10 folds test_acc 0.8012 ± 0.0140`
std::string summaryLine(const FoldSummary &summary);
/// {"folds":10,"test_acc_mean":...,"test_acc_std":...}
std::string summaryJson(const FoldSummary &summary);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_CROSSVALIDATION_H
