//===- GemmBFloat16Test.cpp - bf16-input GEMM against its definition ------===//
//
// `precision = bf16`'s matrix products: the AVX512-BF16 kernel gives, bit
// for bit, the lane arithmetic of VDPBF16PS folded over K pairs in order
// (dotBFloat16Pairs) on the rounded operands, for every transpose, edge
// shape and thread count; the fallback (rounded operands through SGEMM) is
// the float64 product of the rounded operands; gemm<float> takes this path
// exactly when the precision is bf16.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/GatherStorage.h"
#include "gnnrt/kernels/Gemm.h"

#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::kerneltest;

namespace {

struct Shape {
  int64_t M, N, K;
};

/// Element (r, k) of op(X) for X [rows, depth] (or [depth, rows] when
/// transposed), 0 past the depth.
float opAt(const std::vector<float> &x, bool trans, int64_t rows,
           int64_t depth, int64_t r, int64_t k) {
  if (k >= depth)
    return 0.0f;
  return trans ? x[size_t(k * rows + r)] : x[size_t(r * depth + k)];
}

uint32_t pairOf(float even, float odd) {
  return uint32_t(toBFloat16(even).bits) |
         (uint32_t(toBFloat16(odd).bits) << 16);
}

/// The native kernel's definition: from C (or 0), every K pair in order.
std::vector<float> laneReference(bool transA, bool transB, const Shape &s,
                                 const std::vector<float> &a,
                                 const std::vector<float> &b,
                                 const std::vector<float> &c0,
                                 bool accumulate) {
  std::vector<float> c(size_t(s.M * s.N));
  for (int64_t m = 0; m < s.M; ++m)
    for (int64_t n = 0; n < s.N; ++n) {
      float acc = accumulate ? c0[size_t(m * s.N + n)] : 0.0f;
      for (int64_t k = 0; k < s.K; k += 2) {
        const uint32_t pa = pairOf(opAt(a, transA, s.M, s.K, m, k),
                                   opAt(a, transA, s.M, s.K, m, k + 1));
        // op(B)'s column n: B^T's row n.
        const uint32_t pb = pairOf(opAt(b, !transB, s.N, s.K, n, k),
                                   opAt(b, !transB, s.N, s.K, n, k + 1));
        acc = kernels::dotBFloat16Pairs(acc, pa, pb);
      }
      c[size_t(m * s.N + n)] = acc;
    }
  return c;
}

std::vector<float> randomFloats(int64_t n, uint64_t seed) {
  std::vector<float> v = cast<float>(randomVector(n, seed, -2, 2));
  // Exact zeros and a value with low bits set (a tie-to-even case).
  if (n > 2) {
    v[0] = 0.0f;
    v[size_t(n / 2)] = 1.0f + 1.0f / 256.0f;
  }
  return v;
}

const Shape kShapes[] = {{1, 1, 1},    {3, 5, 2},   {8, 32, 64},
                         {9, 33, 7},   {13, 17, 128}, {300, 40, 65},
                         {1030, 16, 128}};

TEST(GemmBFloat16, NativeKernelIsTheLaneArithmetic) {
  if (!kernels::gemmHasNativeBFloat16())
    GTEST_SKIP() << "no AVX512-BF16 on this CPU";
  for (const Shape &s : kShapes)
    for (bool transA : {false, true})
      for (bool transB : {false, true})
        for (bool accumulate : {false, true}) {
          const std::vector<float> a = randomFloats(s.M * s.K, 1),
                                   b = randomFloats(s.K * s.N, 2),
                                   c0 = randomFloats(s.M * s.N, 3);
          std::vector<float> c = c0;
          kernels::gemmBFloat16(transA, transB, s.M, s.N, s.K, a.data(),
                                b.data(), c.data(), accumulate);
          const std::vector<float> want =
              laneReference(transA, transB, s, a, b, c0, accumulate);
          EXPECT_EQ(0, std::memcmp(c.data(), want.data(),
                                   c.size() * sizeof(float)))
              << "M " << s.M << " N " << s.N << " K " << s.K << " transA "
              << transA << " transB " << transB << " accumulate "
              << accumulate;
        }
}

TEST(GemmBFloat16, FallbackIsTheRoundedProduct) {
  ::setenv("GNNRT_CPU_ISA", "baseline", 1);
  EXPECT_FALSE(kernels::gemmHasNativeBFloat16());
  for (const Shape &s : kShapes)
    for (bool transA : {false, true})
      for (bool transB : {false, true}) {
        const std::vector<float> a = randomFloats(s.M * s.K, 4),
                                 b = randomFloats(s.K * s.N, 5);
        std::vector<float> c(size_t(s.M * s.N), 7.0f);
        kernels::gemmBFloat16(transA, transB, s.M, s.N, s.K, a.data(),
                              b.data(), c.data(), false);
        Vec want(c.size());
        for (int64_t m = 0; m < s.M; ++m)
          for (int64_t n = 0; n < s.N; ++n) {
            double sum = 0;
            for (int64_t k = 0; k < s.K; ++k)
              sum += double(toFloat(toBFloat16(
                         opAt(a, transA, s.M, s.K, m, k)))) *
                     double(toFloat(toBFloat16(
                         opAt(b, !transB, s.N, s.K, n, k))));
            want[size_t(m * s.N + n)] = sum;
          }
        expectNear(toDouble(c), want, 1e-5,
                   "fallback M " + std::to_string(s.M) + " K " +
                       std::to_string(s.K));
      }
  ::unsetenv("GNNRT_CPU_ISA");
}

TEST(GemmBFloat16, SameBitsOnAnyThreadCount) {
  const Shape s{1030, 48, 96};
  const std::vector<float> a = randomFloats(s.M * s.K, 6),
                           b = randomFloats(s.K * s.N, 7);
  std::vector<float> one(size_t(s.M * s.N)), two(one.size());
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  kernels::gemmBFloat16(false, false, s.M, s.N, s.K, a.data(), b.data(),
                        one.data(), false);
  omp_set_num_threads(2);
  kernels::gemmBFloat16(false, false, s.M, s.N, s.K, a.data(), b.data(),
                        two.data(), false);
  omp_set_num_threads(threads);
  EXPECT_EQ(one, two);
}

TEST(GemmBFloat16, GemmRoundsOnlyUnderBFloat16Precision) {
  const Shape s{40, 24, 33};
  const std::vector<float> a = randomFloats(s.M * s.K, 8),
                           b = randomFloats(s.K * s.N, 9);
  std::vector<float> fp32(size_t(s.M * s.N)), bf16(fp32.size()),
      direct(fp32.size());
  kernels::gemm<float>(false, true, s.M, s.N, s.K, a.data(), b.data(),
                       fp32.data());
  kernels::setGatherStorage(kernels::GatherStorage::BFloat16);
  kernels::gemm<float>(false, true, s.M, s.N, s.K, a.data(), b.data(),
                       bf16.data());
  kernels::setGatherStorage(kernels::GatherStorage::Float32);
  kernels::gemmBFloat16(false, true, s.M, s.N, s.K, a.data(), b.data(),
                        direct.data(), false);
  EXPECT_EQ(bf16, direct);
  EXPECT_NE(bf16, fp32);
  // bf16 keeps 8 significant bits: each operand within 2^-9 relative, so
  // each product within about 2^-8 of its magnitude.
  for (int64_t m = 0; m < s.M; ++m)
    for (int64_t n = 0; n < s.N; ++n) {
      double magnitude = 0;
      for (int64_t k = 0; k < s.K; ++k)
        magnitude += std::abs(double(a[size_t(m * s.K + k)]) *
                              double(b[size_t(n * s.K + k)]));
      const size_t i = size_t(m * s.N + n);
      EXPECT_LE(std::abs(double(bf16[i]) - double(fp32[i])),
                magnitude / 128 + 1e-6)
          << "element " << i;
    }
}

} // namespace
