//===- DeviceBlockBuilder.cu - BlockBuilder on a CUDA device --------------===//
//
// See gnnrt/sample/cuda/DeviceBlockBuilder.h. The tables by global id persist
// between batches: localOf (-1: not in the batch) is cleared by finish()
// for the batch's nodes only, firstAt (all ones: no appearance) by each
// hop for the neighbours it saw.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/sample/cuda/DeviceBlockBuilder.h"

#include "gnnrt/kernels/cuda/DeviceArray.h"
#include "gnnrt/kernels/cuda/Launch.h"
#include "gnnrt/kernels/cuda/Memory.h"
#include "gnnrt/kernels/cuda/Scan.h"
#include "gnnrt/kernels/cuda/SegmentSort.h"
#include "gnnrt/kernels/cuda/Stream.h"
#include "gnnrt/support/Error.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

namespace gnnrt {

namespace {

using kernels::cuda::checkCuda;
using kernels::cuda::globalThread;

cudaStream_t stream() { return kernels::cuda::currentStream(); }

/// The batch's seeds: nodes[i] = seeds[i], local id i.
__global__ void seedKernel(const int64_t *seeds, int64_t n, int32_t *localOf,
                           int64_t *nodes) {
  for (int64_t i = globalThread(); i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    localOf[seeds[i]] = int32_t(i);
    nodes[i] = seeds[i];
  }
}

/// Row j's neighbours copied to out[offsets[j]..] from the first array or
/// the second (rowStarts past firstCount).
__global__ void placeRowsKernel(const int64_t *first, int64_t firstCount,
                                const int64_t *second, const int64_t *rowStarts,
                                const int64_t *offsets, int64_t n,
                                int64_t *out) {
  for (int64_t j = globalThread(); j < n;
       j += int64_t(gridDim.x) * blockDim.x) {
    const int64_t start = rowStarts[j];
    const int64_t *from =
        start < firstCount ? first + start : second + (start - firstCount);
    for (int64_t k = offsets[j]; k < offsets[j + 1]; ++k)
      out[k] = from[k - offsets[j]];
  }
}

/// firstAt[v]: the first position of each neighbour not yet in the batch.
__global__ void firstAppearanceKernel(const int64_t *neighbors, int64_t e,
                                      const int32_t *localOf,
                                      unsigned long long *firstAt) {
  for (int64_t k = globalThread(); k < e;
       k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t v = neighbors[k];
    if (localOf[v] < 0)
      atomicMin(&firstAt[v], (unsigned long long)k);
  }
}

/// isNew[k]: position k is its new node's first appearance.
__global__ void newNodeFlagsKernel(const int64_t *neighbors, int64_t e,
                                   const int32_t *localOf,
                                   const unsigned long long *firstAt,
                                   int64_t *isNew) {
  for (int64_t k = globalThread(); k < e;
       k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t v = neighbors[k];
    isNew[k] = localOf[v] < 0 && firstAt[v] == (unsigned long long)k;
  }
}

/// The new nodes after the `known` ones, in order of first appearance.
__global__ void appendNewNodesKernel(const int64_t *neighbors, int64_t e,
                                     const int64_t *isNew,
                                     const int64_t *newIndex, int64_t known,
                                     int32_t *localOf, int64_t *nodes) {
  for (int64_t k = globalThread(); k < e; k += int64_t(gridDim.x) * blockDim.x)
    if (isNew[k]) {
      const int64_t local = known + newIndex[k];
      localOf[neighbors[k]] = int32_t(local);
      nodes[local] = neighbors[k];
    }
}

/// Each edge's local source; firstAt is reset for the next hop.
__global__ void localSourcesKernel(const int64_t *neighbors, int64_t e,
                                   const int32_t *localOf,
                                   unsigned long long *firstAt,
                                   int32_t *edgeSrc) {
  for (int64_t k = globalThread(); k < e;
       k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t v = neighbors[k];
    edgeSrc[k] = localOf[v];
    firstAt[v] = ~0ull;
  }
}

/// Clears the batch's nodes from the table for the next batch.
__global__ void unmarkKernel(const int64_t *nodes, int64_t n,
                             int32_t *localOf) {
  for (int64_t i = globalThread(); i < n; i += int64_t(gridDim.x) * blockDim.x)
    localOf[nodes[i]] = -1;
}

[[noreturn]] void throwBuilderError(const std::string &message) {
  throwDataError("device sampler", 0, message);
}

/// Launches a barrier-free kernel over `items` threads.
#define GNNRT_BUILDER_LAUNCH(items, kernel)                                    \
  GNNRT_LAUNCH_WITHOUT_BARRIERS(kernels::cuda::generatedGrid(items),           \
                                kernels::cuda::kGeneratedBlock, 0, stream(),   \
                                kernel)

} // namespace

struct DeviceBlockBuilder::Device {
  using DeviceArray = kernels::cuda::DeviceArray;
  /// By global id: each node's local id in the batch, a hop's first
  /// appearance of it. The batch's nodes (two arrays used by turns: a
  /// grown one takes the other's contents); per hop, the new-node flags
  /// and their prefix sums; a two-array hop's places and neighbours.
  DeviceArray localOf, firstAt, nodes[2], isNew, newIndex, seeds, rowStarts,
      placed;
  int current = 0;
  int64_t capacity = 0;
  bool tablesReady = false;
  /// Per layer, the block (offsets and local sources).
  std::vector<std::unique_ptr<DeviceArray>> blockOffsets, blockSources;
  /// The scan's and the sort's temporaries.
  DeviceArray scanScratch, sortScratch;
};

DeviceBlockBuilder::DeviceBlockBuilder(int64_t numGlobalNodes)
    : numNodes(numGlobalNodes), device(std::make_unique<Device>()) {}

DeviceBlockBuilder::~DeviceBlockBuilder() = default;

const int64_t *DeviceBlockBuilder::frontier() const {
  return device->nodes[device->current].get<int64_t>(device->capacity);
}

void DeviceBlockBuilder::start(const int64_t *seeds, int64_t numSeeds,
                               int numLayers, SampledBatch &out) {
  // BlockBuilder's checks of the seeds, on the host copy.
  std::vector<int64_t> sorted(seeds, seeds + numSeeds);
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] < 0 || sorted[i] >= numNodes ||
        (i > 0 && sorted[i] == sorted[i - 1]))
      throwBuilderError(
          "seed " + std::to_string(sorted[i]) +
          (sorted[i] < 0 || sorted[i] >= numNodes
               ? " out of range [0, " + std::to_string(numNodes) + ")"
               : std::string(" appears twice in the batch")));
  Device &d = *device;
  if (batch && known > 0) {
    // A batch abandoned by an exception: its nodes leave the table first.
    GNNRT_BUILDER_LAUNCH(known, unmarkKernel)
    (d.nodes[d.current].get<int64_t>(d.capacity), known,
     d.localOf.get<int32_t>(numNodes));
    kernels::cuda::checkLaunch("sampler unmark");
    batch = nullptr;
  }
  if (!d.tablesReady) {
    // First batch: every node unseen (-1), no first appearance (all ones).
    auto fresh = [](kernels::cuda::DeviceArray &a, int64_t bytes) {
      checkCuda(cudaMemset(a.get<char>(bytes), 0xff, size_t(bytes)),
                "clear of the sampler's table");
    };
    fresh(d.localOf, numNodes * int64_t(sizeof(int32_t)));
    fresh(d.firstAt, numNodes * int64_t(sizeof(unsigned long long)));
    d.tablesReady = true;
  }
  while (int(d.blockOffsets.size()) < numLayers) {
    d.blockOffsets.push_back(std::make_unique<kernels::cuda::DeviceArray>());
    d.blockSources.push_back(std::make_unique<kernels::cuda::DeviceArray>());
  }
  d.capacity = std::max<int64_t>(numSeeds, 1);
  int64_t *nodes = d.nodes[d.current].get<int64_t>(d.capacity);
  const int64_t *deviceSeeds = d.seeds.upload(seeds, numSeeds);
  transferred += numSeeds * int64_t(sizeof(int64_t));
  if (numSeeds > 0) {
    GNNRT_BUILDER_LAUNCH(numSeeds, seedKernel)
    (deviceSeeds, numSeeds, d.localOf.get<int32_t>(numNodes), nodes);
    kernels::cuda::checkLaunch("sampler seeds");
  }
  out.nodes.assign(seeds, seeds + numSeeds);
  out.levelSizes.assign(size_t(numLayers) + 1, 0);
  out.levelSizes[size_t(numLayers)] = numSeeds;
  out.blocks.resize(size_t(numLayers));
  out.views.clear();
  edgesOf.assign(size_t(numLayers), 0);
  hostOffsets.assign(size_t(numLayers), {});
  batch = &out;
  layersLeft = numLayers;
  known = numSeeds;
}

void DeviceBlockBuilder::addHop(const int64_t *neighbors,
                                const int64_t *offsets, int64_t e,
                                int64_t longestRow) {
  if (!batch || layersLeft == 0)
    throwBuilderError("a hop added with no layer left to sample");
  Device &d = *device;
  const int layer = layersLeft - 1;
  const int64_t numDst = known;
  auto *blockOffsets = d.blockOffsets[size_t(layer)]->get<int64_t>(numDst + 1);
  if (offsets != blockOffsets)
    checkCuda(cudaMemcpyAsync(blockOffsets, offsets,
                              size_t(numDst + 1) * sizeof(int64_t),
                              cudaMemcpyDeviceToDevice, stream()),
              "copy of a block's offsets");
  auto *edgeSrc = d.blockSources[size_t(layer)]->get<int32_t>(e);
  int64_t added = 0;
  if (e > 0) {
    int32_t *localOf = d.localOf.get<int32_t>(numNodes);
    auto *firstAt = d.firstAt.get<unsigned long long>(numNodes);
    int64_t *nodes = d.nodes[d.current].get<int64_t>(d.capacity);
    GNNRT_BUILDER_LAUNCH(e, firstAppearanceKernel)
    (neighbors, e, localOf, firstAt);
    kernels::cuda::checkLaunch("sampler first appearances");
    int64_t *isNew = d.isNew.get<int64_t>(e);
    int64_t *newIndex = d.newIndex.get<int64_t>(e + 1);
    GNNRT_BUILDER_LAUNCH(e, newNodeFlagsKernel)
    (neighbors, e, localOf, firstAt, isNew);
    kernels::cuda::checkLaunch("sampler new nodes");
    kernels::cuda::exclusiveScan(
        isNew, e, newIndex,
        d.scanScratch.get<int64_t>(kernels::cuda::exclusiveScanScratch(e)));
    checkCuda(cudaMemcpyAsync(&added, newIndex + e, sizeof added,
                              cudaMemcpyDeviceToHost, stream()),
              "copy of a hop's new nodes' count");
    checkCuda(cudaStreamSynchronize(stream()), "sampler new nodes");
    transferred += int64_t(sizeof added);
    if (known + added > d.capacity) {
      // The nodes so far move to the other array, grown.
      const int other = 1 - d.current;
      d.capacity = 2 * (known + added);
      int64_t *grown = d.nodes[other].get<int64_t>(d.capacity);
      checkCuda(cudaMemcpyAsync(grown, nodes, size_t(known) * sizeof(int64_t),
                                cudaMemcpyDeviceToDevice, stream()),
                "copy of the batch's nodes");
      d.current = other;
      nodes = grown;
    }
    GNNRT_BUILDER_LAUNCH(e, appendNewNodesKernel)
    (neighbors, e, isNew, newIndex, known, localOf, nodes);
    kernels::cuda::checkLaunch("sampler new nodes");
    GNNRT_BUILDER_LAUNCH(e, localSourcesKernel)
    (neighbors, e, localOf, firstAt, edgeSrc);
    kernels::cuda::checkLaunch("sampler local sources");
    // Each destination's sources in ascending order (BlockBuilder's).
    kernels::cuda::sortSegments(
        blockOffsets, numDst, edgeSrc, e, longestRow,
        d.sortScratch.get<char>(
            int64_t(kernels::cuda::sortSegmentsScratch(numDst, e))));
    // The new nodes come to the host: the next hop's frontier there.
    batch->nodes.resize(size_t(known + added));
    if (added > 0)
      checkCuda(cudaMemcpyAsync(batch->nodes.data() + known, nodes + known,
                                size_t(added) * sizeof(int64_t),
                                cudaMemcpyDeviceToHost, stream()),
                "copy of a hop's new nodes");
    checkCuda(cudaStreamSynchronize(stream()), "sampler new nodes");
    transferred += added * int64_t(sizeof(int64_t));
  }
  known += added;
  batch->levelSizes[size_t(layer)] = known;
  edgesOf[size_t(layer)] = e;
  --layersLeft;
}

void DeviceBlockBuilder::addHop(const int64_t *first, int64_t firstCount,
                                const int64_t *second,
                                const std::vector<int64_t> &rowStarts,
                                const std::vector<int64_t> &offsets,
                                int64_t longestRow) {
  if (!batch || layersLeft == 0 ||
      int64_t(rowStarts.size()) != known ||
      int64_t(offsets.size()) != known + 1)
    throwBuilderError("a hop of " + std::to_string(rowStarts.size()) +
                      " rows for a frontier of " + std::to_string(known) +
                      " nodes and " + std::to_string(layersLeft) +
                      " layers left");
  Device &d = *device;
  const int64_t e = offsets.back();
  // The block's offsets are these: finish() need not bring them back.
  hostOffsets[size_t(layersLeft - 1)] = offsets;
  int64_t *deviceOffsets =
      d.blockOffsets[size_t(layersLeft - 1)]->upload(offsets.data(), known + 1);
  const int64_t *starts = d.rowStarts.upload(rowStarts.data(), known);
  transferred += (2 * known + 1) * int64_t(sizeof(int64_t));
  int64_t *placed = d.placed.get<int64_t>(e);
  if (known > 0 && e > 0) {
    GNNRT_BUILDER_LAUNCH(known, placeRowsKernel)
    (first, firstCount, second, starts, deviceOffsets, known, placed);
    kernels::cuda::checkLaunch("sampler rows in frontier order");
  }
  addHop(placed, deviceOffsets, e, longestRow);
}

void DeviceBlockBuilder::finish() {
  if (!batch || layersLeft != 0)
    throwBuilderError("batch finished with " + std::to_string(layersLeft) +
                      " layers not sampled");
  Device &d = *device;
  const int layers = int(edgesOf.size());
  std::vector<std::vector<int32_t>> hostSources(static_cast<size_t>(layers));
  for (int layer = 0; layer < layers; ++layer) {
    const int64_t numDst = batch->levelSizes[size_t(layer) + 1];
    const int64_t e = edgesOf[size_t(layer)];
    hostSources[size_t(layer)].resize(size_t(e));
    if (hostOffsets[size_t(layer)].empty()) {
      hostOffsets[size_t(layer)].resize(size_t(numDst) + 1);
      checkCuda(cudaMemcpyAsync(hostOffsets[size_t(layer)].data(),
                                d.blockOffsets[size_t(layer)]->get<int64_t>(0),
                                size_t(numDst + 1) * sizeof(int64_t),
                                cudaMemcpyDeviceToHost, stream()),
                "copy of a block");
      transferred += (numDst + 1) * int64_t(sizeof(int64_t));
    }
    if (e > 0)
      checkCuda(cudaMemcpyAsync(hostSources[size_t(layer)].data(),
                                d.blockSources[size_t(layer)]->get<int32_t>(0),
                                size_t(e) * sizeof(int32_t),
                                cudaMemcpyDeviceToHost, stream()),
                "copy of a block");
    transferred += e * int64_t(sizeof(int32_t));
  }
  if (known > 0) {
    GNNRT_BUILDER_LAUNCH(known, unmarkKernel)
    (d.nodes[d.current].get<int64_t>(d.capacity), known,
     d.localOf.get<int32_t>(numNodes));
    kernels::cuda::checkLaunch("sampler unmark");
  }
  checkCuda(cudaStreamSynchronize(stream()), "sampler");
  for (int layer = 0; layer < layers; ++layer)
    batch->blocks[size_t(layer)].assignCsr(
        batch->levelSizes[size_t(layer)], batch->levelSizes[size_t(layer) + 1],
        hostOffsets[size_t(layer)], hostSources[size_t(layer)]);
  batch->views.clear();
  for (const GraphStorage &b : batch->blocks)
    batch->views.push_back(b.view());
  batch = nullptr;
}

} // namespace gnnrt
