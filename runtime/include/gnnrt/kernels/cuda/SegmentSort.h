//===- SegmentSort.h - Sorting many segments on a CUDA device ---*- C++ -*-===//
//
// Each segment of an int32 array sorted ascending in place: a sampled
// block's sources per destination (BlockBuilder's order). Segments are
// mostly short (a fanout), but a hub sampled whole (fanout -1) can hold
// thousands, where one thread's insertion sort would go quadratic. So
// segments up to kShortSegment are sorted by one thread each, and each
// longer one by a block of its own: tiles of kSortTile values bitonic-
// sorted in shared memory, then the sorted tiles merged pairwise in global
// memory (each value's place found by a binary search in the other run),
// O(n log^2 n) work over the block's threads. Our own kernels (no CUB: the
// emulation must run them). Sorted int32 values are the same whichever
// algorithm sorted them, so the result is std::sort's, bit for bit.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_CUDA_SEGMENTSORT_H
#define GNNRT_KERNELS_CUDA_SEGMENTSORT_H

#include <cstddef>
#include <cstdint>

namespace gnnrt::kernels::cuda {

/// Segments up to this long are sorted by one thread each.
constexpr int64_t kShortSegment = 32;
/// Threads of the block that sorts one long segment, and the values it
/// sorts in shared memory at once.
constexpr int kSortThreads = 256;
constexpr int64_t kSortTile = 2048;

/// The bytes of device memory sortSegments needs besides its arrays: the
/// long segments' flags, places and list, the merges' buffer, a scan's.
size_t sortSegmentsScratch(int64_t segments, int64_t numValues);

/// Sorts values[offsets[j] .. offsets[j + 1]) ascending for j < segments
/// (device arrays; numValues = offsets[segments], known to the caller, sizes
/// the merge buffer). `maxLength` bounds every segment's length when the
/// caller knows one (a fanout, a graph's largest degree), so that calls
/// with short segments only skip the long-segment pass (which reads a count
/// back to the host); -1: unknown. `scratch`: sortSegmentsScratch bytes of
/// device memory, 8-byte aligned, kept by the caller. Queued on the
/// current stream.
void sortSegments(const int64_t *offsets, int64_t segments, int32_t *values,
                  int64_t numValues, int64_t maxLength, void *scratch);

} // namespace gnnrt::kernels::cuda

#endif // GNNRT_KERNELS_CUDA_SEGMENTSORT_H
