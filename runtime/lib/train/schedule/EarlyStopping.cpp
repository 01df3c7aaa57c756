//===- EarlyStopping.cpp - the best epoch, its weights and patience -------===//
//
// See EarlyStopping.h.
//
//===----------------------------------------------------------------------===//

#include "EarlyStopping.h"

#include "cli/CommandLine.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gnnrt {

EarlyStopping::EarlyStopping(const TrainSettings &settings)
    : patience(settings.earlyStopping.patience),
      onLoss(enabled() && settings.earlyStopping.monitor == "valid_loss"),
      learnedRows(settings.embedDim > 0) {}

void EarlyStopping::resume(const ResumableCheckpoint &checkpoint,
                           const ParameterStore<float> &params) {
  bestRecord = checkpoint.point().best;
  if (!enabled() || !bestRecord.eval)
    return;
  if (!checkpoint.restoreBestValues(params, values))
    throw UsageError("the checkpoint was written without early_stopping: it "
                     "holds no best weights to continue from");
  if (!(onLoss ? bestRecord.eval->validLoss : bestRecord.eval->validScore()))
    throw UsageError(std::string("the checkpoint's best epoch was chosen by "
                                 "another metric than ") +
                     (onLoss ? "valid_loss" : "valid_acc"));
}

bool EarlyStopping::improves(const EpochRecord &record) {
  const Accuracies &eval = *record.eval;
  const std::optional<double> &metric =
      onLoss ? eval.validLoss : eval.validScore();
  if (!metric) {
    if (!enabled())
      return false;
    throw std::runtime_error(
        std::string("early_stopping watches ") +
        (onLoss ? "valid_loss" : "valid_acc") + ", which epoch " +
        std::to_string(record.epoch) + " has none of" +
        (onLoss ? " (this way of training computes no validation loss: "
                  "use monitor = valid_acc)"
                : " (no labeled validation nodes)"));
  }
  bool better = true;
  if (bestRecord.eval) {
    const std::optional<double> &best =
        onLoss ? bestRecord.eval->validLoss : bestRecord.eval->validScore();
    better = onLoss ? *metric < *best : *metric > *best;
  }
  if (better)
    bestRecord = record;
  return better;
}

void EarlyStopping::keep(const ParameterStore<float> &params,
                         LearnedInputs *learned) {
  if (!enabled())
    return;
  values = params.values;
  if (learned)
    learned->keepBest();
}

void EarlyStopping::requireLearnedRows(const LearnedInputs *learned) const {
  if (enabled() && learnedRows && !learned)
    throw UsageError("early_stopping keeps the best epoch's learned input "
                     "rows (embed), which this way of training does not "
                     "hold in the trainer (out of core, --offload) yet");
}

bool EarlyStopping::stopsAfter(int64_t epoch) const {
  return enabled() && bestRecord.eval && epoch - bestRecord.epoch >= patience;
}

const std::vector<std::vector<float>> *EarlyStopping::bestValues() const {
  return enabled() && !values.empty() ? &values : nullptr;
}

void EarlyStopping::restore(ParameterStore<float> &params,
                            LearnedInputs *learned) const {
  if (!enabled() || values.empty())
    return;
  if (learned)
    learned->restoreBest();
  // In place: the schedule's contexts point at these buffers.
  for (size_t i = 0; i < values.size(); ++i)
    std::copy(values[i].begin(), values[i].end(), params.values[i].begin());
}

} // namespace gnnrt
