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

} // namespace
