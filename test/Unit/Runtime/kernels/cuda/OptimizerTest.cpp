//===- OptimizerTest.cpp - Device optimizer steps equal the CPU's ---------===//
//
// Three steps of Adam, AdamW and SGD (with and without momentum and weight
// decay) on device parameters give gnnrt::Optimizer's values bit for bit,
// and a float64 Adam step written from PyTorch's formula to rounding.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Optimizer.h"

#include "CpuComparison.h"
#include "CudaTestUtil.h"
#include "gnnrt/train/Optimizer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::cudatest;

namespace {

kernels::cuda::UpdateConfig updateConfig(const OptimizerConfig &c) {
  return {c.lr, c.weightDecay, c.beta1, c.beta2, c.eps, c.momentum};
}

void threeSteps(const OptimizerConfig &config, const std::string &what) {
  const int64_t n = 1000;
  std::vector<float> cpuParams = randomValues<float>(n, 1);
  Optimizer cpu(config, {n});
  DeviceArray<float> p(cpuParams), m{size_t(n)}, v{size_t(n)};
  for (int64_t step = 1; step <= 3; ++step) {
    const std::vector<float> grad = randomValues<float>(n, 10 + uint64_t(step));
    cpu.step({cpuParams.data()}, {const_cast<float *>(grad.data())});
    DeviceArray<float> g(grad);
    if (config.kind == OptimizerKind::Sgd)
      kernels::cuda::sgdUpdate(updateConfig(config), step, n, p.get(), g.get(),
                               m.get());
    else
      kernels::cuda::adamUpdate(updateConfig(config),
                                config.kind == OptimizerKind::AdamW, step, n,
                                p.get(), g.get(), m.get(), v.get());
    expectSameBits(p.toHost(), cpuParams,
                   what + " step " + std::to_string(step));
  }
}

TEST(CudaOptimizer, StepsSameBitsAsCpu) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  OptimizerConfig c;
  c.lr = 0.01;
  for (double wd : {0.0, 5e-4}) {
    c.weightDecay = wd;
    c.kind = OptimizerKind::Adam;
    threeSteps(c, "adam wd " + std::to_string(wd));
    c.kind = OptimizerKind::AdamW;
    threeSteps(c, "adamw wd " + std::to_string(wd));
    c.kind = OptimizerKind::Sgd;
    for (double momentum : {0.0, 0.9}) {
      c.momentum = momentum;
      threeSteps(c, "sgd momentum " + std::to_string(momentum));
    }
    c.momentum = 0;
  }
}

TEST(CudaOptimizer, AdamStepMatchesFloat64Formula) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const kernels::cuda::UpdateConfig c{0.05, 0.01, 0.9, 0.999, 1e-8, 0};
  const std::vector<float> p0 = randomValues<float>(64, 2),
                           g = randomValues<float>(64, 3);
  DeviceArray<float> p(p0), dg(g), m(64), v(64);
  kernels::cuda::adamUpdate(c, false, 1, 64, p.get(), dg.get(), m.get(),
                            v.get());
  const std::vector<float> after = p.toHost();
  for (size_t i = 0; i < 64; ++i) {
    const double d = double(g[i]) + c.weightDecay * double(p0[i]);
    const double mHat = (1 - c.beta1) * d / (1 - c.beta1);
    const double vHat = (1 - c.beta2) * d * d / (1 - c.beta2);
    const double expected = p0[i] - c.lr * mHat / (std::sqrt(vHat) + c.eps);
    EXPECT_NEAR(after[i], expected, 1e-6) << i;
  }
}

} // namespace
