//===- ScanTest.cpp - Prefix sums over many blocks ------------------------===//
//
// exclusiveScan must be the sequential exclusive scan, total included, at
// every size a sampler hop can have: empty, inside one tile, at and across
// tile boundaries, many tiles, and more tiles than one tile holds (the
// tiles' sums scanned over several blocks themselves). Compiled natively
// (skips without a device) and over the emulation.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Scan.h"

#include "CudaTestUtil.h"

#include <numeric>

using namespace gnnrt;
using namespace gnnrt::cudatest;
using kernels::cuda::kScanTile;

namespace {

/// n values, mostly small counts and flags, some far above 2^32 (int64
/// sums must not be truncated) and some negative.
std::vector<int64_t> valuesOf(int64_t n, uint64_t seed) {
  CounterRng rng(seed, 1);
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t &x : v) {
    const uint32_t r = rng.nextBelow(100);
    x = r < 90 ? int64_t(r % 3) : r < 95 ? -int64_t(r) : int64_t(r) << 36;
  }
  return v;
}

std::vector<int64_t> sequentialScan(const std::vector<int64_t> &in) {
  std::vector<int64_t> out(in.size() + 1, 0);
  std::partial_sum(in.begin(), in.end(), out.begin() + 1);
  return out;
}

std::vector<int64_t> deviceScan(const std::vector<int64_t> &in) {
  DeviceArray<int64_t> input(in.empty() ? std::vector<int64_t>{0} : in);
  DeviceArray<int64_t> output(in.size() + 1);
  DeviceArray<int64_t> scratch(size_t(std::max<int64_t>(
      1, kernels::cuda::exclusiveScanScratch(int64_t(in.size())))));
  kernels::cuda::exclusiveScan(input.get(), int64_t(in.size()), output.get(),
                               scratch.get());
  return output.toHost();
}

TEST(Scan, EqualsTheSequentialScanAtTileBoundaries) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  for (int64_t n : {int64_t(0), int64_t(1), int64_t(7), kScanTile - 1,
                    kScanTile, kScanTile + 1, 3 * kScanTile + 5,
                    int64_t(100003), int64_t(5)}) {
    const std::vector<int64_t> in = valuesOf(n, uint64_t(n) + 1);
    EXPECT_EQ(deviceScan(in), sequentialScan(in)) << "n = " << n;
  }
}

// Above kScanTile tiles the tiles' sums no longer fit one block: they are
// scanned over blocks too (a second level). All ones: out[k] = k.
TEST(Scan, ScansTheTilesSumsOverSeveralBlocks) {
  GNNRT_REQUIRE_CUDA_DEVICE();
#if defined(GNNRT_CUDA_EMULATION) && defined(__SANITIZE_ADDRESS__)
  // 4M values take 11 s there; the kernels are the ones the test above runs
  // under both thread orders, only the host's recursion is new here.
  GTEST_SKIP() << "too slow under AddressSanitizer";
#endif
  const int64_t n = kScanTile * kScanTile + 3 * kScanTile / 2;
  const std::vector<int64_t> out =
      deviceScan(std::vector<int64_t>(static_cast<size_t>(n), 1));
  ASSERT_EQ(int64_t(out.size()), n + 1);
  std::vector<int64_t> expected(out.size());
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(out, expected);
}

} // namespace
