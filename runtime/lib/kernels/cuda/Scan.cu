//===- Scan.cu - Prefix sums over many blocks on a CUDA device ------------===//
//
// See gnnrt/kernels/cuda/Scan.h. A block loads its tile into shared memory
// with consecutive threads reading consecutive values (coalesced), each
// thread then sums kScanItemsPerThread consecutive values, the threads'
// sums are scanned across the block (Hillis-Steele: log2(threads) steps,
// each a read, a barrier and a write), and each thread writes its values'
// prefixes back for a coalesced store.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/cuda/Scan.h"

#include "Common.h"

namespace gnnrt::kernels::cuda {

using namespace detail;

namespace {

/// `sum` summed over the block's threads, in every thread: an inclusive
/// scan of the threads' values in `room`, whose thread t holds the sum of
/// threads 0..t once it returns.
__device__ int64_t blockInclusiveScan(int64_t sum, int64_t *room) {
  const int t = int(threadIdx.x);
  room[t] = sum;
  __syncthreads();
  for (int offset = 1; offset < kScanThreads; offset *= 2) {
    const int64_t before = t >= offset ? room[t - offset] : 0;
    __syncthreads();
    room[t] += before;
    __syncthreads();
  }
  return room[t];
}

/// sums[b] = the sum of tile b of in[0..n).
__global__ void __launch_bounds__(kScanThreads)
    tileSumsKernel(const int64_t *in, int64_t n, int64_t *sums) {
  __shared__ int64_t room[kScanThreads];
  const int64_t base = int64_t(blockIdx.x) * kScanTile;
  const int t = int(threadIdx.x);
  int64_t sum = 0;
  for (int64_t i = base + t; i < n && i < base + kScanTile; i += kScanThreads)
    sum += in[i];
  const int64_t total = blockInclusiveScan(sum, room);
  if (t == kScanThreads - 1)
    sums[blockIdx.x] = total;
}

/// out[base + i] = tileOffsets[b] + the sum of tile b's values before i
/// (tileOffsets null: 0); the last block writes the total at out[n].
__global__ void __launch_bounds__(kScanThreads)
    scanTilesKernel(const int64_t *in, int64_t n, const int64_t *tileOffsets,
                    int64_t *out) {
  __shared__ int64_t tile[kScanTile];
  __shared__ int64_t room[kScanThreads];
  const int64_t base = int64_t(blockIdx.x) * kScanTile;
  const int t = int(threadIdx.x);
  for (int i = t; i < kScanTile; i += kScanThreads)
    tile[i] = base + i < n ? in[base + i] : 0;
  __syncthreads();
  int64_t *mine = tile + t * kScanItemsPerThread;
  int64_t sum = 0;
  for (int k = 0; k < kScanItemsPerThread; ++k)
    sum += mine[k];
  const int64_t inclusive = blockInclusiveScan(sum, room);
  const int64_t offset = tileOffsets ? tileOffsets[blockIdx.x] : 0;
  // Each thread rewrites only its own values, read before the scan's
  // barriers.
  int64_t run = offset + inclusive - sum;
  for (int k = 0; k < kScanItemsPerThread; ++k) {
    const int64_t v = mine[k];
    mine[k] = run;
    run += v;
  }
  __syncthreads();
  for (int i = t; i < kScanTile && base + i < n; i += kScanThreads)
    out[base + i] = tile[i];
  if (blockIdx.x == gridDim.x - 1 && t == kScanThreads - 1)
    out[n] = offset + inclusive;
}

int64_t tilesOf(int64_t n) { return (n + kScanTile - 1) / kScanTile; }

void scanLevel(const int64_t *in, int64_t n, int64_t *out, int64_t *room) {
  if (n <= kScanTile) {
    GNNRT_LAUNCH(1, kScanThreads, 0, stream(), scanTilesKernel)
    (in, n, nullptr, out);
    checkLaunch("scan");
    return;
  }
  const int64_t tiles = tilesOf(n);
  int64_t *sums = room, *offsets = room + tiles;
  GNNRT_LAUNCH(unsigned(tiles), kScanThreads, 0, stream(), tileSumsKernel)
  (in, n, sums);
  checkLaunch("scan tile sums");
  scanLevel(sums, tiles, offsets, room + 2 * tiles + 1);
  GNNRT_LAUNCH(unsigned(tiles), kScanThreads, 0, stream(), scanTilesKernel)
  (in, n, offsets, out);
  checkLaunch("scan");
}

} // namespace

int64_t exclusiveScanScratch(int64_t n) {
  // Per level above one tile: the tiles' sums and their scan.
  if (n <= kScanTile)
    return 0;
  const int64_t tiles = tilesOf(n);
  return 2 * tiles + 1 + exclusiveScanScratch(tiles);
}

void exclusiveScan(const int64_t *in, int64_t n, int64_t *out,
                   int64_t *scratch) {
  scanLevel(in, n < 0 ? 0 : n, out, scratch);
}

} // namespace gnnrt::kernels::cuda
