//===- LossTest.cpp - Cross-entropy and accuracy on a device --------------===//
//
// cuda::crossEntropy and its gradient against a float64 loop and the CPU
// kernels, over more rows than one chunk of the fixed summation (with
// unlabeled and masked-out rows), narrow rows and 1vsAll-wide ones; the
// float gradient equals the CPU's bit for bit; the norm penalty and its
// gradient equal the CPU's; accuracy counts against a direct count.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "CpuComparison.h"
#include "CudaTestUtil.h"
#include "gnnrt/kernels/Loss.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::cudatest;

namespace {

struct LossData {
  int64_t rows, classes;
  std::vector<int64_t> labels;
  std::vector<uint8_t> mask;
  /// By default 3 chunks of 1024 rows of 7 classes.
  explicit LossData(int64_t rows = 2500, int64_t classes = 7)
      : rows(rows), classes(classes) {
    CounterRng rng(4, 1);
    for (int64_t i = 0; i < rows; ++i) {
      labels.push_back(i % 11 == 0 ? -1
                                   : int64_t(rng.nextBelow(uint32_t(classes))));
      mask.push_back(i % 3 != 0);
    }
  }
};

template <typename T> void lossCases(const LossData &d) {
  const auto logits = randomValues<T>(d.rows * d.classes, 2, -4, 4);
  DeviceArray<T> dLogits(logits);
  DeviceArray<int64_t> dLabels(d.labels);
  DeviceArray<uint8_t> dMask(d.mask);
  for (bool masked : {false, true}) {
    const uint8_t *mask = masked ? d.mask.data() : nullptr;
    // float64 reference
    double total = 0;
    int64_t count = 0;
    for (int64_t i = 0; i < d.rows; ++i) {
      if (d.labels[i] < 0 || (mask && !mask[i]))
        continue;
      double sum = 0;
      for (int64_t c = 0; c < d.classes; ++c)
        sum += std::exp(double(logits[i * d.classes + c]));
      total += std::log(sum) - double(logits[i * d.classes + d.labels[i]]);
      ++count;
    }
    const T loss = kernels::cuda::crossEntropy(d.rows, d.classes, dLogits.get(),
                                               dLabels.get(),
                                               masked ? dMask.get() : nullptr);
    EXPECT_NEAR(double(loss), total / double(count),
                tolerance<T>() * total / double(count));
    EXPECT_NEAR(double(loss),
                double(kernels::crossEntropy(d.rows, d.classes, logits.data(),
                                             d.labels.data(), mask)),
                tolerance<T>());

    std::vector<T> expected(logits.size());
    kernels::crossEntropyGrad(d.rows, d.classes, logits.data(), d.labels.data(),
                              mask, T(2), expected.data());
    DeviceArray<T> grad(logits.size());
    kernels::cuda::crossEntropyGrad(
        d.rows, d.classes, dLogits.get(), dLabels.get(),
        masked ? dMask.get() : nullptr, T(2), grad.get());
    // float: the CPU's operations (its polynomial exp, its lanes), so
    // the CPU's bits, on a device too; double: to the device's exp.
    if constexpr (std::is_same_v<T, float>)
      EXPECT_EQ(grad.toHost(), expected);
    else
      expectClose(grad.toHost(), expected, tolerance<T>(), "crossEntropyGrad");
  }
  // No rows: a loss of 0.
  EXPECT_EQ(kernels::cuda::crossEntropy<T>(0, d.classes, dLogits.get(),
                                           dLabels.get(), nullptr),
            T(0));
}

TEST(CudaLoss, CrossEntropyAndGradientMatchFloat64) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  lossCases<float>(LossData());
  lossCases<double>(LossData());
}

// Rows of 1vsAll width (a class per entity): over a chunk of rows, 1,500
// classes (not a multiple of the 16 lanes or of a warp).
TEST(CudaLoss, WideRowsMatchFloat64) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  lossCases<float>(LossData(1100, 1500));
  lossCases<double>(LossData(1100, 1500));
}

// The norm penalty (N3, squared L2) over three chunks of rows of 5 values:
// the CPU's value and gradient bit for bit (the same float64 operations in
// the same order, none fused on the device: LossArithmetic.h), and a float64
// loop's value.
template <typename T> void penaltyCases(int64_t rows, int64_t width) {
  const auto x = randomValues<T>(rows * width, 5, -2, 2);
  DeviceArray<T> dX(x);
  for (int64_t power : {2, 3}) {
    double want = 0;
    for (T v : x)
      want += std::pow(std::fabs(double(v)), double(power));
    const T got = kernels::cuda::normPenalty(rows, width, dX.get(), power);
    EXPECT_EQ(got, kernels::normPenalty(rows, width, x.data(), power));
    EXPECT_NEAR(double(got), want, tolerance<T>() * want);

    std::vector<T> expected(x.size());
    kernels::normPenaltyGrad(rows, width, x.data(), power, T(0.25),
                             expected.data());
    DeviceArray<T> grad(x.size());
    kernels::cuda::normPenaltyGrad(rows, width, dX.get(), power, T(0.25),
                                   grad.get());
    EXPECT_EQ(grad.toHost(), expected);
    for (size_t k = 0; k < x.size(); k += 97) {
      const double v = double(x[k]);
      const double d =
          0.25 * double(power) * (power == 3 ? v * std::fabs(v) : v);
      EXPECT_NEAR(double(expected[k]), d, tolerance<T>() * (1 + std::fabs(d)));
    }
  }
  EXPECT_EQ(kernels::cuda::normPenalty<T>(0, width, dX.get(), 3), T(0));
}

TEST(CudaLoss, NormPenaltyAndGradientMatchCpuBits) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  penaltyCases<float>(2500, 5);
  penaltyCases<double>(2500, 5);
}

TEST(CudaLoss, AccuracyCountsLabeledAndCorrectRows) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const LossData d;
  const auto logits = randomValues<float>(d.rows * d.classes, 3);
  std::vector<int64_t> nodes;
  for (int64_t v = 0; v < d.rows; v += 3)
    nodes.push_back(v);
  int64_t correct = 0, labeled = 0;
  for (int64_t v : nodes) {
    if (d.labels[v] < 0)
      continue;
    ++labeled;
    const float *row = logits.data() + v * d.classes;
    correct += std::max_element(row, row + d.classes) - row == d.labels[v];
  }
  DeviceArray<float> dLogits(logits);
  DeviceArray<int64_t> dLabels(d.labels), dNodes(nodes);
  const kernels::cuda::AccuracyCounts counts =
      kernels::cuda::accuracyCounts(dLogits.get(), d.classes, dLabels.get(),
                                    dNodes.get(), int64_t(nodes.size()));
  EXPECT_EQ(counts.labeled, labeled);
  EXPECT_EQ(counts.correct, correct);
  EXPECT_GT(correct, 0);
}

} // namespace
