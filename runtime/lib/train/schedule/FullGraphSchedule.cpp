//===- FullGraphSchedule.cpp - training on the whole graph ----------------===//
//
// See FullGraphSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "FullGraphSchedule.h"

#include "params/OptimizerStep.h"

#include <algorithm>
#include <cstdio>

namespace gnnrt {

TrainingData FullGraphSchedule::loadData() {
  return loadWholeGraph(program, options);
}

double FullGraphSchedule::trainEpoch(int64_t epoch, OptimizerStep &step) {
  trainCtx.step = uint64_t(epoch - 1);
  return step(&trainCtx);
}

Accuracies FullGraphSchedule::evaluate() {
  forwardCtx.output = logits.data();
  program.forwardF32(forwardCtx);
  const TrainingData &t = trainingData;
  const int64_t classes = t.data.numClasses;
  const int64_t *labels = t.data.labels.data();
  // Only the splits `evaluate = [...]` names; the others stay n/a.
  const std::array<bool, 3> named = evaluatedSplits(program.settings);
  const std::vector<int64_t> *splits[3] = {
      &t.data.trainIdx, &t.data.validIdx, &t.data.testIdx};
  AccuracyCounts counts[3];
  for (int i = 0; i < 3; ++i)
    if (named[size_t(i)])
      counts[i] = accuracyCounts(logits.data(), classes, labels, *splits[i]);
  int64_t sums[6];
  for (int i = 0; i < 3; ++i) {
    sums[2 * i] = counts[i].correct;
    sums[2 * i + 1] = counts[i].labeled;
  }
  comm.allReduceSum(sums, 6);
  for (int i = 0; i < 3; ++i)
    counts[i] = {sums[2 * i], sums[2 * i + 1]};
  Accuracies acc{counts[0].fraction(), counts[1].fraction(),
                 counts[2].fraction()};
  if (wantsValidLoss(program.settings)) {
    LossSum loss =
        crossEntropySum(logits.data(), classes, labels, t.data.validIdx);
    double parts[2] = {loss.sum, loss.count};
    comm.allReduceSum(parts, 2);
    acc.validLoss = LossSum{parts[0], parts[1]}.mean();
  }
  return acc;
}

void FullGraphSchedule::printStats(const TrainingResult &result) const {
  printPlanStats(result);
}

TrainingData DistributedFullGraphSchedule::loadData() {
  return loadRankPartition(program, options, partitionDirectory, comm);
}

void DistributedFullGraphSchedule::bind(ParameterStore<float> &params) {
  FullGraphSchedule::bind(params);
  // Loading the partition exchanged degrees through the halo.
  if (trainingData.halo)
    trainingData.halo->resetTraffic();
}

void DistributedFullGraphSchedule::printStats(
    const TrainingResult &result) const {
  printPlanStats(result);
  // One process on a partition directory has no traffic to report.
  if (comm.size() == 1)
    return;
  const double epochs = double(std::max<int64_t>(1, result.last.epoch));
  const CommTraffic &fwd = trainingData.halo->forwardTraffic();
  const CommTraffic &bwd = trainingData.halo->backwardTraffic();
  std::printf(
      "stats: rank %d halo forward sent %lld received %lld bytes/epoch\n",
      comm.rank(), (long long)(fwd.sentBytes / epochs),
      (long long)(fwd.receivedBytes / epochs));
  std::printf("stats: rank %d halo backward sent %lld received %lld "
              "bytes/epoch\n",
              comm.rank(), (long long)(bwd.sentBytes / epochs),
              (long long)(bwd.receivedBytes / epochs));
  printRankStats(result, fwd.seconds + bwd.seconds);
}

} // namespace gnnrt
