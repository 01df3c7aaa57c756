//===- SampledSchedule.h - training on sampled mini-batches -----*- C++ -*-===//
//
// Internal to gnnrt. The schedules of programs compiled with
// `batches = neighbor(...)` (CompiledProgram::numBlocks > 0): each epoch is
// one optimizer step per batch of seeds on the batch's sampled blocks, and
// evaluation and prediction are full-neighbourhood inference on the blocks
// of the evaluated nodes. SampledTraining does the sampling and the
// inference; these classes adapt it to the Schedule stages. In one process
// the next batches are sampled on background threads while one trains; the
// ranks of a distributed run sample together (all_to_all collectives), in
// lockstep, so every rank takes the same number of steps.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_SAMPLEDSCHEDULE_H
#define GNNRT_LIB_SAMPLEDSCHEDULE_H

#include "ScheduleBase.h"
#include "batch/SampledTraining.h"

#include <memory>

namespace gnnrt {

/// One process, the whole graph's nodes as seeds.
class SampledSchedule : public ScheduleBase {
public:
  SampledSchedule(const CompiledProgram &program, const DriverOptions &options,
                  Communicator &comm);
  ~SampledSchedule() override;

  const char *name() const override { return "sampled"; }
  /// Also checks the sampling settings against the data and sets up the
  /// sampler (collective: every rank needs training nodes).
  void bind(ParameterStore<float> &params) override;
  double trainEpoch(int64_t epoch, OptimizerStep &step) override;
  int64_t stepsPerEpoch() const override;
  Accuracies evaluate() override;
  /// Infers every node of this process (evaluation covers only the splits).
  const std::vector<float> &predict() override;
  /// Adds the sampling's lines: batches, seeds, sampled edges, time.
  void printStats(const TrainingResult &result) const override;
  /// The sampler (after bind), for a sampler rank that serves its batches.
  SampledTraining &sampling() { return *training; }

protected:
  TrainingData loadData() override;

  std::unique_ptr<SampledTraining> training;
};

/// A partition per rank (or a partition directory in one process); each
/// rank trains the seeds of a step's batch that it owns, the neighbours and features of
/// other ranks' nodes are fetched collectively. --stats adds each rank's
/// all_to_all and all-reduce traffic.
class DistributedSampledSchedule : public SampledSchedule {
public:
  DistributedSampledSchedule(const CompiledProgram &program,
                             const DriverOptions &options, Communicator &comm,
                             bool partitionDirectory)
      : SampledSchedule(program, options, comm),
        partitionDirectory(partitionDirectory) {}

  const char *name() const override { return "distributed_sampled"; }
  void printStats(const TrainingResult &result) const override;

protected:
  TrainingData loadData() override;

private:
  bool partitionDirectory;
};

} // namespace gnnrt

#endif // GNNRT_LIB_SAMPLEDSCHEDULE_H
