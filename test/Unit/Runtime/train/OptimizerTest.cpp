//===- OptimizerTest.cpp - Adam, AdamW and SGD against torch.optim --------===//
//
// Each optimizer runs three steps on a 2-element tensor with fixed gradients
// and is compared with the update rules of torch.optim's documentation
// written out here in double; float32 state allows a 1e-6 relative error.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/train/Optimizer.h"

#include "ScopedEnv.h"
#include "TestUtil.h"
#include "gnnrt/support/Glob.h"
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

TEST(Optimizer, AdamAvx512AndBaselineGiveTheSameBits) {
  // The update loop runs AVX-512 where the CPU has it; the baseline x86-64
  // loop must give the same parameters and moments, step after step (both
  // rules, a tensor with a ragged end, gradients across magnitudes).
  const int64_t n = 1000 + 13;
  for (OptimizerKind kind : {OptimizerKind::Adam, OptimizerKind::AdamW}) {
    std::vector<std::vector<float>> results;
    for (bool baseline : {false, true}) {
      ScopedEnv isa("GNNRT_CPU_ISA", baseline ? "baseline" : "native");
      std::vector<float> p(static_cast<size_t>(n)), g(p.size());
      for (int64_t i = 0; i < n; ++i)
        p[size_t(i)] = std::sin(double(i)) * 3;
      Optimizer adam(config(kind, 0.01, 0.05), {n});
      for (int step = 0; step < 5; ++step) {
        for (int64_t i = 0; i < n; ++i)
          g[size_t(i)] = float(std::cos(double(i * (step + 2))) *
                               std::pow(10.0, double(i % 7) - 3));
        adam.step({p.data()}, {g.data()});
      }
      results.push_back(p);
    }
    EXPECT_EQ(results[0], results[1]);
  }
}

TEST(Optimizer, RunningStatisticsAddTheirChangeAveragedOverRanks) {
  // A buffer (batch_norm's running statistic) adds its gradient slot, the
  // step's change, times 1/ranks, whatever its group says; a weight beside
  // it takes its Adam step.
  std::vector<float> stat = {1.0f, 2.0f}, weight = {1.0f, -2.0f};
  std::vector<float> change = {0.5f, -0.25f}, grad = {0.5f, -0.25f};
  std::vector<ParamUpdate> updates(2);
  updates[0].buffer = true;
  updates[0].frozen = true;
  updates[0].lr = updates[1].lr = 0.1;
  Optimizer adam(config(OptimizerKind::Adam, 0.1, 0.5), {2, 2}, updates);
  adam.setBufferWeight(0.5); // two ranks
  adam.step({stat.data(), weight.data()}, {change.data(), grad.data()});
  EXPECT_EQ(stat, (std::vector<float>{1.25f, 1.875f}));
  EXPECT_NEAR(weight[0], 0.9f, 1e-6);
  EXPECT_NEAR(weight[1], -1.9f, 1e-6);
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

TEST(Optimizer, ParamGroupsUpdateEachTensorAtItsOwnRateAndDecay) {
  // Three tensors of kStart under one Adam: the first at the optimizer's
  // values, the second at its group's rate and decay, the third frozen.
  // Each equals torch's rule at its own values; the frozen one and its
  // moments do not move.
  const OptimizerConfig adam = config(OptimizerKind::Adam, 0.1, 0.01);
  std::vector<ParamUpdate> updates(3);
  updates[0] = {0.1, 0.01, false, ""};
  updates[1] = {0.02, 0.5, false, "group(b, lr = 0.02, weight_decay = 0.5)"};
  updates[2] = {0.1, 0.01, true, "group(c, frozen = true)"};
  Optimizer optimizer(adam, {2, 2, 2}, updates);
  std::vector<std::vector<float>> p(
      3, std::vector<float>(kStart.begin(), kStart.end()));
  for (const auto &g : kGrads) {
    std::vector<float> grad(g.begin(), g.end());
    optimizer.step({p[0].data(), p[1].data(), p[2].data()},
                   {grad.data(), grad.data(), grad.data()});
  }
  expectNear(p[0], referenceAdam(0.1, 0.01, false));
  expectNear(p[1], referenceAdam(0.02, 0.5, false));
  EXPECT_EQ(p[2], std::vector<float>(kStart.begin(), kStart.end()));
  for (const Optimizer::StateKind &kind : optimizer.state())
    EXPECT_EQ((*kind.tensors)[2], std::vector<float>(2, 0.0f)) << kind.name;

  // SGD with momentum and AdamW alike.
  for (OptimizerKind kind : {OptimizerKind::Sgd, OptimizerKind::AdamW}) {
    Optimizer other(config(kind, 0.1, 0.01, 0.9), {2},
                    {{0.05, 0.2, false, "group(x, lr = 0.05)"}});
    std::vector<float> q(kStart.begin(), kStart.end());
    for (const auto &g : kGrads) {
      std::vector<float> grad(g.begin(), g.end());
      other.step({q.data()}, {grad.data()});
    }
    expectNear(q, kind == OptimizerKind::Sgd ? referenceSgd(0.05, 0.9, 0.2)
                                             : referenceAdam(0.05, 0.2, true));
  }
}

TEST(Optimizer, ParamUpdatesTakeTheFirstMatchingGroup) {
  TrainSettings s;
  s.paramGroups.push_back({"\"*.w\"", "*.w", std::nullopt, 0.25, false, ""});
  s.paramGroups.push_back({"c1", "c1.*", 0.5, std::nullopt, false, ""});
  s.paramGroups.push_back({"c2", "c2.*", std::nullopt, std::nullopt, true, ""});
  std::vector<ParamInfo> params = {
      {"c1.w", {2}}, {"c1.b", {2}}, {"c2.w", {2}}, {"c2.b", {2}}, {"w", {1}}};
  const OptimizerConfig c = config(OptimizerKind::Adam, 0.01, 0.001);
  std::vector<ParamUpdate> u = paramUpdates(c, s, params);
  ASSERT_EQ(u.size(), 5u);
  // c1.w and c2.w: "*.w" (its decay, the optimizer's rate); c1.b: c1.
  EXPECT_EQ(u[0].lr, 0.01);
  EXPECT_EQ(u[0].weightDecay, 0.25);
  EXPECT_EQ(u[0].group, "group(\"*.w\", weight_decay = 0.25)");
  EXPECT_FALSE(u[2].frozen);
  EXPECT_EQ(u[1].lr, 0.5);
  EXPECT_EQ(u[1].weightDecay, 0.001);
  EXPECT_EQ(u[1].group, "group(c1, lr = 0.5)");
  EXPECT_TRUE(u[3].frozen);
  EXPECT_EQ(u[3].group, "group(c2, frozen = true)");
  // `w` matches no group: the optimizer's values, no group recorded.
  EXPECT_EQ(u[4].lr, 0.01);
  EXPECT_EQ(u[4].weightDecay, 0.001);
  EXPECT_FALSE(u[4].frozen);
  EXPECT_EQ(u[4].group, "");
}

TEST(Optimizer, GroupPatternsAreGlobsOverDottedNames) {
  EXPECT_TRUE(globMatch("c1.*", "c1.w"));
  EXPECT_FALSE(globMatch("c1.*", "c10.w"));
  EXPECT_TRUE(globMatch("convs*", "convs.3.w")); // `*` crosses dots
  EXPECT_TRUE(globMatch("c?.b", "c2.b"));
  EXPECT_FALSE(globMatch("c?.b", "c12.b"));
  EXPECT_TRUE(globMatch("*", ""));
  EXPECT_FALSE(globMatch("", "w"));
  EXPECT_TRUE(globMatch("*.w*", "a.b.w_root"));
}

TEST(Optimizer, ScheduleScalesEveryGroupsRate) {
  // A schedule's scale multiplies the optimizer's rate and each group's
  // base rate alike: one SGD step at scale 0.5 moves a parameter at group
  // rate 0.4 by 0.2 * g, one at the optimizer's 0.1 by 0.05 * g.
  Optimizer sgd(config(OptimizerKind::Sgd, 0.1, 0), {1, 1},
                {{0.1, 0, false, ""}, {0.4, 0, false, "group(b, lr = 0.4)"}});
  sgd.setLearningRateScale(0.5);
  EXPECT_EQ(sgd.config().lr, 0.1 * 0.5);
  EXPECT_EQ(sgd.learningRate(0), 0.1 * 0.5);
  EXPECT_EQ(sgd.learningRate(1), 0.4 * 0.5);
  std::vector<float> a = {1.0f}, b = {1.0f}, g = {0.5f};
  sgd.step({a.data(), b.data()}, {g.data(), g.data()});
  EXPECT_FLOAT_EQ(a[0], 1.0f - 0.05f * 0.5f);
  EXPECT_FLOAT_EQ(b[0], 1.0f - 0.2f * 0.5f);
}
