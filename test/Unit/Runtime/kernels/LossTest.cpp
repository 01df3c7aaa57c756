//===- LossTest.cpp - cross-entropy and its gradient ----------------------===//
//
// Cross-entropy with masks and unlabelled rows against a reference, and its
// gradient by finite differences.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Loss.h"

#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::kerneltest;

namespace {

double crossEntropyRef(int64_t rows, int64_t classes, const Vec &logits,
                       const std::vector<int64_t> &labels,
                       const uint8_t *mask) {
  double total = 0;
  int64_t count = 0;
  for (int64_t i = 0; i < rows; ++i) {
    if (labels[i] < 0 || (mask && !mask[i]))
      continue;
    double mx = -INFINITY, sum = 0;
    for (int64_t c = 0; c < classes; ++c)
      mx = std::max(mx, logits[i * classes + c]);
    for (int64_t c = 0; c < classes; ++c)
      sum += std::exp(logits[i * classes + c] - mx);
    total += mx + std::log(sum) - logits[i * classes + labels[i]];
    ++count;
  }
  return count ? total / double(count) : 0.0;
}

/// Rows 2 (label -1) and 4 (masked out) do not count.
const std::vector<int64_t> kLabels = {0, 4, -1, 2, 1, 3, 0};

const uint8_t kLossMask[] = {1, 1, 1, 1, 0, 1, 1};

constexpr int64_t kRows = 7, kClasses = 5;

template <typename T> void checkCrossEntropy(double tol) {
  Vec logits = roundTo<T>(randomVector(kRows * kClasses, 11, -4, 4));
  std::vector<T> lt = cast<T>(logits);
  for (const uint8_t *mask : {static_cast<const uint8_t *>(nullptr),
                              static_cast<const uint8_t *>(kLossMask)}) {
    double loss = kernels::crossEntropy<T>(kRows, kClasses, lt.data(),
                                           kLabels.data(), mask);
    double expected = crossEntropyRef(kRows, kClasses, logits, kLabels, mask);
    EXPECT_NEAR(loss, expected, tol * std::abs(expected));
  }
  // No selected row.
  const uint8_t none[kRows] = {};
  EXPECT_EQ(kernels::crossEntropy<T>(kRows, kClasses, lt.data(), kLabels.data(),
                                     none),
            T(0));
}

TEST(KernelsForward, CrossEntropy) {
  checkCrossEntropy<double>(1e-12);
  checkCrossEntropy<float>(1e-5);
}

TEST(KernelsGrad, CrossEntropy) {
  const double dloss = 0.7;
  for (const uint8_t *mask : {static_cast<const uint8_t *>(nullptr),
                              static_cast<const uint8_t *>(kLossMask)}) {
    Vec logits = randomVector(kRows * kClasses, 25, -4, 4);
    Vec dlogits(logits.size(), -99);
    kernels::crossEntropyGrad<double>(kRows, kClasses, logits.data(),
                                      kLabels.data(), mask, dloss,
                                      dlogits.data());
    expectGradient(
        logits, dlogits,
        [&] {
          return dloss * kernels::crossEntropy<double>(kRows, kClasses,
                                                       logits.data(),
                                                       kLabels.data(), mask);
        },
        mask ? "masked" : "unmasked");
  }
}

/// A 1vsAll step's rows are wide (every entity a class): 1,000 + 7 classes
/// (not a whole number of the row pass's 16 lanes), logits over [-100, 30]
/// so that the row's exponentials reach the clamp of its vectorized exp.
/// The loss and its gradient equal float64's within float's rounding, and
/// the AVX-512 and baseline row passes give the same bits.
TEST(KernelsForward, CrossEntropyWideRowsMatchFloat64AndBaselineBits) {
  constexpr int64_t rows = 5, classes = 1007;
  Vec logits = roundTo<float>(randomVector(rows * classes, 31, -100, 30));
  const std::vector<float> lt = cast<float>(logits);
  const std::vector<int64_t> labels = {3, 1006, 0, 512, 77};
  const double expected =
      crossEntropyRef(rows, classes, logits, labels, nullptr);
  auto run = [&](std::vector<float> &grad) {
    kernels::crossEntropyGrad<float>(rows, classes, lt.data(), labels.data(),
                                     nullptr, 0.5f, grad.data());
    return kernels::crossEntropy<float>(rows, classes, lt.data(), labels.data(),
                                        nullptr);
  };
  std::vector<float> grad(lt.size()), baselineGrad(lt.size());
  const float loss = run(grad);
  EXPECT_NEAR(loss, expected, 2e-6 * std::abs(expected));
  // d/dlogit = 0.5 / rows * (softmax - onehot), against float64: within
  // float's rounding of logit - max (|x| <= 130: 8e-6 of exp(x)).
  for (int64_t i = 0; i < rows; ++i) {
    double mx = -INFINITY, sum = 0;
    for (int64_t c = 0; c < classes; ++c)
      mx = std::max(mx, logits[i * classes + c]);
    for (int64_t c = 0; c < classes; ++c)
      sum += std::exp(logits[i * classes + c] - mx);
    for (int64_t c = 0; c < classes; ++c) {
      const double p = std::exp(logits[i * classes + c] - mx) / sum;
      const double want = 0.5 / rows * (p - (c == labels[i] ? 1.0 : 0.0));
      ASSERT_NEAR(grad[i * classes + c], want, 1e-5 * std::abs(want) + 1e-30)
          << "row " << i << " class " << c;
    }
  }
  ::setenv("GNNRT_CPU_ISA", "baseline", 1);
  const float baselineLoss = run(baselineGrad);
  ::unsetenv("GNNRT_CPU_ISA");
  EXPECT_EQ(baselineLoss, loss);
  EXPECT_EQ(baselineGrad, grad);
}

} // namespace
