//===- DropoutTest.cpp - Dropout masks: device and CPU agree bit for bit --===//
//
// Dropout.h makes the mask a function of (seed, stream, element): a CPU run
// and a GPU run of one program and seed must drop the same elements. The
// device results are checked against the contract computed here from
// randomBits directly (the float64 reference: kept elements scaled by
// 1/(1-p), dropped ones 0) and against the CPU kernels bit for bit, signed
// zeros and all-zero blocks included, for whole tensors and for rows stored
// out of order (dropoutRows).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Kernels.h"

#include "CpuComparison.h"
#include "CudaTestUtil.h"
#include "gnnrt/kernels/Dropout.h"
#include "gnnrt/support/Random.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace gnnrt;
using namespace gnnrt::cudatest;

namespace {

/// Whether element i is kept, from Dropout.h's contract alone.
bool kept(uint64_t seed, uint64_t stream, double p, uint64_t i) {
  const std::array<uint32_t, 4> bits = randomBits(seed, stream, i / 8);
  const uint32_t lane = (bits[(i % 8) / 2] >> (16 * (i % 2))) & 0xFFFFu;
  return lane >= uint32_t(std::min(65536.0, std::ceil(p * 65536.0)));
}

/// Values with zeros: an all-zero block of 8 (elements 8..15), a -0.0.
template <typename T> std::vector<T> inputs(int64_t n) {
  std::vector<T> x = randomValues<T>(n, 11);
  for (int64_t i = 8; i < 16 && i < n; ++i)
    x[i] = T(0);
  if (n > 20)
    x[20] = -T(0);
  return x;
}

template <typename T> void wholeTensors() {
  const uint64_t seed = 1234, stream = 7;
  for (double p : {0.0, 0.1, 0.5, 0.9, 1.0})
    for (int64_t n : {int64_t(1), int64_t(13), int64_t(2049)}) {
      const std::string what =
          "p " + std::to_string(p) + " n " + std::to_string(n);
      const std::vector<T> x = inputs<T>(n);
      std::vector<T> cpu(x.size());
      kernels::dropout(seed, stream, p, n, x.data(), cpu.data());
      DeviceArray<T> dx(x), dy(x.size());
      kernels::cuda::dropout(seed, stream, p, n, dx.get(), dy.get());
      const std::vector<T> gpu = dy.toHost();
      expectSameBits(gpu, cpu, "dropout " + what);
      int64_t dropped = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double expected =
            kept(seed, stream, p, uint64_t(i)) ? double(x[i]) / (1 - p) : 0.0;
        EXPECT_NEAR(double(gpu[i]), expected, 1e-6 * std::abs(expected))
            << what << " element " << i;
        dropped += x[i] != T(0) && gpu[i] == T(0);
      }
      if (n == 2049 && p > 0 && p < 1) { // about p of the nonzeros
        EXPECT_NEAR(double(dropped) / double(n - 9), p, 0.05) << what;
      }
    }
}

TEST(CudaDropout, MasksSameBitsAsCpu) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  wholeTensors<float>();
  wholeTensors<double>();
}

TEST(CudaDropout, RowsDropAsTheirNodesInTheWholeTensor) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  const uint64_t seed = 99, stream = 3;
  const int64_t rows = 37, width = 7; // rows straddle Philox blocks of 8
  std::vector<int64_t> rowIds(rows);
  for (int64_t r = 0; r < rows; ++r)
    rowIds[r] = (r * 17 + 5) % 101; // global node ids, out of order
  const std::vector<float> x = inputs<float>(rows * width);
  for (const bool withIds : {true, false}) {
    std::vector<float> cpu(x.size());
    kernels::dropoutRows(seed, stream, 0.4, rows, width,
                         withIds ? rowIds.data() : nullptr, x.data(),
                         cpu.data());
    DeviceArray<int64_t> ids(rowIds);
    DeviceArray<float> dx(x), dy(x.size());
    kernels::cuda::dropoutRows(seed, stream, 0.4, rows, width,
                               withIds ? ids.get() : nullptr, dx.get(),
                               dy.get());
    const std::vector<float> gpu = dy.toHost();
    expectSameBits(gpu, cpu, withIds ? "with row ids" : "without row ids");
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < width; ++j) {
        const uint64_t node = uint64_t(withIds ? rowIds[r] : r);
        const float v = x[r * width + j];
        const float expected =
            v != 0 && kept(seed, stream, 0.4, node * width + j) ? v / 0.6f
                                                                : 0.0f;
        EXPECT_NEAR(gpu[r * width + j], expected, 1e-6f) << r << ", " << j;
      }
  }
}

} // namespace
