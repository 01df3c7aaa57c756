//===- DeviceBlockBuilder.h - BlockBuilder on a CUDA device -----*- C++ -*-===//
//
// BlockBuilder's deduplication (gnnrt/sample/Sampler.h) run by device
// kernels: a batch's nodes numbered in order of first appearance, hop by
// hop, each edge's source its neighbour's local id, each destination's
// sources sorted. The same blocks as BlockBuilder's, edge for edge, so a
// batch's neighbour lists never cross to the host: only each hop's new
// nodes come back (the next hop's frontier, which a rank under mpirun
// routes to the nodes' owners) and the finished blocks.
//
// The first appearance of node v is the smallest position k with
// neighbors[k] == v (an atomicMin into a table by global id), so the
// numbering does not depend on thread timing; the new nodes' places are a
// prefix sum over many blocks and each destination's sources are sorted by
// a block of its own when it has many (gnnrt/kernels/cuda/Scan.h,
// SegmentSort.h).
//
// DeviceNeighborSampler::sampleBatch builds one process's batches with
// one; a rank under mpirun (DeviceBatchSource::addHop) gives it each hop
// as two device arrays, its own draws and those its peers sent.
// Only in the CUDA libraries (gnnrt_kernels_cuda and its emulated twin).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SAMPLE_CUDA_DEVICEBLOCKBUILDER_H
#define GNNRT_SAMPLE_CUDA_DEVICEBLOCKBUILDER_H

#include "gnnrt/sample/Sampler.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace gnnrt {

class DeviceBlockBuilder {
public:
  /// Ids in [0, numGlobalNodes). The device tables (12 bytes per id) are
  /// allocated by the first start().
  explicit DeviceBlockBuilder(int64_t numGlobalNodes);
  ~DeviceBlockBuilder();
  DeviceBlockBuilder(const DeviceBlockBuilder &) = delete;
  DeviceBlockBuilder &operator=(const DeviceBlockBuilder &) = delete;

  /// BlockBuilder::start: out.nodes = the seeds (host ids, checked as
  /// BlockBuilder checks them: a DataError naming a repeated or
  /// out-of-range seed).
  void start(const int64_t *seeds, int64_t numSeeds, int numLayers,
             SampledBatch &out);
  /// The batch's nodes so far in device memory: the next hop's frontier,
  /// out.nodes on the host.
  const int64_t *frontier() const;
  int64_t frontierSize() const { return known; }

  /// BlockBuilder::addHop of neighbours in device memory: frontier row j's
  /// at neighbors[offsets[j] .. offsets[j + 1]) (device arrays; offsets of
  /// frontierSize() + 1, numEdges = the last). `longestRow` bounds a row's
  /// length when known (-1: not). The new nodes are appended to out.nodes.
  void addHop(const int64_t *neighbors, const int64_t *offsets,
              int64_t numEdges, int64_t longestRow);
  /// addHop of rows drawn into two device arrays (a rank's own draws, and
  /// those its peers sent): row j's offsets[j + 1] - offsets[j] neighbours
  /// at first + rowStarts[j] when rowStarts[j] < firstCount, else at
  /// second + rowStarts[j] - firstCount (host arrays).
  void addHop(const int64_t *first, int64_t firstCount, const int64_t *second,
              const std::vector<int64_t> &rowStarts,
              const std::vector<int64_t> &offsets, int64_t longestRow);
  /// BlockBuilder::finish: the blocks come to the host, the tables are
  /// cleared for the next batch.
  void finish();

  /// Bytes copied between host and device so far (--stats).
  int64_t transferBytes() const { return transferred; }

private:
  struct Device;
  int64_t numNodes;
  SampledBatch *batch = nullptr;
  int layersLeft = 0;
  int64_t known = 0;
  std::vector<int64_t> edgesOf;
  /// Per layer, the block's offsets when the caller gave them on the host
  /// (empty: only on the device).
  std::vector<std::vector<int64_t>> hostOffsets;
  std::atomic<int64_t> transferred{0};
  std::unique_ptr<Device> device;
};

} // namespace gnnrt

#endif // GNNRT_SAMPLE_CUDA_DEVICEBLOCKBUILDER_H
