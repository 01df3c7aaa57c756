//===- Scan.h - Prefix sums over many blocks on a CUDA device ---*- C++ -*-===//
//
// The exclusive prefix sum of an int64 array of any length, by kernels of
// our own (no CUB: the emulation must run them): each block sums a tile of
// kScanTile values, the tiles' sums are scanned the same way (recursively,
// one level per factor of kScanTile), and each block then scans its tile
// from its offset. Integer sums do not depend on the order they are taken
// in, so the result is the sequential scan's, bit for bit. Three launches
// and no spin on another block (blocks of the emulation run one after
// another), where a single-pass look-back scan would need them concurrent.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_CUDA_SCAN_H
#define GNNRT_KERNELS_CUDA_SCAN_H

#include <cstdint>

namespace gnnrt::kernels::cuda {

/// Threads of a scan block, and the values each scans in sequence.
constexpr int kScanThreads = 256;
constexpr int kScanItemsPerThread = 8;
/// Values one block scans: 2048 int64 (16 KiB of shared memory).
constexpr int64_t kScanTile = int64_t(kScanThreads) * kScanItemsPerThread;

/// The int64 values of device memory exclusiveScan needs for n values
/// besides its input and output: the tiles' sums, level by level.
int64_t exclusiveScanScratch(int64_t n);

/// out[k] = in[0] + .. + in[k - 1] for k <= n (out[0] = 0, out[n] the
/// total); in and out device arrays of n and n + 1 values (out may not
/// alias in), `scratch` device memory of exclusiveScanScratch(n) values
/// (the caller keeps it, so that repeated scans do not allocate). Queued
/// on the current stream.
void exclusiveScan(const int64_t *in, int64_t n, int64_t *out,
                   int64_t *scratch);

} // namespace gnnrt::kernels::cuda

#endif // GNNRT_KERNELS_CUDA_SCAN_H
