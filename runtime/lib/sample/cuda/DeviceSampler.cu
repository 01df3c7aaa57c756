//===- DeviceSampler.cu - Neighbour sampling on a CUDA device -------------===//
//
// See gnnrt/sample/cuda/DeviceSampler.h. sampleRow below is
// cpu/NeighborSampler.cpp's per-node rule (this file's CPU twin) written
// for one device thread: the same counts, the same draws in the same
// order. Floyd's membership test always scans the
// positions picked so far (the CPU switches to a hash set above fanout 64);
// a scan and a set answer alike, so the picks do not change.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/sample/cuda/DeviceSampler.h"

#include "gnnrt/kernels/cuda/DeviceArray.h"
#include "gnnrt/kernels/cuda/Launch.h"
#include "gnnrt/kernels/cuda/Memory.h"
#include "gnnrt/kernels/cuda/Scan.h"
#include "gnnrt/kernels/cuda/Stream.h"
#include "gnnrt/sample/cuda/DeviceBlockBuilder.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/Random.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

namespace gnnrt {

/// Members of DeviceNeighborSampler::Device (a named namespace: the
/// emulated build compiles this file as an included one, where members of
/// anonymous-namespace types draw -Wsubobject-linkage).
namespace devicesampler {

using kernels::cuda::globalThread;
using DeviceArray = kernels::cuda::DeviceArray;
/// Throws DeviceError("CUDA <what>: <the driver's message>").
inline void check(cudaError_t status, const char *what) {
  kernels::cuda::checkCuda(status, what);
}

/// Mapped pinned host memory (cudaHostAllocMapped): the host writes it,
/// kernels read it zero-copy through its device address.
class PinnedMemory {
public:
  PinnedMemory() = default;
  PinnedMemory(const PinnedMemory &) = delete;
  PinnedMemory &operator=(const PinnedMemory &) = delete;
  ~PinnedMemory() {
    // At exit the driver may be gone first: errors are ignored.
    if (host)
      cudaFreeHost(host);
  }
  /// `bytes` of it; returns the host address (device() is the kernels').
  char *allocate(size_t bytes) {
    check(cudaHostAlloc(reinterpret_cast<void **>(&host),
                        std::max<size_t>(bytes, 1), cudaHostAllocMapped),
          "allocation of mapped pinned memory for the graph");
    check(cudaHostGetDevicePointer(reinterpret_cast<void **>(&deviceAddress),
                                   host, 0),
          "device address of the graph's pinned memory");
    return host;
  }
  const char *device() const { return deviceAddress; }

private:
  char *host = nullptr, *deviceAddress = nullptr;
};

/// The CSR on the device.
struct DeviceCsr {
  const int64_t *offsets;
  const int32_t *neighbors;
  const int64_t *globalIds; ///< null: row ids are global ids
  /// A typed graph's relation of each entry (null: untyped), of
  /// numRelations.
  const int32_t *edgeType;
  int64_t numRelations;
  /// Sampled per relation (null: a row's entries together): row r's
  /// (row, relation) pairs are rowPairs[r] .. rowPairs[r + 1], pair p's
  /// relation pairRelation[p] and its entries' CSR positions
  /// pairEdges[pairBegin[p] .. pairBegin[p + 1]) (RelationPairs).
  const int64_t *rowPairs;
  const int32_t *pairRelation;
  const int64_t *pairBegin;
  const int64_t *pairEdges;
};

} // namespace devicesampler

using devicesampler::DeviceArray;
using devicesampler::DeviceCsr;

namespace {

using devicesampler::check;
using devicesampler::globalThread;

cudaStream_t stream() { return kernels::cuda::currentStream(); }

__device__ inline int64_t neighborAt(const DeviceCsr &g, int64_t k) {
  return g.globalIds ? g.globalIds[g.neighbors[k]] : int64_t(g.neighbors[k]);
}

/// What a draw of entry k reports: its neighbour, of a typed graph with the
/// entry's relation as neighbour * numRelations + relation (the encoding
/// MiniBatchAssembler's host draws use).
__device__ inline int64_t drawnAt(const DeviceCsr &g, int64_t k) {
  const int64_t v = neighborAt(g, k);
  return g.edgeType ? v * g.numRelations + g.edgeType[k] : v;
}

/// How many of `degree` entries a draw of `fanout` takes
/// (NeighborSampler.cpp's sampleEntries).
__device__ inline int64_t takenOf(int64_t degree, int64_t fanout,
                                  bool replace) {
  if (fanout == -1 || (!replace && degree <= fanout))
    return degree;
  return degree == 0 ? 0 : fanout;
}

/// The fanout relation r of a row draws: its own (relationFanouts, the
/// hop's layer's row of relation_fanout), or the hop's.
__device__ inline int64_t fanoutOf(const int64_t *relationFanouts, int32_t r,
                                   int64_t fanout) {
  return relationFanouts ? relationFanouts[r] : fanout;
}

/// How many neighbours `row` gets: of its entries together, or per
/// relation, each relation of the row drawing on its own.
__device__ inline int64_t sampledCount(const DeviceCsr &g, int64_t row,
                                       int64_t fanout,
                                       const int64_t *relationFanouts,
                                       bool replace) {
  if (!g.rowPairs)
    return takenOf(g.offsets[row + 1] - g.offsets[row], fanout, replace);
  int64_t count = 0;
  for (int64_t p = g.rowPairs[row]; p < g.rowPairs[row + 1]; ++p)
    count += takenOf(g.pairBegin[p + 1] - g.pairBegin[p],
                     fanoutOf(relationFanouts, g.pairRelation[p], fanout),
                     replace);
  return count;
}

/// An integer uniform in [0, n), n > 0: the CPU's drawBelow.
__device__ inline int64_t drawBelow(CounterRng &rng, uint64_t n) {
  return n <= 0xffffffffull ? int64_t(rng.nextBelow(uint32_t(n)))
                            : int64_t(rng.nextBelow64(n));
}

/// A row's entries at consecutive CSR positions.
struct RowEntries {
  int64_t begin;
  __device__ int64_t operator()(int64_t i) const { return begin + i; }
};
/// A (row, relation) pair's entries, listed by CSR position.
struct PairEntries {
  const int64_t *positions;
  __device__ int64_t operator()(int64_t i) const { return positions[i]; }
};

/// NeighborSampler.cpp's sampleEntries for one device thread: takenOf
/// draws of `degree` entries, entry i at CSR position at(i), from stream
/// `stream` of `drawKey`, written to picked[0..).
template <typename At>
__device__ void drawEntries(const DeviceCsr &g, int64_t degree, At at,
                            int64_t fanout, bool replace, uint64_t drawKey,
                            uint64_t stream, int64_t *picked) {
  if (fanout == -1 || (!replace && degree <= fanout)) {
    for (int64_t k = 0; k < degree; ++k)
      picked[k] = drawnAt(g, at(k));
    return;
  }
  if (degree == 0)
    return;
  CounterRng rng(drawKey, stream);
  if (replace) {
    for (int64_t i = 0; i < fanout; ++i)
      picked[i] = drawnAt(g, at(drawBelow(rng, uint64_t(degree))));
    return;
  }
  // Floyd: for j = d-k .. d-1 draw t in [0, j]; take t, or j if t was
  // taken.
  for (int64_t i = 0, j = degree - fanout; j < degree; ++i, ++j) {
    const int64_t t = drawBelow(rng, uint64_t(j) + 1);
    bool taken = false;
    for (int64_t p = 0; p < i && !taken; ++p)
      taken = picked[p] == t;
    picked[i] = taken ? j : t;
  }
  for (int64_t i = 0; i < fanout; ++i)
    picked[i] = drawnAt(g, at(picked[i]));
}

__global__ void countKernel(DeviceCsr g, const int64_t *frontier, int64_t n,
                            int64_t fanout, const int64_t *relationFanouts,
                            bool replace, int64_t *counts) {
  for (int64_t j = globalThread(); j < n;
       j += int64_t(gridDim.x) * blockDim.x)
    counts[j] = sampledCount(g, frontier[j], fanout, relationFanouts, replace);
}

/// Row j's sampled neighbours (global ids) at out[offsets[j]..], drawn from
/// stream streams[j] (null: the row); per relation, relation r's from
/// stream streams[j] * numRelations + r, the relations in the row's order.
__global__ void sampleKernel(DeviceCsr g, const int64_t *frontier,
                             const int64_t *streams, int64_t n,
                             int64_t fanout, const int64_t *relationFanouts,
                             bool replace, uint64_t drawKey,
                             const int64_t *offsets, int64_t *out) {
  for (int64_t j = globalThread(); j < n;
       j += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = frontier[j];
    const uint64_t stream = uint64_t(streams ? streams[j] : row);
    int64_t *picked = out + offsets[j];
    if (!g.rowPairs) {
      const int64_t begin = g.offsets[row];
      drawEntries(g, g.offsets[row + 1] - begin, RowEntries{begin}, fanout,
                  replace, drawKey, stream, picked);
      continue;
    }
    for (int64_t p = g.rowPairs[row]; p < g.rowPairs[row + 1]; ++p) {
      const int32_t r = g.pairRelation[p];
      const int64_t degree = g.pairBegin[p + 1] - g.pairBegin[p];
      const int64_t own = fanoutOf(relationFanouts, r, fanout);
      drawEntries(g, degree, PairEntries{g.pairEdges + g.pairBegin[p]}, own,
                  replace, drawKey,
                  stream * uint64_t(g.numRelations) + uint64_t(r), picked);
      picked += takenOf(degree, own, replace);
    }
  }
}

__global__ void gatherRowsKernel(const float *features, int64_t width,
                                 const int64_t *nodes, int64_t count,
                                 float *out) {
  const int64_t n = count * width;
  for (int64_t k = globalThread(); k < n;
       k += int64_t(gridDim.x) * blockDim.x)
    out[k] = features[nodes[k / width] * width + k % width];
}

__global__ void copyRowsKernel(const float *table, int64_t width,
                               const int64_t *fromRows, const int64_t *toRows,
                               int64_t count, float *out) {
  const int64_t n = count * width;
  for (int64_t k = globalThread(); k < n;
       k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = k / width, to = toRows ? toRows[i] : i;
    out[to * width + k % width] = table[fromRows[i] * width + k % width];
  }
}

[[noreturn]] void throwSamplerError(const std::string &message) {
  throwDataError("device sampler", 0, message);
}

} // namespace

struct DeviceNeighborSampler::Device {
  /// The CSR's arrays in device memory, or all of them in `pinned`.
  DeviceArray offsets, neighbors, globalIds, edgeTypes, rowPairs,
      pairRelation, pairBegin, pairEdges;
  devicesampler::PinnedMemory pinned;
  DeviceCsr csr{};
  /// Per hop, kept across batches: the rows and their streams, the counts
  /// and offsets, the neighbour ids; one hop at a time uses them.
  mutable std::mutex hop;
  mutable DeviceArray frontier, streams, relationFanouts, counts, hopOffsets,
      hopNeighbors;
  mutable std::vector<int64_t> hostCounts;
  /// sampleBatch's deduplication, made by its first call.
  mutable std::unique_ptr<DeviceBlockBuilder> builder;
  mutable DeviceArray scanScratch;
  /// The largest in-degree of a row: bounds a hop's rows for the sort.
  int64_t maxDegree = 0;
};

namespace {

void checkFanout(int64_t fanout, int layer) {
  if (fanout == 0 || fanout < -1)
    throwSamplerError("fanout " + std::to_string(fanout) + " of layer " +
                      std::to_string(layer) +
                      ": expected a positive count or -1 (all neighbours)");
}

} // namespace

DeviceNeighborSampler::DeviceNeighborSampler(Adjacency adj,
                                             int64_t numGlobalNodes,
                                             SamplerOptions options,
                                             int64_t graphBudgetBytes)
    : numNodes(numGlobalNodes), opts(std::move(options)),
      device(std::make_unique<Device>()) {
  if (!adj.globalIds && adj.numRows != numGlobalNodes)
    throwSamplerError("the adjacency has " + std::to_string(adj.numRows) +
                      " rows for " + std::to_string(numGlobalNodes) +
                      " nodes (row v must be node v)");
  for (size_t i = 0; i < opts.fanouts.size(); ++i)
    checkFanout(opts.fanouts[i], int(i));
  const int64_t edges = adj.offsets[adj.numRows];
  Device &d = *device;
  for (int64_t r = 0; r < adj.numRows; ++r)
    d.maxDegree = std::max(d.maxDegree, adj.offsets[r + 1] - adj.offsets[r]);
  // A partition's neighbours are local ids, owned rows first, then the
  // halo: the id table covers the largest one named.
  int64_t ids = adj.numRows;
  if (adj.globalIds)
    for (int64_t k = 0; k < edges; ++k)
      ids = std::max(ids, int64_t(adj.neighbors[k]) + 1);
  rowsAreNodes = adj.numRows == numGlobalNodes;
  typedRows = adj.edgeType != nullptr;
  d.csr.numRelations = adj.numRelations;
  // The arrays the kernels read (a null host array stays null), each where
  // the kernels find it through `to`.
  struct Array {
    const void *host;
    int64_t bytes;
    const void **to;
    DeviceArray *storage;
  };
  const RelationPairs *pairs = adj.perRelation;
  const int64_t numPairs = pairs ? pairs->size() : 0;
  const std::vector<Array> arrays = {
      {adj.offsets, (adj.numRows + 1) * int64_t(sizeof(int64_t)),
       reinterpret_cast<const void **>(&d.csr.offsets), &d.offsets},
      {adj.neighbors, edges * int64_t(sizeof(int32_t)),
       reinterpret_cast<const void **>(&d.csr.neighbors), &d.neighbors},
      {adj.globalIds, ids * int64_t(sizeof(int64_t)),
       reinterpret_cast<const void **>(&d.csr.globalIds), &d.globalIds},
      {adj.edgeType, edges * int64_t(sizeof(int32_t)),
       reinterpret_cast<const void **>(&d.csr.edgeType), &d.edgeTypes},
      {pairs ? pairs->nodePairs.data() : nullptr,
       (adj.numRows + 1) * int64_t(sizeof(int64_t)),
       reinterpret_cast<const void **>(&d.csr.rowPairs), &d.rowPairs},
      {pairs ? pairs->relation.data() : nullptr,
       numPairs * int64_t(sizeof(int32_t)),
       reinterpret_cast<const void **>(&d.csr.pairRelation), &d.pairRelation},
      {pairs ? pairs->edgeBegin.data() : nullptr,
       (numPairs + 1) * int64_t(sizeof(int64_t)),
       reinterpret_cast<const void **>(&d.csr.pairBegin), &d.pairBegin},
      {pairs ? pairs->edges.data() : nullptr, edges * int64_t(sizeof(int64_t)),
       reinterpret_cast<const void **>(&d.csr.pairEdges), &d.pairEdges}};
  csrBytes = 0;
  for (const Array &a : arrays)
    csrBytes += a.host ? a.bytes : 0;
  zeroCopy = graphBudgetBytes >= 0 && csrBytes > graphBudgetBytes;
  if (!zeroCopy) {
    for (const Array &a : arrays)
      *a.to = a.host ? a.storage->upload(static_cast<const char *>(a.host),
                                         a.bytes)
                     : nullptr;
    return;
  }
  // Each array at a 256-byte boundary of one pinned block.
  auto aligned = [](int64_t bytes) { return (bytes + 255) / 256 * 256; };
  int64_t total = 0;
  for (const Array &a : arrays)
    total += a.host ? aligned(a.bytes) : 0;
  char *host = d.pinned.allocate(size_t(total));
  const char *device = d.pinned.device();
  int64_t at = 0;
  for (const Array &a : arrays) {
    *a.to = nullptr;
    if (!a.host)
      continue;
    std::memcpy(host + at, a.host, size_t(a.bytes));
    *a.to = device + at;
    at += aligned(a.bytes);
  }
}

DeviceNeighborSampler::~DeviceNeighborSampler() = default;

void DeviceNeighborSampler::sample(const int64_t *seeds, int64_t numSeeds,
                                   const SampleKey &key, BlockBuilder &builder,
                                   SampledBatch &out) const {
  if (!rowsAreNodes)
    throwSamplerError("sample() needs row v to be node v; sample a "
                      "partition's rows with sampleRows");
  if (typedRows)
    throwSamplerError("sample() builds untyped blocks; sample a typed "
                      "graph's rows with sampleRows");
  const int numLayers = int(opts.fanouts.size());
  builder.start(seeds, numSeeds, numLayers, out);
  std::vector<int64_t> offsets, neighbors;
  // Hop h samples block numLayers - h: the seeds' hop first.
  for (int layer = numLayers - 1; layer >= 0; --layer) {
    sampleRows(builder.frontier(), nullptr, builder.frontierSize(),
               opts.fanouts[size_t(layer)], sampleDrawKey(key, layer), offsets,
               neighbors);
    builder.addHop(offsets, neighbors);
  }
  builder.finish();
}

const int64_t *
DeviceNeighborSampler::drawHop(const int64_t *rows, const int64_t *nodes,
                               int64_t n, int64_t fanout,
                               const int64_t *relationFanouts,
                               uint64_t drawKey, std::vector<int64_t> &offsets,
                               std::unique_lock<std::mutex> &turn) const {
  checkFanout(fanout, 0);
  Device &d = *device;
  turn = std::unique_lock<std::mutex>(d.hop);
  offsets.assign(size_t(n) + 1, 0);
  if (n <= 0)
    return nullptr;
  const int64_t *frontier = d.frontier.upload(rows, n);
  const int64_t *streams = d.streams.upload(nodes, n);
  const int64_t *ownFanouts =
      relationFanouts && d.csr.rowPairs
          ? d.relationFanouts.upload(relationFanouts, d.csr.numRelations)
          : nullptr;
  if (ownFanouts)
    transferred += d.csr.numRelations * int64_t(sizeof(int64_t));
  int64_t *counts = d.counts.get<int64_t>(n);
  const unsigned grid = kernels::cuda::generatedGrid(n);
  GNNRT_LAUNCH_WITHOUT_BARRIERS(grid, kernels::cuda::kGeneratedBlock, 0,
                                stream(), countKernel)
  (d.csr, frontier, n, fanout, ownFanouts, opts.replace, counts);
  kernels::cuda::checkLaunch("sampler count");
  d.hostCounts.resize(size_t(n));
  check(cudaMemcpyAsync(d.hostCounts.data(), counts,
                        size_t(n) * sizeof(int64_t), cudaMemcpyDeviceToHost,
                        stream()),
        "copy of the sampled counts");
  check(cudaStreamSynchronize(stream()), "sampler count");
  for (int64_t j = 0; j < n; ++j)
    offsets[size_t(j) + 1] = offsets[size_t(j)] + d.hostCounts[size_t(j)];
  const int64_t total = offsets.back();
  const int64_t *deviceOffsets = d.hopOffsets.upload(offsets.data(), n + 1);
  int64_t *deviceNeighbors = d.hopNeighbors.get<int64_t>(total);
  // Rows and streams up, counts down, offsets up.
  transferred += (n + (nodes ? n : 0) + n + (n + 1)) * int64_t(sizeof(int64_t));
  GNNRT_LAUNCH_WITHOUT_BARRIERS(grid, kernels::cuda::kGeneratedBlock, 0,
                                stream(), sampleKernel)
  (d.csr, frontier, streams, n, fanout, ownFanouts, opts.replace, drawKey,
   deviceOffsets, deviceNeighbors);
  kernels::cuda::checkLaunch("sampler draws");
  return deviceNeighbors;
}

namespace {

/// One int64 of device memory, read on the host (a hop's total).
int64_t readBack(const int64_t *value) {
  int64_t host = 0;
  check(cudaMemcpyAsync(&host, value, sizeof host, cudaMemcpyDeviceToHost,
                        stream()),
        "copy of a count");
  check(cudaStreamSynchronize(stream()), "sampler");
  return host;
}

/// The most sources a destination of a hop can get: its row's degree, up
/// to the fanout (exactly the fanout with replacement).
int64_t longestRow(int64_t fanout, bool replace, int64_t maxDegree) {
  if (fanout == -1)
    return maxDegree;
  return replace ? fanout : std::min(fanout, maxDegree);
}

} // namespace

void DeviceNeighborSampler::sampleBatch(const int64_t *seeds, int64_t numSeeds,
                                        const std::vector<int64_t> &fanouts,
                                        const SampleKey &key,
                                        SampledBatch &out) const {
  if (!rowsAreNodes)
    throwSamplerError("sampleBatch() needs row v to be node v");
  if (typedRows)
    throwSamplerError("sampleBatch() builds untyped blocks; sample a typed "
                      "graph's rows with sampleRows");
  for (size_t i = 0; i < fanouts.size(); ++i)
    checkFanout(fanouts[i], int(i));
  Device &d = *device;
  std::lock_guard<std::mutex> lock(d.hop);
  if (!d.builder)
    d.builder = std::make_unique<DeviceBlockBuilder>(numNodes);
  DeviceBlockBuilder &builder = *d.builder;
  const int64_t before = builder.transferBytes();
  const int layers = int(fanouts.size());
  builder.start(seeds, numSeeds, layers, out);
  // Hop h samples block layers - h: the seeds' hop first. The frontier
  // (all nodes so far) stays on the device from hop to hop.
  for (int layer = layers - 1; layer >= 0; --layer) {
    const int64_t numDst = builder.frontierSize();
    const int64_t fanout = fanouts[size_t(layer)];
    const int64_t *frontier = builder.frontier();
    int64_t *counts = d.counts.get<int64_t>(numDst);
    int64_t *offsets = d.hopOffsets.get<int64_t>(numDst + 1);
    const unsigned grid = kernels::cuda::generatedGrid(numDst);
    if (numDst > 0) {
      GNNRT_LAUNCH_WITHOUT_BARRIERS(grid, kernels::cuda::kGeneratedBlock, 0,
                                    stream(), countKernel)
      (d.csr, frontier, numDst, fanout, nullptr, opts.replace, counts);
      kernels::cuda::checkLaunch("sampler count");
    }
    kernels::cuda::exclusiveScan(counts, numDst, offsets,
                                 d.scanScratch.get<int64_t>(
                                     kernels::cuda::exclusiveScanScratch(numDst)));
    const int64_t e = readBack(offsets + numDst);
    transferred += int64_t(sizeof e);
    int64_t *neighbors = d.hopNeighbors.get<int64_t>(e);
    if (e > 0) {
      GNNRT_LAUNCH_WITHOUT_BARRIERS(grid, kernels::cuda::kGeneratedBlock, 0,
                                    stream(), sampleKernel)
      (d.csr, frontier, nullptr, numDst, fanout, nullptr, opts.replace,
       sampleDrawKey(key, layer), offsets, neighbors);
      kernels::cuda::checkLaunch("sampler draws");
    }
    builder.addHop(neighbors, offsets, e,
                   longestRow(fanout, opts.replace, d.maxDegree));
  }
  builder.finish();
  transferred += builder.transferBytes() - before;
}

void DeviceNeighborSampler::sampleRows(const int64_t *rows,
                                       const int64_t *nodes, int64_t n,
                                       int64_t fanout, uint64_t drawKey,
                                       std::vector<int64_t> &offsets,
                                       std::vector<int64_t> &neighbors,
                                       const int64_t *relationFanouts) const {
  std::unique_lock<std::mutex> turn;
  const int64_t *drawn = drawHop(rows, nodes, n, fanout, relationFanouts,
                                 drawKey, offsets, turn);
  const int64_t total = offsets.back();
  neighbors.resize(size_t(total));
  if (total > 0)
    check(cudaMemcpyAsync(neighbors.data(), drawn,
                          size_t(total) * sizeof(int64_t),
                          cudaMemcpyDeviceToHost, stream()),
          "copy of the sampled neighbours");
  check(cudaStreamSynchronize(stream()), "sampler draws");
  neighborListsCopied += total * int64_t(sizeof(int64_t));
}

void DeviceNeighborSampler::sampleRowsToDevice(
    const int64_t *rows, const int64_t *nodes, int64_t n, int64_t fanout,
    uint64_t drawKey, std::vector<int64_t> &offsets,
    const std::function<int64_t *(int64_t)> &room,
    const int64_t *relationFanouts) const {
  std::unique_lock<std::mutex> turn;
  const int64_t *drawn = drawHop(rows, nodes, n, fanout, relationFanouts,
                                 drawKey, offsets, turn);
  const int64_t total = offsets.back();
  int64_t *copy = room(total);
  if (total > 0)
    check(cudaMemcpyAsync(copy, drawn, size_t(total) * sizeof(int64_t),
                          cudaMemcpyDeviceToDevice, stream()),
          "copy of the sampled neighbours");
  // The next hop reuses the sampler's arrays once `turn` is released.
  check(cudaStreamSynchronize(stream()), "sampler draws");
}

void gatherFeatureRows(const float *features, int64_t width,
                       const int64_t *nodes, int64_t count, float *out) {
  if (count <= 0 || width <= 0)
    return;
  GNNRT_LAUNCH_WITHOUT_BARRIERS(kernels::cuda::generatedGrid(count * width),
                                kernels::cuda::kGeneratedBlock, 0, stream(),
                                gatherRowsKernel)
  (features, width, nodes, count, out);
  kernels::cuda::checkLaunch("gatherFeatureRows");
}

void copyFeatureRows(const float *table, int64_t width,
                     const int64_t *fromRows, const int64_t *toRows,
                     int64_t count, float *out) {
  if (count <= 0 || width <= 0)
    return;
  GNNRT_LAUNCH_WITHOUT_BARRIERS(kernels::cuda::generatedGrid(count * width),
                                kernels::cuda::kGeneratedBlock, 0, stream(),
                                copyRowsKernel)
  (table, width, fromRows, toRows, count, out);
  kernels::cuda::checkLaunch("copyFeatureRows");
}

} // namespace gnnrt
