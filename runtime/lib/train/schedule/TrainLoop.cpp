//===- TrainLoop.cpp - the epochs of training, for any Schedule -----------===//
//
// See TrainLoop.h.
//
//===----------------------------------------------------------------------===//

#include "TrainLoop.h"

#include "output/Checkpoint.h"
#include "output/Metrics.h"
#include "output/Progress.h"
#include "params/OptimizerStep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace gnnrt {

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

} // namespace

TrainingResult trainEpochs(const CompiledProgram &program,
                           const DriverOptions &options, Schedule &schedule,
                           ParameterStore<float> &params, Communicator &comm,
                           const ResumableCheckpoint *resume) {
  OptimizerStep step(program, options, params, comm);
  step.learnInputs(schedule.learnedInputs());
  TrainingResult result;
  int64_t first = 1;
  if (resume) {
    resume->restoreOptimizer(params, step.state());
    first = resume->point().epoch + 1;
    result.best = resume->point().best;
  }
  // Rank 0 reports; the others train silently.
  const bool reporting = comm.rank() == 0;
  MetricsLog metrics(reporting ? options.metricsFile : std::string(),
                     resume ? std::optional<int64_t>(first - 1) : std::nullopt);
  std::optional<Progress> progress;
  if (reporting) {
    progress.emplace(stderr, program.settings.epochs, isatty(2) != 0,
                     options.progressEvery);
    step.observe([&] { progress->step(); });
  }
  const TrainSettings &settings = program.settings;
  const int64_t every = std::max<int64_t>(1, settings.evaluateEvery);
  const std::string &checkpointFile = settings.checkpointFile;

  for (int64_t epoch = first; epoch <= settings.epochs; ++epoch) {
    auto start = std::chrono::steady_clock::now();
    const double cpuStart = processCpuSeconds();
    EpochRecord record;
    record.epoch = epoch;
    if (progress)
      progress->beginEpoch(epoch, schedule.stepsPerEpoch());
    record.loss = schedule.trainEpoch(epoch, step);
    record.seconds = secondsSince(start);
    record.cpuSeconds = processCpuSeconds() - cpuStart;
    result.trainSeconds += record.seconds;
    if (epoch % every == 0 || epoch == settings.epochs) {
      record.eval = schedule.evaluateBetweenEpochs();
      const EpochRecord &best = result.best;
      if (record.eval->valid &&
          (!best.eval || *record.eval->valid > *best.eval->valid))
        result.best = record;
    }
    record.peakRssBytes = peakResidentBytes();
    // The epoch's metrics line before its checkpoint: a run killed between
    // the two resumes from the checkpoint before, which drops this line and
    // writes it again, so the file never lacks an epoch.
    metrics.append(record);
    // After the evaluation, so that a resumed run knows the best epoch.
    const int64_t saveEvery = settings.checkpointEvery;
    if (!checkpointFile.empty() &&
        (epoch == settings.epochs ||
         (saveEvery > 0 && epoch % saveEvery == 0))) {
      // The learned rows are gathered from every rank; rank 0 writes.
      const std::optional<LearnedInputsSnapshot> inputs =
          schedule.learnedInputsSnapshot(/*moments=*/true);
      step.parametersToHost();
      if (reporting)
        saveResumableCheckpoint(
            checkpointFile, program.model, params, step.state(),
            {epoch, settings.seed, comm.size(), result.best},
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
  // host.
  step.parametersToHost();
  result.allReduceSeconds = step.allReduceSeconds();
  result.allReduceBytes = step.allReduceBytes();
  return result;
}

} // namespace gnnrt
