//===- SegmentSortTest.cpp - Sorting many segments ------------------------===//
//
// sortSegments must leave every segment as std::sort does, whatever its
// length: empty, one value, at and around the one-thread limit
// (kShortSegment), inside one shared-memory tile (a bitonic sort of a
// padded power of two), and across tiles (merged runs: a hub's thousands
// of in-neighbours), with repeated values (sampling with replacement),
// negative ones and INT_MAX (the tile's padding value). Compiled natively
// (skips without a device) and over the emulation.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/SegmentSort.h"

#include "CudaTestUtil.h"

#include <climits>

using namespace gnnrt;
using namespace gnnrt::cudatest;
using kernels::cuda::kShortSegment;
using kernels::cuda::kSortTile;

namespace {

struct Segments {
  std::vector<int64_t> offsets{0};
  std::vector<int32_t> values;
  void add(int64_t length, uint32_t range, CounterRng &rng) {
    for (int64_t i = 0; i < length; ++i) {
      const uint32_t r = rng.nextBelow(range);
      values.push_back(r == 0 ? INT_MAX : int32_t(r) - int32_t(range / 4));
    }
    offsets.push_back(int64_t(values.size()));
  }
};

std::vector<int32_t> sortedOnHost(const Segments &s) {
  std::vector<int32_t> v = s.values;
  for (size_t j = 0; j + 1 < s.offsets.size(); ++j)
    std::sort(v.begin() + s.offsets[j], v.begin() + s.offsets[j + 1]);
  return v;
}

std::vector<int32_t> sortedOnDevice(const Segments &s, int64_t maxLength) {
  DeviceArray<int64_t> offsets(s.offsets);
  DeviceArray<int32_t> values(s.values);
  const int64_t segments = int64_t(s.offsets.size()) - 1;
  DeviceArray<int64_t> scratch(
      kernels::cuda::sortSegmentsScratch(segments, int64_t(s.values.size())) /
          sizeof(int64_t) +
      1);
  kernels::cuda::sortSegments(offsets.get(), segments, values.get(),
                              int64_t(s.values.size()), maxLength,
                              scratch.get());
  return values.toHost();
}

TEST(SegmentSort, SortsEverySegmentAsStdSortDoes) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  CounterRng rng(5, 2);
  Segments s;
  // Long segments among many short ones, as a hop's rows are.
  for (int64_t length :
       {int64_t(0), int64_t(1), int64_t(2), kShortSegment - 1, kShortSegment,
        kShortSegment + 1, int64_t(100), kSortTile - 1, kSortTile,
        kSortTile + 1, int64_t(5000), 4 * kSortTile + 77}) {
    for (int k = 0; k < 40; ++k)
      s.add(int64_t(rng.nextBelow(12)), 50, rng);
    // Every other long one with many repeats.
    s.add(length, length % 2 ? 64 : 1u << 30, rng);
  }
  const std::vector<int32_t> expected = sortedOnHost(s);
  ASSERT_NE(expected, s.values);
  EXPECT_EQ(sortedOnDevice(s, -1), expected);
  EXPECT_EQ(sortedOnDevice(s, 4 * kSortTile + 77), expected);
}

// A bound at or below kShortSegment skips the long-segment pass: the short
// segments are still sorted.
TEST(SegmentSort, ShortSegmentsAloneWithABound) {
  GNNRT_REQUIRE_CUDA_DEVICE();
  CounterRng rng(8, 1);
  Segments s;
  for (int k = 0; k < 3000; ++k)
    s.add(int64_t(rng.nextBelow(uint32_t(kShortSegment + 1))), 1000, rng);
  EXPECT_EQ(sortedOnDevice(s, kShortSegment), sortedOnHost(s));
}

} // namespace
