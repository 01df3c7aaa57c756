//===- CpuComparison.h - CUDA kernels against the CPU kernels ---*- C++ -*-===//
//
// The CPU kernels are the reference the CUDA kernels answer to: in double
// precision they are the float64 reference (each is checked against naive
// loops and finite differences in test/Unit/Runtime/kernels/), and in float
// the family headers promise the CUDA kernels their bits where the order
// of operations is the same. These helpers run a kernel both ways on the
// same inputs and compare.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TEST_KERNELS_CUDA_CPUCOMPARISON_H
#define GNNRT_TEST_KERNELS_CUDA_CPUCOMPARISON_H

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace gnnrt::cudatest {

/// Every element of `actual` equals `expected` bit for bit (NaNs aside).
template <typename T>
void expectSameBits(const std::vector<T> &actual,
                    const std::vector<T> &expected, const std::string &what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i)
    if (std::memcmp(&actual[i], &expected[i], sizeof(T)) != 0) {
      ADD_FAILURE() << what << ": first difference at element " << i << ": "
                    << actual[i] << " vs " << expected[i];
      return;
    }
}

/// |actual - expected| <= tol * max(1, |expected|) for every element.
template <typename T>
void expectClose(const std::vector<T> &actual, const std::vector<T> &expected,
                 double tol, const std::string &what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = double(actual[i]), e = double(expected[i]);
    if (!(std::abs(a - e) <= tol * std::max(1.0, std::abs(e)))) {
      ADD_FAILURE() << what << ": element " << i << ": " << a << " vs " << e;
      return;
    }
  }
}

/// Float results to rounding of the float64 ones; double ones to 1e-12.
template <typename T> double tolerance() {
  return sizeof(T) == 4 ? 2e-5 : 1e-12;
}

} // namespace gnnrt::cudatest

#endif // GNNRT_TEST_KERNELS_CUDA_CPUCOMPARISON_H
