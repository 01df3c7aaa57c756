//===- SampledSchedule.cpp - training on sampled mini-batches -------------===//
//
// See SampledSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "SampledSchedule.h"

#include "params/OptimizerStep.h"

#include <cstdio>
#include <functional>

namespace gnnrt {

SampledSchedule::SampledSchedule(const CompiledProgram &program,
                                 const DriverOptions &options,
                                 Communicator &comm)
    : ScheduleBase(program, options, comm) {}

SampledSchedule::~SampledSchedule() = default;

TrainingData SampledSchedule::loadData() {
  return loadWholeGraph(program, options);
}

void SampledSchedule::bind(ParameterStore<float> &params) {
  ScheduleBase::bind(params);
  training = std::make_unique<SampledTraining>(
      program, options, trainingData, comm, /*inputsLearned=*/learned != nullptr);
  if (learned)
    training->routeGradients(*learned);
}

int64_t SampledSchedule::stepsPerEpoch() const {
  return training ? training->batchesPerEpoch() : 1;
}

double SampledSchedule::trainEpoch(int64_t epoch, OptimizerStep &step) {
  return training->trainEpoch(epoch, trainCtx, std::ref(step));
}

Accuracies SampledSchedule::evaluate() {
  return training->evaluate(forwardCtx);
}

const std::vector<float> &SampledSchedule::predict() {
  training->predict(forwardCtx, logits);
  return logits;
}

void SampledSchedule::printStats(const TrainingResult &result) const {
  printPlanStats(result);
  training->printStats(stdout, result.last.epoch);
}

TrainingData DistributedSampledSchedule::loadData() {
  return loadRankPartition(program, options, partitionDirectory, comm);
}

void DistributedSampledSchedule::printStats(
    const TrainingResult &result) const {
  SampledSchedule::printStats(result);
  // One process on a partition directory has no traffic to report; sampled
  // steps move no halo: their traffic is the sampling's.
  if (comm.size() > 1)
    printRankStats(result, 0.0);
}

} // namespace gnnrt
