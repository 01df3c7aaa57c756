//===- NormTest.cpp - Batch normalization kernels -------------------------===//
//
// gnnrt/kernels/Norm.h against float64 references: the forward, the bits
// of the formula it replaces (mean(), deviations, rsqrt), the adjoint by
// finite differences, evaluation with running statistics and a step's
// change of them.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Axis.h"
#include "gnnrt/kernels/Norm.h"

#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::kerneltest;

namespace {

/// Batch normalization in float64: each column of [outer, n, inner]
/// standardized over the axis with its mean and biased variance.
Vec batchNormRef(const AxisShape &s, const Vec &x, double eps) {
  Vec y(x.size());
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i) {
      double mean = 0, var = 0;
      for (int64_t t = 0; t < s.n; ++t)
        mean += x[s.at(o, t, i)] / double(s.n);
      for (int64_t t = 0; t < s.n; ++t)
        var += (x[s.at(o, t, i)] - mean) * (x[s.at(o, t, i)] - mean) /
               double(s.n);
      for (int64_t t = 0; t < s.n; ++t)
        y[s.at(o, t, i)] = (x[s.at(o, t, i)] - mean) / std::sqrt(var + eps);
    }
  return y;
}

TEST(KernelsForward, BatchNormAgainstFloat64) {
  for (const AxisShape &s : kAxisShapes) {
    // Shifted and scaled columns: the statistics must not lose them.
    Vec x = randomVector(s.size(), 31, 95, 105);
    const Vec xd = x;
    std::vector<float> xf = cast<float>(roundTo<float>(x)), yf(x.size());
    Vec yd(x.size());
    kernels::batchNorm<double>(s.outer, s.n, s.inner, 1e-5, xd.data(),
                               yd.data());
    expectNear(yd, batchNormRef(s, xd, 1e-5), 1e-9, "batchNorm " + s.name());
    kernels::batchNorm<float>(s.outer, s.n, s.inner, 1e-5, xf.data(),
                              yf.data());
    expectNear(toDouble(yf), batchNormRef(s, toDouble(xf), 1e-5), 2e-3,
               "batchNorm<float> " + s.name());
  }
}

TEST(KernelsForward, BatchNormIsTheComposedFormulaBitForBit) {
  // The stdlib's BatchNorm was mean(), a subtraction, mean() of squares,
  // rsqrt and a product: the kernel keeps those bits (float, 64+ columns
  // split in tiles, a single row).
  for (const AxisShape &s : {AxisShape{1, 37, 70}, AxisShape{1, 1, 5},
                             AxisShape{2, 9, 3}}) {
    std::vector<float> x = cast<float>(randomVector(s.size(), 32, -4, 6));
    const int64_t columns = s.outer * s.inner;
    std::vector<float> mean(static_cast<size_t>(columns)), centered(x.size()),
        squared(x.size()), var(static_cast<size_t>(columns)),
        composed(x.size()), fused(x.size());
    for (int64_t o = 0; o < s.outer; ++o) {
      const int64_t base = o * s.n * s.inner;
      kernels::reduceAxis<float>(Reduce::Mean, 1, s.n, s.inner, x.data() + base,
                                 mean.data() + o * s.inner);
      for (int64_t t = 0; t < s.n; ++t)
        for (int64_t i = 0; i < s.inner; ++i) {
          const int64_t at = base + t * s.inner + i;
          centered[at] = x[at] - mean[o * s.inner + i];
          squared[at] = centered[at] * centered[at];
        }
      kernels::reduceAxis<float>(Reduce::Mean, 1, s.n, s.inner,
                                 squared.data() + base,
                                 var.data() + o * s.inner);
      for (int64_t t = 0; t < s.n; ++t)
        for (int64_t i = 0; i < s.inner; ++i) {
          const int64_t at = base + t * s.inner + i;
          const float rstd =
              1.0f / std::sqrt(var[o * s.inner + i] + float(1e-5));
          composed[at] = centered[at] * rstd;
        }
    }
    kernels::batchNorm<float>(s.outer, s.n, s.inner, 1e-5, x.data(),
                              fused.data());
    EXPECT_EQ(fused, composed) << s.name();
  }
}

TEST(KernelsForward, BatchNormRunningStatisticsAgainstFloat64) {
  // Evaluation normalizes with given statistics; a train step's change of
  // them is momentum * (batch - running), the batch's variance unbiased.
  for (const AxisShape &s : kAxisShapes) {
    const Vec x = randomVector(s.size(), 35, -3, 7);
    const int64_t columns = s.outer * s.inner;
    const Vec runMean = randomVector(columns, 36, -1, 1);
    const Vec runVar = randomVector(columns, 37, 0.5, 2);
    Vec y(x.size()), changeMean(static_cast<size_t>(columns), -99),
        changeVar(static_cast<size_t>(columns), -99);
    kernels::batchNormInference<double>(s.outer, s.n, s.inner, 1e-3, x.data(),
                                        runMean.data(), runVar.data(),
                                        y.data());
    kernels::batchNormRunningChange<double>(s.outer, s.n, s.inner, false, 0.1,
                                            x.data(), runMean.data(),
                                            changeMean.data());
    kernels::batchNormRunningChange<double>(s.outer, s.n, s.inner, true, 0.1,
                                            x.data(), runVar.data(),
                                            changeVar.data());
    Vec wantY(x.size()), wantMean(static_cast<size_t>(columns)),
        wantVar(static_cast<size_t>(columns));
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t i = 0; i < s.inner; ++i) {
        const int64_t c = o * s.inner + i;
        double mean = 0, squares = 0;
        for (int64_t t = 0; t < s.n; ++t)
          mean += x[s.at(o, t, i)] / double(s.n);
        for (int64_t t = 0; t < s.n; ++t) {
          const double d = x[s.at(o, t, i)] - mean;
          squares += d * d;
          wantY[s.at(o, t, i)] =
              (x[s.at(o, t, i)] - runMean[c]) / std::sqrt(runVar[c] + 1e-3);
        }
        wantMean[c] = 0.1 * (mean - runMean[c]);
        // One row has no unbiased variance: no change.
        wantVar[c] = s.n < 2 ? 0.0
                             : 0.1 * (squares / double(s.n - 1) - runVar[c]);
      }
    expectNear(y, wantY, 1e-12, "batchNormInference " + s.name());
    expectNear(changeMean, wantMean, 1e-12, "running mean " + s.name());
    expectNear(changeVar, wantVar, 1e-12, "running variance " + s.name());
  }
}

TEST(KernelsGrad, BatchNorm) {
  for (const AxisShape &s : kAxisShapes) {
    if (s.n < 2)
      continue; // one row: y is 0 whatever x is
    Vec x = randomVector(s.size(), 33, -2, 3);
    const Vec r = randomVector(s.size(), 34);
    auto forward = [&] {
      Vec y(x.size());
      kernels::batchNorm<double>(s.outer, s.n, s.inner, 0.01, x.data(),
                                 y.data());
      return y;
    };
    const Vec y = forward();
    Vec dx(x.size(), -99);
    kernels::batchNormGrad<double>(s.outer, s.n, s.inner, 0.01, r.data(),
                                   x.data(), y.data(), dx.data());
    expectGradient(
        x, dx, [&] { return dot(r, forward()); }, "batchNorm " + s.name());
  }
}

} // namespace
