//===- LearningRate.h - the learning rate of each epoch ---------*- C++ -*-===//
//
// Internal to gnnrt. The train block's `warmup = W` and `lr_schedule` as a
// pure function of (settings, epoch), so that a resumed run and any rank
// count train every epoch at the same rate with no state to carry. With
// base lr L, epoch e (1-based) trains at:
//  - e <= W (warm-up):       L * e / W
//  - after it, t = e - W - 1 (the scheduled epochs, 0-based):
//      constant               L
//      step(size S, gamma G)  L * G^floor(t / S)
//      cosine(min_lr M)       M + (L - M) * (1 + cos(pi * t / T)) / 2,
//                             T = max(1, epochs - W)
// as torch.optim.lr_scheduler's StepLR and CosineAnnealingLR stepped once
// per epoch. The optimizer applies the rate as a factor of its own
// (learningRateScale), so that settings with several base rates scale alike.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_LEARNINGRATE_H
#define GNNRT_LIB_TRAIN_LEARNINGRATE_H

#include "gnnrt/train/Program.h"

#include <cstdint>

namespace gnnrt {

/// The learning rate epoch `epoch` (1-based) trains at, for the base rate
/// settings.lr.
double learningRateAt(const TrainSettings &settings, int64_t epoch);

/// learningRateAt as a factor of settings.lr (1 without a schedule).
double learningRateScale(const TrainSettings &settings, int64_t epoch);

/// Whether the rate changes over the epochs (a schedule or a warm-up): the
/// metrics lines then carry it.
bool hasLearningRateSchedule(const TrainSettings &settings);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_LEARNINGRATE_H
