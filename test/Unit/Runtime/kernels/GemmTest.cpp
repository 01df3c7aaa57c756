//===- GemmTest.cpp - gemm against a reference ----------------------------===//
//
// GEMM, every transpose and accumulate, in float and double, against a
// naive product.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Gemm.h"

#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::kerneltest;

namespace {

template <typename T> void checkGemm(double tol) {
  const int64_t M = 5, N = 3, K = 4;
  for (bool transA : {false, true})
    for (bool transB : {false, true})
      for (bool accumulate : {false, true}) {
        Vec a = roundTo<T>(randomVector(M * K, 1));
        Vec b = roundTo<T>(randomVector(K * N, 2));
        Vec c0 = roundTo<T>(randomVector(M * N, 3));
        Vec expected(M * N);
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            double s = accumulate ? c0[i * N + j] : 0;
            for (int64_t k = 0; k < K; ++k)
              s += (transA ? a[k * M + i] : a[i * K + k]) *
                   (transB ? b[j * K + k] : b[k * N + j]);
            expected[i * N + j] = s;
          }
        std::vector<T> at = cast<T>(a), bt = cast<T>(b), c = cast<T>(c0);
        kernels::gemm<T>(transA, transB, M, N, K, at.data(), bt.data(),
                         c.data(), accumulate);
        expectNear(toDouble(c), expected, tol,
                   "gemm transA " + std::to_string(transA) + " transB " +
                       std::to_string(transB) + " accumulate " +
                       std::to_string(accumulate));
      }
  // K == 0: an empty sum.
  std::vector<T> c(6, T(7));
  kernels::gemm<T>(false, false, 2, 3, 0, nullptr, nullptr, c.data());
  EXPECT_EQ(c, std::vector<T>(6, T(0)));
}

TEST(KernelsForward, Gemm) {
  checkGemm<double>(1e-12);
  checkGemm<float>(1e-5);
}

} // namespace
