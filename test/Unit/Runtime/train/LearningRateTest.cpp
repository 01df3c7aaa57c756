//===- LearningRateTest.cpp - The learning rate of each epoch -------------===//
//
// The rates of a warm-up, a step decay and a cosine annealing, epoch by
// epoch, against values worked out by hand from docs/training.md's
// formulas; and the optimizer applying a scale to its configured rate.
//
//===----------------------------------------------------------------------===//

#include "train/params/LearningRate.h"
#include "gnnrt/train/Optimizer.h"

#include <gtest/gtest.h>

using namespace gnnrt;

namespace {

TrainSettings withRate(double lr, int64_t epochs) {
  TrainSettings s;
  s.lr = lr;
  s.epochs = epochs;
  return s;
}

} // namespace

TEST(LearningRate, ConstantWithoutASchedule) {
  const TrainSettings s = withRate(0.01, 10);
  EXPECT_FALSE(hasLearningRateSchedule(s));
  for (int64_t e = 1; e <= 10; ++e) {
    EXPECT_EQ(learningRateAt(s, e), 0.01);
    EXPECT_EQ(learningRateScale(s, e), 1.0);
  }
}

TEST(LearningRate, WarmUpThenStep) {
  TrainSettings s = withRate(0.4, 12);
  s.warmupEpochs = 4;
  s.lrSchedule.kind = "step";
  s.lrSchedule.stepSize = 3;
  s.lrSchedule.gamma = 0.5;
  EXPECT_TRUE(hasLearningRateSchedule(s));
  // Warm-up 0.1, 0.2, 0.3, 0.4; then 3 epochs each at 0.4, 0.2, 0.1, ...
  const double want[] = {0.1, 0.2, 0.3, 0.4, 0.4, 0.4,
                         0.4, 0.2, 0.2, 0.2, 0.1, 0.1};
  for (int64_t e = 1; e <= 12; ++e)
    EXPECT_DOUBLE_EQ(learningRateAt(s, e), want[e - 1]) << "epoch " << e;
}

TEST(LearningRate, CosineFromTheRateToTheFloor) {
  TrainSettings s = withRate(1.0, 4);
  s.lrSchedule.kind = "cosine";
  s.lrSchedule.minLr = 0.2;
  // T = 4: 0.2 + 0.8 * (1 + cos(pi t / 4)) / 2 for t = 0..3.
  EXPECT_DOUBLE_EQ(learningRateAt(s, 1), 1.0);
  EXPECT_DOUBLE_EQ(learningRateAt(s, 2), 0.2 + 0.4 * (1 + std::sqrt(0.5)));
  EXPECT_DOUBLE_EQ(learningRateAt(s, 3), 0.6);
  EXPECT_DOUBLE_EQ(learningRateAt(s, 4), 0.2 + 0.4 * (1 - std::sqrt(0.5)));
  EXPECT_DOUBLE_EQ(learningRateScale(s, 3), 0.6);
}

TEST(LearningRate, TheOptimizerScalesItsConfiguredRate) {
  OptimizerConfig config;
  config.lr = 0.01;
  Optimizer optimizer(config, {1});
  optimizer.setLearningRateScale(0.5);
  EXPECT_DOUBLE_EQ(optimizer.config().lr, 0.005);
  optimizer.setLearningRateScale(1.0);
  EXPECT_EQ(optimizer.config().lr, 0.01);
}
