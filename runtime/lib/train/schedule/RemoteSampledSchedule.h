//===- RemoteSampledSchedule.h - training on batches from samplers -*- C++
//-*-===//
//
// Internal to gnnrt. The Schedule of a trainer rank when sampler ranks serve
// the batches (`--samplers S`, SamplerRanks.h): it loads no graph, only the
// dimensions sampler rank 0 sends, and each epoch trains on the batches of
// its part and slice as they arrive, keeping `--prefetch` requests in
// flight so that the next batches are sampled while this one trains.
// Gradients are all-reduced among the trainers (its communicator is
// theirs). Evaluation is the sampler ranks' full-neighbourhood inference
// with the trainers' current parameters. With learned input rows (`embed`)
// each step's input-row gradients go back to the sampler, which owns the
// rows (SamplerRanks.h).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_REMOTESAMPLEDSCHEDULE_H
#define GNNRT_LIB_REMOTESAMPLEDSCHEDULE_H

#include "ScheduleBase.h"
#include "batch/SamplerRanks.h"
#include "gnnrt/sample/Sampler.h"

namespace gnnrt {

class RemoteSampledSchedule : public ScheduleBase {
public:
  /// `trainers`: the trainer ranks' communicator.
  RemoteSampledSchedule(const CompiledProgram &program,
                        const DriverOptions &options, Communicator &trainers,
                        const SamplerRanks &ranks)
      : ScheduleBase(program, options, trainers), ranks(ranks) {}

  const char *name() const override { return "remote_sampled"; }
  double trainEpoch(int64_t epoch, OptimizerStep &step) override;
  int64_t stepsPerEpoch() const override { return steps; }
  /// Collective over all ranks, samplers included.
  Accuracies evaluate() override;
  /// A trainer has no nodes: an error (writePredictions is the way).
  const std::vector<float> &predict() override;
  /// The sampler ranks infer with rank 0's parameters and write the file,
  /// as worker mode with as many ranks as samplers would; trainer 0 returns
  /// once sampler 0 reports it written. Collective over all ranks.
  void writePredictions(const std::string &path, Communicator &) override;
  /// Adds this trainer's wait for batches, as seconds and as a share of
  /// its training time, and what it received.
  void printStats(const TrainingResult &result) const override;
  /// The samplers' learned rows, which sampler 0 sends trainer 0.
  /// Collective over all ranks.
  std::optional<LearnedInputsSnapshot>
  learnedInputsSnapshot(bool moments) override;

protected:
  /// The dimensions from sampler rank 0; no nodes.
  TrainingData loadData() override;

private:
  /// Trainer 0 sends `command` to every sampler rank.
  void command(SamplerCommand::Kind kind, int64_t epoch, int64_t moments = 0);
  void requestBatch(int64_t epoch, int64_t step);
  /// Step `step`'s input-row gradients ([rows, features]) to the sampler.
  void sendRowGradients(int64_t epoch, int64_t step, const float *grad,
                        int64_t rows);
  /// Rank 0's parameters to every sampler (a broadcast all ranks join).
  void sendParameters();

  const SamplerRanks &ranks;
  int64_t steps = 0;
  SampledBatch batch;
  /// The step's input-row gradients (learned input rows).
  std::vector<float> rowGradients;
  double waitSeconds = 0;
  int64_t batchesReceived = 0, bytesReceived = 0, gradientBytesSent = 0;
};

} // namespace gnnrt

#endif // GNNRT_LIB_REMOTESAMPLEDSCHEDULE_H
