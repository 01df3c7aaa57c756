//===- GemmTest.cpp - GEMM through cuBLAS against float64 -----------------===//
//
// cuda::gemm (row-major, through cuBLAS; over the emulation, cuBLAS served
// by OpenBLAS) against a float64 triple loop for every transposition, with
// accumulation, a K of 0 and a vector-shaped product; cuda::gemmEpilogue
// (through cuBLASLt) the same way with every combination of an added
// matrix, a bias and ReLU, the added matrix also C itself. In a bf16 run
// (GatherStorage.h) both against float64 over the operands rounded to bf16,
// and beside the CPU's gemmBFloat16.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "CpuComparison.h"
#include "CudaTestUtil.h"
#include "gnnrt/kernels/GatherStorage.h"
#include "gnnrt/kernels/Gemm.h"
#include "gnnrt/support/BFloat16.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::cudatest;

namespace {

/// The value a bf16 run multiplies: x rounded to bf16 (x itself in fp32 or
/// float64 runs).
template <typename T> T operand(T x) {
  if constexpr (std::is_same_v<T, float>)
    if (kernels::gatherStorage() == kernels::GatherStorage::BFloat16)
      return toFloat(toBFloat16(x));
  return x;
}

template <typename T> void gemmCases() {
  struct Size {
    int64_t M, N, K;
  };
  for (const Size s : {Size{1, 1, 1}, Size{17, 33, 5}, Size{65, 7, 257},
                       Size{3, 257, 40}, Size{9, 4, 0}})
    for (bool transA : {false, true})
      for (bool transB : {false, true})
        for (bool accumulate : {false, true}) {
          const std::string what =
              "M " + std::to_string(s.M) + " N " + std::to_string(s.N) + " K " +
              std::to_string(s.K) + " transA " + std::to_string(transA) +
              " transB " + std::to_string(transB) + " accumulate " +
              std::to_string(accumulate);
          const auto a = randomValues<T>(s.M * s.K, 1);
          const auto b = randomValues<T>(s.K * s.N, 2);
          const auto c0 = randomValues<T>(s.M * s.N, 3);
          std::vector<T> expected(c0.size());
          for (int64_t i = 0; i < s.M; ++i)
            for (int64_t j = 0; j < s.N; ++j) {
              double acc = accumulate ? double(c0[i * s.N + j]) : 0.0;
              for (int64_t k = 0; k < s.K; ++k)
                acc += double(operand(transA ? a[k * s.M + i]
                                             : a[i * s.K + k])) *
                       double(operand(transB ? b[j * s.K + k]
                                             : b[k * s.N + j]));
              expected[i * s.N + j] = T(acc);
            }
          DeviceArray<T> da(a), db(b), dc(c0);
          kernels::cuda::gemm(transA, transB, s.M, s.N, s.K, da.get(), db.get(),
                              dc.get(), accumulate);
          // A float product of length K rounds up to ~K ulps.
          expectClose(dc.toHost(), expected,
                      tolerance<T>() * double(std::max<int64_t>(1, s.K)), what);
        }
}

TEST(CudaGemm, MatchesFloat64ForEveryTransposition) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  gemmCases<float>();
  gemmCases<double>();
}

template <typename T> void gemmEpilogueCases() {
  struct Size {
    int64_t M, N, K;
  };
  for (const Size s : {Size{1, 1, 1}, Size{17, 33, 5}, Size{65, 7, 257},
                       Size{3, 257, 40}, Size{9, 4, 0}})
    for (bool transA : {false, true})
      for (bool transB : {false, true})
        for (int addend : {0, 1, 2}) // none, a matrix, C itself
          for (bool bias : {false, true})
            for (bool relu : {false, true}) {
              const std::string what =
                  "M " + std::to_string(s.M) + " N " + std::to_string(s.N) +
                  " K " + std::to_string(s.K) + " transA " +
                  std::to_string(transA) + " transB " +
                  std::to_string(transB) + " addend " +
                  std::to_string(addend) + " bias " + std::to_string(bias) +
                  " relu " + std::to_string(relu);
              const auto a = randomValues<T>(s.M * s.K, 1);
              const auto b = randomValues<T>(s.K * s.N, 2);
              const auto x = randomValues<T>(s.M * s.N, 3);
              const auto c0 = randomValues<T>(s.M * s.N, 4);
              const auto bv = randomValues<T>(s.N, 5);
              const std::vector<T> &added = addend == 2 ? c0 : x;
              std::vector<T> expected(c0.size());
              for (int64_t i = 0; i < s.M; ++i)
                for (int64_t j = 0; j < s.N; ++j) {
                  double acc = 0;
                  for (int64_t k = 0; k < s.K; ++k)
                    acc += double(operand(transA ? a[k * s.M + i]
                                                 : a[i * s.K + k])) *
                           double(operand(transB ? b[j * s.K + k]
                                                 : b[k * s.N + j]));
                  if (addend)
                    acc += double(added[i * s.N + j]);
                  if (bias)
                    acc += double(bv[j]);
                  expected[i * s.N + j] = T(relu && acc < 0 ? 0.0 : acc);
                }
              DeviceArray<T> da(a), db(b), dx(x), dc(c0), dbias(bv);
              const T *addedOnDevice =
                  addend == 0 ? nullptr : (addend == 1 ? dx.get() : dc.get());
              kernels::cuda::gemmEpilogue(transA, transB, s.M, s.N, s.K,
                                          da.get(), db.get(), addedOnDevice,
                                          bias ? dbias.get() : nullptr, relu,
                                          dc.get());
              expectClose(dc.toHost(), expected,
                          tolerance<T>() * double(std::max<int64_t>(1, s.K) + 2),
                          what);
            }
}

TEST(CudaGemm, EpilogueMatchesFloat64) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  gemmEpilogueCases<float>();
  gemmEpilogueCases<double>();
}

// precision = bf16: products of the rounded operands, accumulated in
// fp32, with and without epilogues; and within fp32 rounding of the CPU's
// bf16 GEMM on the same operands (which rounds them the same way).
TEST(CudaGemm, BFloat16OperandsMatchFloat64OfRounded) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  kernels::ScopedGatherStorage bf16(kernels::GatherStorage::BFloat16);
  gemmCases<float>();
  gemmEpilogueCases<float>();
  const int64_t M = 37, N = 29, K = 300;
  const auto a = randomValues<float>(M * K, 11);
  const auto b = randomValues<float>(K * N, 12);
  std::vector<float> cpu(size_t(M * N));
  kernels::gemm(false, true, M, N, K, a.data(), b.data(), cpu.data());
  DeviceArray<float> da(a), db(b), dc(cpu.size());
  kernels::cuda::gemm(false, true, M, N, K, da.get(), db.get(), dc.get());
  const std::vector<float> device = dc.toHost();
  expectClose(device, cpu, tolerance<float>() * double(K), "cpu vs device");
  // The rounding took effect: fp32 operands give another product.
  std::vector<float> exact(cpu.size());
  {
    kernels::ScopedGatherStorage fp32(kernels::GatherStorage::Float32);
    kernels::gemm(false, true, M, N, K, a.data(), b.data(), exact.data());
  }
  double largest = 0;
  for (size_t i = 0; i < exact.size(); ++i)
    largest = std::max(largest, double(std::abs(device[i] - exact[i])));
  EXPECT_GT(largest, 1e-3) << "bf16 operands should move a K = 300 product";
}

} // namespace
