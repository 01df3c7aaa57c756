//===- DropoutTest.cpp - The dropout mask ---------------------------------===//
//
// The dropout mask: reproducible from (seed, stream), the documented
// function of the element index, and the kept fraction and scale.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Dropout.h"

#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::kerneltest;

namespace {

TEST(KernelsDropout, SameSeedAndStreamGiveSameMask) {
  const int64_t n = 10000;
  const std::vector<float> x = cast<float>(randomVector(n, 40, 0.5, 1.5));
  const std::vector<float> dy = cast<float>(randomVector(n, 41, 0.5, 1.5));
  std::vector<float> a(n), b(n), adjoint(n), otherStream(n);
  kernels::dropout<float>(7, 3, 0.5, n, x.data(), a.data());
  kernels::dropout<float>(7, 3, 0.5, n, x.data(), b.data());
  kernels::dropout<float>(7, 3, 0.5, n, dy.data(), adjoint.data());
  kernels::dropout<float>(7, 4, 0.5, n, x.data(), otherStream.data());
  EXPECT_EQ(a, b);
  int64_t sameAsOtherStream = 0;
  for (int64_t i = 0; i < n; ++i) {
    // The backward (same seed and stream on dy) drops the same elements.
    EXPECT_EQ(a[i] == 0, adjoint[i] == 0) << i;
    sameAsOtherStream += (a[i] == 0) == (otherStream[i] == 0);
  }
  EXPECT_LT(sameAsOtherStream, n * 6 / 10);
}

TEST(KernelsDropout, MaskIsTheDocumentedFunctionOfSeedStreamAndIndex) {
  const int64_t n = 1003; // not a multiple of the 8 lanes of a block
  const double p = 0.3;
  const Vec x = randomVector(n, 42, 0.5, 1.5);
  Vec y(n);
  kernels::dropout<double>(5, 9, p, n, x.data(), y.data());
  const uint32_t threshold = uint32_t(std::ceil(p * 65536.0));
  for (int64_t i = 0; i < n; ++i) {
    const std::array<uint32_t, 4> bits = randomBits(5, 9, uint64_t(i / 8));
    const uint32_t lane = (bits[(i % 8) / 2] >> (16 * (i % 2))) & 0xFFFFu;
    EXPECT_EQ(y[i], lane >= threshold ? x[i] * (1.0 / (1.0 - p)) : 0.0) << i;
  }
}

TEST(KernelsDropout, KeepsOneMinusPAndRescales) {
  const int64_t n = 200000;
  const std::vector<double> ones(n, 1.0);
  for (double p : {0.1, 0.5, 0.8}) {
    std::vector<double> y(n);
    kernels::dropout<double>(11, 0, p, n, ones.data(), y.data());
    int64_t kept = 0;
    for (double v : y) {
      if (v != 0) {
        ++kept;
        EXPECT_DOUBLE_EQ(v, 1.0 / (1.0 - p));
      }
    }
    // Binomial standard deviation is at most 0.0012 here.
    EXPECT_NEAR(double(kept) / double(n), 1.0 - p, 0.006) << "p = " << p;
  }
  std::vector<double> y(n);
  kernels::dropout<double>(11, 0, 0.0, n, ones.data(), y.data());
  EXPECT_EQ(y, ones);
}

} // namespace

// The AVX-512 pass (16 Philox blocks side by side, where the CPU has it)
// and the baseline one ($GNNRT_CPU_ISA=baseline) give the same bits: whole
// vector groups, a ragged tail, rows of zeros, float and double.
TEST(KernelsDropout, EveryInstructionSetGivesTheSameMask) {
  for (int64_t n : {int64_t(1), int64_t(127), int64_t(128), int64_t(5000)}) {
    Vec xd = randomVector(n, 17);
    for (int64_t i = 0; i < std::min<int64_t>(n, 300); ++i)
      xd[size_t(i)] = 0; // a zero block: skipped by the baseline's cipher
    const std::vector<float> xf = cast<float>(xd);
    const size_t count = static_cast<size_t>(n);
    std::vector<float> nativeF(count), baselineF(count);
    std::vector<double> nativeD(count), baselineD(count);
    kernels::dropout<float>(3, 9, 0.3, n, xf.data(), nativeF.data());
    kernels::dropout<double>(3, 9, 0.3, n, xd.data(), nativeD.data());
    {
      ScopedEnv isa("GNNRT_CPU_ISA", "baseline");
      kernels::dropout<float>(3, 9, 0.3, n, xf.data(), baselineF.data());
      kernels::dropout<double>(3, 9, 0.3, n, xd.data(), baselineD.data());
    }
    EXPECT_EQ(nativeF, baselineF) << n;
    EXPECT_EQ(nativeD, baselineD) << n;
  }
}

// dropoutRows' AVX-512 pass (rows of whole blocks, at least 64 wide) and
// the baseline give the same bits, and each row's mask is its node's.
TEST(KernelsDropout, RowsOfEveryInstructionSetGiveTheSameMask) {
  const int64_t rows = 37;
  std::vector<int64_t> ids(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r)
    ids[size_t(r)] = (r * 7919) % 1000;
  for (int64_t width : {64, 128, 200, 16}) {
    const size_t count = static_cast<size_t>(rows * width);
    std::vector<float> x = cast<float>(randomVector(rows * width, 21));
    x[5] = -0.0f; // a zero of either sign becomes +0 on both paths
    std::vector<float> native(count), baseline(count), whole(count);
    kernels::dropoutRows<float>(4, 2, 0.5, rows, width, ids.data(), x.data(),
                                native.data());
    {
      ScopedEnv isa("GNNRT_CPU_ISA", "baseline");
      kernels::dropoutRows<float>(4, 2, 0.5, rows, width, ids.data(), x.data(),
                                  baseline.data());
    }
    EXPECT_EQ(native, baseline) << width;
    EXPECT_FALSE(std::signbit(native[5])) << width;
    // Row r decides as the rows of dropout over the whole table would.
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<float> table(size_t(1000 * width), 0.0f), out(table.size());
      std::copy_n(x.begin() + r * width, width,
                  table.begin() + ids[size_t(r)] * width);
      kernels::dropout<float>(4, 2, 0.5, 1000 * width, table.data(),
                              out.data());
      std::copy_n(out.begin() + ids[size_t(r)] * width, width,
                  whole.begin() + r * width);
    }
    EXPECT_EQ(native, whole) << width;
  }
}
