//===- SegmentSort.cu - Sorting many segments on a CUDA device ------------===//
//
// See gnnrt/kernels/cuda/SegmentSort.h. The long segments are found on the
// device (a flag per segment, the flags' prefix sums, the flagged indices
// compacted), their count read back to size the grid: one block per long
// segment.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/SegmentSort.h"

#include "Common.h"
#include "gnnrt/kernels/cuda/Scan.h"

#include <climits>

namespace gnnrt::kernels::cuda {

using namespace detail;

namespace {

/// Each short segment sorted by one thread (insertion sort: at most
/// kShortSegment values); longer ones are left to sortLongKernel.
__global__ void sortShortKernel(const int64_t *offsets, int64_t segments,
                                int32_t *values) {
  for (int64_t j = detail::globalThread(); j < segments;
       j += int64_t(gridDim.x) * blockDim.x) {
    int32_t *row = values + offsets[j];
    const int64_t n = offsets[j + 1] - offsets[j];
    if (n > kShortSegment)
      continue;
    for (int64_t i = 1; i < n; ++i) {
      const int32_t v = row[i];
      int64_t at = i;
      for (; at > 0 && row[at - 1] > v; --at)
        row[at] = row[at - 1];
      row[at] = v;
    }
  }
}

__global__ void longFlagsKernel(const int64_t *offsets, int64_t segments,
                                int64_t *flags) {
  for (int64_t j = detail::globalThread(); j < segments;
       j += int64_t(gridDim.x) * blockDim.x)
    flags[j] = offsets[j + 1] - offsets[j] > kShortSegment;
}

__global__ void compactLongKernel(const int64_t *flags, const int64_t *index,
                                  int64_t segments, int64_t *longSegments) {
  for (int64_t j = detail::globalThread(); j < segments;
       j += int64_t(gridDim.x) * blockDim.x)
    if (flags[j])
      longSegments[index[j]] = j;
}

/// How many of sorted[0..n) are below x (orEqual: at most x).
__device__ inline int64_t rankIn(const int32_t *sorted, int64_t n, int32_t x,
                                 bool orEqual) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if (sorted[mid] < x || (orEqual && sorted[mid] == x))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// shared[0..size) sorted ascending by the block, size a power of two up to
/// kSortTile: a bitonic network, each compare-exchange pair owned by the
/// thread of its lower index, a barrier after each step.
__device__ void bitonicSort(int32_t *shared, int size) {
  const int t = int(threadIdx.x);
  for (int k = 2; k <= size; k *= 2)
    for (int j = k / 2; j > 0; j /= 2) {
      for (int i = t; i < size; i += kSortThreads) {
        const int partner = i ^ j;
        if (partner > i) {
          const bool ascending = (i & k) == 0;
          const int32_t a = shared[i], b = shared[partner];
          if ((a > b) == ascending) {
            shared[i] = b;
            shared[partner] = a;
          }
        }
      }
      __syncthreads();
    }
}

/// Block b sorts segment longSegments[b]: its tiles in shared memory, then
/// runs of kSortTile, 2 kSortTile, .. merged between the segment and its
/// place in `buffer` (the same offsets), ending in the segment.
__global__ void __launch_bounds__(kSortThreads)
    sortLongKernel(const int64_t *offsets, const int64_t *longSegments,
                   int32_t *values, int32_t *buffer) {
  __shared__ int32_t tile[kSortTile];
  const int64_t j = longSegments[blockIdx.x];
  const int64_t begin = offsets[j], n = offsets[j + 1] - begin;
  const int t = int(threadIdx.x);
  int32_t *from = values + begin, *to = buffer + begin;
  for (int64_t start = 0; start < n; start += kSortTile) {
    const int length = int(n - start < kSortTile ? n - start : kSortTile);
    int size = 2;
    while (size < length)
      size *= 2;
    // Padding with the largest value leaves it after every real one.
    for (int i = t; i < size; i += kSortThreads)
      tile[i] = i < length ? from[start + i] : INT_MAX;
    __syncthreads();
    bitonicSort(tile, size);
    for (int i = t; i < length; i += kSortThreads)
      from[start + i] = tile[i];
    __syncthreads();
  }
  for (int64_t width = kSortTile; width < n; width *= 2) {
    for (int64_t i = t; i < n; i += kSortThreads) {
      const int64_t left = i / (2 * width) * (2 * width);
      const int64_t mid = left + width < n ? left + width : n;
      const int64_t right = left + 2 * width < n ? left + 2 * width : n;
      const int32_t x = from[i];
      // Equal values: the left run's first, so that places never collide.
      const int64_t place =
          i < mid ? i + rankIn(from + mid, right - mid, x, false)
                  : left + (i - mid) + rankIn(from + left, mid - left, x, true);
      to[place] = x;
    }
    __syncthreads();
    int32_t *swap = from;
    from = to;
    to = swap;
  }
  if (from != values + begin)
    for (int64_t i = t; i < n; i += kSortThreads)
      to[i] = from[i];
}

/// The scratch's parts, in int64 values: flags, places (one more), the
/// long segments' list, a scan's tiles, then the merge buffer's int32s.
struct ScratchLayout {
  int64_t flags, index, list, scan, merged;
  explicit ScratchLayout(int64_t segments)
      : flags(0), index(segments), list(index + segments + 1),
        scan(list + segments),
        merged(scan + exclusiveScanScratch(segments)) {}
};

} // namespace

size_t sortSegmentsScratch(int64_t segments, int64_t numValues) {
  if (segments <= 0)
    return sizeof(int64_t);
  return size_t(ScratchLayout(segments).merged) * sizeof(int64_t) +
         size_t(numValues > 0 ? numValues : 0) * sizeof(int32_t);
}

void sortSegments(const int64_t *offsets, int64_t segments, int32_t *values,
                  int64_t numValues, int64_t maxLength, void *scratch) {
  if (segments <= 0 || numValues <= 0)
    return;
  const unsigned grid = blocksFor(segments) < 65535u * 8 ? blocksFor(segments)
                                                          : 65535u * 8;
  GNNRT_LAUNCH_WITHOUT_BARRIERS(grid, kBlock, 0, stream(), sortShortKernel)
  (offsets, segments, values);
  checkLaunch("sort of short segments");
  if (maxLength >= 0 && maxLength <= kShortSegment)
    return;
  const ScratchLayout at(segments);
  auto *room = static_cast<int64_t *>(scratch);
  int64_t *flags = room + at.flags, *index = room + at.index,
          *longSegments = room + at.list;
  auto *merged = reinterpret_cast<int32_t *>(room + at.merged);
  GNNRT_LAUNCH_WITHOUT_BARRIERS(grid, kBlock, 0, stream(), longFlagsKernel)
  (offsets, segments, flags);
  checkLaunch("sort: long segments");
  exclusiveScan(flags, segments, index, room + at.scan);
  int64_t numLong = 0;
  check(cudaMemcpyAsync(&numLong, index + segments, sizeof numLong,
                        cudaMemcpyDeviceToHost, stream()),
        "copy of the long segments' count");
  check(cudaStreamSynchronize(stream()), "sort: long segments");
  if (numLong == 0)
    return;
  GNNRT_LAUNCH_WITHOUT_BARRIERS(grid, kBlock, 0, stream(), compactLongKernel)
  (flags, index, segments, longSegments);
  checkLaunch("sort: long segments");
  GNNRT_LAUNCH(unsigned(numLong), kSortThreads, 0, stream(), sortLongKernel)
  (offsets, longSegments, values, merged);
  checkLaunch("sort of long segments");
}

} // namespace gnnrt::kernels::cuda
