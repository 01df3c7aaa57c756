//===- DeviceSampler.h - Neighbour sampling on a CUDA device ----*- C++ -*-===//
//
// GPU neighbour sampling, as GraphLearn-for-PyTorch does it: the graph's
// in-neighbour CSR is copied to device memory once, and each hop's draws
// are made by kernels, one thread per frontier node: a first kernel counts
// each node's sampled neighbours, a second writes them at its offset.
//
// The draws are the CPU sampler's (gnnrt/sample/Sampler.h): the same
// Philox key per (seed, epoch, batch, layer) (sampleDrawKey), node v
// reading stream v of it through the same CounterRng, the same rules (a
// row with degree <= fanout taken whole without replacement, Floyd's
// algorithm otherwise, independent draws with replacement). The hop's
// neighbour lists then go through the same BlockBuilder, so a batch's
// blocks equal NeighborSampler's for the same key, edge for edge.
//
// gatherFeatureRows copies a batch's input rows from a feature matrix in
// device memory, so that a batch's features need not cross from the host.
//
// Not yet: deduplication on the device (the BlockBuilder runs on the host,
// so each hop's neighbour ids are copied back), typed (heterogeneous)
// graphs, and a graph larger than device memory (pinned host memory read
// zero-copy).
//
// Under train/ because it joins two concerns that do not use each other,
// sampling (BlockBuilder) and the device kernels. Only in the CUDA
// libraries (gnnrt_kernels_cuda and its emulated twin).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TRAIN_DEVICESAMPLER_H
#define GNNRT_TRAIN_DEVICESAMPLER_H

#include "gnnrt/sample/Sampler.h"

#include <memory>

namespace gnnrt {

class DeviceNeighborSampler {
public:
  /// Copies `adj` (row v = node v, untyped) to the current device. Throws
  /// DataError for a typed adjacency or a bad fanout, DeviceError when
  /// CUDA fails.
  DeviceNeighborSampler(Adjacency adj, int64_t numGlobalNodes,
                        SamplerOptions options);
  ~DeviceNeighborSampler();
  DeviceNeighborSampler(const DeviceNeighborSampler &) = delete;
  DeviceNeighborSampler &operator=(const DeviceNeighborSampler &) = delete;

  /// NeighborSampler::sample with the draws made on the device.
  void sample(const int64_t *seeds, int64_t numSeeds, const SampleKey &key,
              BlockBuilder &builder, SampledBatch &out) const;
  const SamplerOptions &options() const { return opts; }

private:
  struct Device;
  int64_t numNodes;
  SamplerOptions opts;
  std::unique_ptr<Device> device;
};

/// out[i] = features[nodes[i]] for i < count, rows of `width` floats; every
/// pointer device memory. Queued on the current stream.
void gatherFeatureRows(const float *features, int64_t width,
                       const int64_t *nodes, int64_t count, float *out);

} // namespace gnnrt

#endif // GNNRT_TRAIN_DEVICESAMPLER_H
