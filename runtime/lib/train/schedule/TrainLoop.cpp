//===- TrainLoop.cpp - the epochs of training, for any Schedule -----------===//
//
// See TrainLoop.h.
//
//===----------------------------------------------------------------------===//

#include "TrainLoop.h"

#include "EarlyStopping.h"
#include "output/Checkpoint.h"
#include "output/Metrics.h"
#include "output/Progress.h"
#include "params/LearningRate.h"
#include "params/OptimizerStep.h"

#include "gnnrt/support/Stopwatch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace gnnrt {

TrainingResult trainEpochs(const CompiledProgram &program,
                           const DriverOptions &options, Schedule &schedule,
                           ParameterStore<float> &params, Communicator &comm,
                           MetricsLog &metrics,
                           const ResumableCheckpoint *resume,
                           std::optional<int64_t> fold) {
  OptimizerStep step(program, options, params, comm);
  step.learnInputs(schedule.learnedInputs());
  TrainingResult result;
  const TrainSettings &settings = program.settings;
  EarlyStopping stopping(settings);
  stopping.requireLearnedRows(schedule.learnedInputs());
  int64_t first = 1;
  if (resume) {
    resume->restoreOptimizer(params, step.state());
    first = resume->point().epoch + 1;
    stopping.resume(*resume, params);
  }
  // Rank 0 reports; the others train silently.
  const bool reporting = comm.rank() == 0;
  std::optional<Progress> progress;
  if (reporting) {
    progress.emplace(stderr, program.settings.epochs, isatty(2) != 0,
                     options.progressEvery);
    step.observe([&] { progress->step(); });
  }
  const int64_t every = std::max<int64_t>(1, settings.evaluateEvery);
  const std::string &checkpointFile = settings.checkpointFile;
  auto evaluated = [&](int64_t epoch) {
    return epoch % every == 0 || epoch == settings.epochs;
  };
  // The checkpoint of the epoch a run stopped after leaves nothing to train.
  if (first > 1 && evaluated(first - 1) && stopping.stopsAfter(first - 1))
    throw UsageError("the checkpoint's run stopped early after epoch " +
                     std::to_string(first - 1) +
                     " (early_stopping: no improvement since epoch " +
                     std::to_string(stopping.best().epoch) +
                     "); there is nothing left to train");
  bool stop = false;

  for (int64_t epoch = first; epoch <= settings.epochs && !stop; ++epoch) {
    auto start = std::chrono::steady_clock::now();
    const double cpuStart = processCpuSeconds();
    EpochRecord record;
    record.epoch = epoch;
    record.fold = fold;
    // A function of the epoch: a resumed run and every rank count agree.
    step.state().setLearningRateScale(learningRateScale(settings, epoch));
    if (hasLearningRateSchedule(settings))
      record.lr = step.state().config().lr;
    if (progress)
      progress->beginEpoch(epoch, schedule.stepsPerEpoch());
    record.loss = schedule.trainEpoch(epoch, step);
    record.seconds = secondsSince(start);
    record.cpuSeconds = processCpuSeconds() - cpuStart;
    result.trainSeconds += record.seconds;
    if (evaluated(epoch)) {
      record.eval = schedule.evaluateBetweenEpochs();
      if (stopping.improves(record) && stopping.enabled()) {
        step.parametersToHost();
        stopping.keep(params, schedule.learnedInputs());
      }
      stop = stopping.stopsAfter(epoch);
    }
    record.peakRssBytes = peakResidentBytes();
    // The epoch's metrics line before its checkpoint: a run killed between
    // the two resumes from the checkpoint before, which drops this line and
    // writes it again, so the file never lacks an epoch.
    metrics.append(record);
    // After the evaluation, so that a resumed run knows the best epoch.
    const int64_t saveEvery = settings.checkpointEvery;
    if (!checkpointFile.empty() &&
        (epoch == settings.epochs || stop ||
         (saveEvery > 0 && epoch % saveEvery == 0))) {
      // The learned rows are gathered from every rank; rank 0 writes.
      const std::optional<LearnedInputsSnapshot> inputs =
          schedule.learnedInputsSnapshot(/*moments=*/true);
      step.parametersToHost();
      if (reporting)
        saveResumableCheckpoint(checkpointFile, program.model, params,
                                step.state(),
                                {epoch, settings.seed, comm.size(), fold,
                                 stopping.best(), stopping.bestValues()},
                                inputs ? &*inputs : nullptr);
    }
    if (progress)
      progress->report(record);
    result.last = record;
    if (!std::isfinite(record.loss))
      throw std::runtime_error("the loss is " + std::to_string(record.loss) +
                               " at epoch " + std::to_string(epoch) +
                               "; training diverged (try a smaller --lr)");
  }
  // --save, --predict and the caller read the trained parameters on the
  // host: with early stopping, the best epoch's.
  step.parametersToHost();
  result.best = stopping.best();
  if (stopping.bestValues()) {
    stopping.restore(params, schedule.learnedInputs());
    result.restoredBest = true;
    result.stoppedEarly = result.last.epoch < settings.epochs;
  }
  result.allReduceSeconds = step.allReduceSeconds();
  result.allReduceBytes = step.allReduceBytes();
  return result;
}

} // namespace gnnrt
