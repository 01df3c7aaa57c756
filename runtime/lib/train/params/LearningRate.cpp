//===- LearningRate.cpp - the learning rate of each epoch -----------------===//
//
// See LearningRate.h.
//
//===----------------------------------------------------------------------===//

#include "LearningRate.h"

#include <algorithm>
#include <cmath>

namespace gnnrt {

double learningRateAt(const TrainSettings &settings, int64_t epoch) {
  const double lr = settings.lr;
  const int64_t warmup = settings.warmupEpochs;
  if (epoch <= warmup)
    return lr * double(epoch) / double(warmup);
  const TrainSettings::LrSchedule &schedule = settings.lrSchedule;
  const int64_t t = epoch - warmup - 1;
  if (schedule.kind == "step" && schedule.stepSize > 0)
    return lr * std::pow(schedule.gamma, double(t / schedule.stepSize));
  if (schedule.kind == "cosine") {
    const double span = double(std::max<int64_t>(1, settings.epochs - warmup));
    const double pi = std::acos(-1.0);
    return schedule.minLr +
           (lr - schedule.minLr) * (1 + std::cos(pi * double(t) / span)) / 2;
  }
  return lr;
}

double learningRateScale(const TrainSettings &settings, int64_t epoch) {
  if (!hasLearningRateSchedule(settings) || settings.lr == 0)
    return 1;
  return learningRateAt(settings, epoch) / settings.lr;
}

bool hasLearningRateSchedule(const TrainSettings &settings) {
  return settings.warmupEpochs > 0 || !settings.lrSchedule.kind.empty();
}

} // namespace gnnrt
