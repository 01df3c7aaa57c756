//===- OptimizerTest.cpp - Adam, AdamW and SGD against torch.optim --------===//
//
// Each optimizer runs three steps on a 2-element tensor with fixed gradients
// and is compared with the update rules of torch.optim's documentation
// written out here in double; float32 state allows a 1e-6 relative error.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/train/Optimizer.h"

#include "TestUtil.h"
#include "gnnrt/train/Program.h"

#include <cmath>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

const std::vector<std::vector<double>> kGrads = {
    {0.5, -0.25}, {0.1, 0.3}, {-0.2, 0.05}};
const std::vector<double> kStart = {1.0, -2.0};

/// Runs the optimizer over kGrads from kStart and returns the parameters.
std::vector<float> runOptimizer(const OptimizerConfig &config) {
  std::vector<float> p(kStart.begin(), kStart.end());
  Optimizer optimizer(config, {2});
  for (const auto &g : kGrads) {
    std::vector<float> grad(g.begin(), g.end());
    optimizer.step({p.data()}, {grad.data()});
  }
  EXPECT_EQ(optimizer.steps(), 3);
  return p;
}

/// torch.optim.Adam / AdamW (amsgrad=False), in double.
std::vector<double> referenceAdam(double lr, double wd, bool decoupled) {
  const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
  std::vector<double> p = kStart, m(2, 0.0), v(2, 0.0);
  for (size_t t = 1; t <= kGrads.size(); ++t) {
    for (size_t i = 0; i < 2; ++i) {
      double g = kGrads[t - 1][i];
      if (decoupled)
        p[i] *= 1 - lr * wd;
      else
        g += wd * p[i];
      m[i] = b1 * m[i] + (1 - b1) * g;
      v[i] = b2 * v[i] + (1 - b2) * g * g;
      double mHat = m[i] / (1 - std::pow(b1, double(t)));
      double vHat = v[i] / (1 - std::pow(b2, double(t)));
      p[i] -= lr * mHat / (std::sqrt(vHat) + eps);
    }
  }
  return p;
}

/// torch.optim.SGD (dampening=0, nesterov=False), in double.
std::vector<double> referenceSgd(double lr, double momentum, double wd) {
  std::vector<double> p = kStart, buf(2, 0.0);
  for (size_t t = 1; t <= kGrads.size(); ++t) {
    for (size_t i = 0; i < 2; ++i) {
      double g = kGrads[t - 1][i] + wd * p[i];
      if (momentum != 0) {
        buf[i] = t == 1 ? g : momentum * buf[i] + g;
        g = buf[i];
      }
      p[i] -= lr * g;
    }
  }
  return p;
}

void expectNear(const std::vector<float> &actual,
                const std::vector<double> &expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-6 * std::abs(expected[i]))
        << "element " << i;
}

OptimizerConfig config(OptimizerKind kind, double lr, double wd,
                       double momentum = 0) {
  OptimizerConfig c;
  c.kind = kind;
  c.lr = lr;
  c.weightDecay = wd;
  c.momentum = momentum;
  return c;
}

} // namespace

TEST(Optimizer, AdamFirstStepMovesByLr) {
  // With m and v bias-corrected, the first step is lr * g / (|g| + eps).
  std::vector<float> p = {1.0f, -2.0f}, g = {0.5f, -0.25f};
  Optimizer adam(config(OptimizerKind::Adam, 0.1, 0), {2});
  adam.step({p.data()}, {g.data()});
  EXPECT_NEAR(p[0], 0.9f, 1e-6);
  EXPECT_NEAR(p[1], -1.9f, 1e-6);
}

TEST(Optimizer, AdamWithL2WeightDecay) {
  expectNear(runOptimizer(config(OptimizerKind::Adam, 0.1, 0.01)),
             referenceAdam(0.1, 0.01, false));
}

TEST(Optimizer, AdamWDecouplesWeightDecay) {
  std::vector<float> adamw =
      runOptimizer(config(OptimizerKind::AdamW, 0.1, 0.5));
  expectNear(adamw, referenceAdam(0.1, 0.5, true));
  // A large decay makes the two rules visibly different.
  std::vector<double> l2 = referenceAdam(0.1, 0.5, false);
  EXPECT_GT(std::abs(adamw[0] - l2[0]), 1e-3);
}

TEST(Optimizer, SgdWithMomentumAndWeightDecay) {
  expectNear(runOptimizer(config(OptimizerKind::Sgd, 0.1, 0.01, 0.9)),
             referenceSgd(0.1, 0.9, 0.01));
}

TEST(Optimizer, PlainSgd) {
  std::vector<float> p = {1.0f}, g = {0.5f};
  Optimizer sgd(config(OptimizerKind::Sgd, 0.1, 0), {1});
  sgd.step({p.data()}, {g.data()});
  EXPECT_FLOAT_EQ(p[0], 0.95f);
  expectNear(runOptimizer(config(OptimizerKind::Sgd, 0.1, 0)),
             referenceSgd(0.1, 0, 0));
}

TEST(Optimizer, ConfigFromSettings) {
  TrainSettings s;
  s.optimizer = "adamw";
  s.lr = 0.005;
  s.weightDecay = 5e-4;
  s.beta1 = 0.8;
  OptimizerConfig c = OptimizerConfig::fromSettings(s);
  EXPECT_EQ(c.kind, OptimizerKind::AdamW);
  EXPECT_EQ(c.lr, 0.005);
  EXPECT_EQ(c.weightDecay, 5e-4);
  EXPECT_EQ(c.beta1, 0.8);
  s.optimizer = "rmsprop";
  EXPECT_EQ(dataErrorOf([&] { OptimizerConfig::fromSettings(s); }),
            "unknown optimizer 'rmsprop' (expected adam, adamw or sgd)");
}
