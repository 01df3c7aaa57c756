//===- DeviceSampler.h - Neighbour sampling on a CUDA device ----*- C++ -*-===//
//
// GPU neighbour sampling, as GraphLearn-for-PyTorch does it: the graph's
// in-neighbour CSR is copied to device memory once (or read zero-copy from
// pinned host memory when it does not fit, below), and each hop's draws
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
// sampleRows is one hop over any rows (a rank's own rows of a partition,
// with their global ids as the draws' streams): the trainer's batches
// (MiniBatchAssembler) sample hop by hop through it, single process and
// per rank under mpirun.
//
// gatherFeatureRows copies a batch's input rows from a feature matrix in
// device memory, so that a batch's features need not cross from the host;
// copyFeatureRows places rows anywhere in the batch (owned, cached and
// fetched rows come from three tables).
//
// sampleRowsToDevice leaves a hop's neighbours in device memory, for a
// peer that asked for them (sent over NCCL by MiniBatchAssembler).
//
// A graph whose CSR does not fit the device budget stays in host memory,
// pinned and mapped (cudaHostAllocMapped), and the same kernels read it
// there zero-copy, as GLT does for graphs larger than the GPU.
//
// sampleBatch deduplicates each hop on the device too (DeviceBlockBuilder:
// BlockBuilder's numbering, new nodes in order of first appearance, each
// destination's sources sorted), so a hop's neighbour lists never cross to
// the host. sampleRows and sampleRowsToDevice serve one hop to a caller
// that builds the blocks itself (a rank under mpirun, whose frontier spans
// the ranks: MiniBatchAssembler, with a DeviceBlockBuilder of its
// DeviceBatchSource).
//
// A typed graph's draws report each edge's relation with its neighbour;
// its blocks are built by the caller's BlockBuilder, which keeps them.
// Relations sampled on their own (per_relation, relation_fanout) are drawn
// as the CPU draws them: each (row, relation) pair of the graph's
// RelationPairs on its own, relation r of node v from stream
// v * relations + r, with the layer's relation fanouts when given.
//
// The CUDA half of sample/ (lib/sample/cuda/), beside the CPU sampler
// (lib/sample/cpu/): both implement NeighborSampling. It launches the
// device kernels' primitives, hence sample's use of kernels. Only in the
// CUDA libraries (gnnrt_kernels_cuda and its emulated twin).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SAMPLE_CUDA_DEVICESAMPLER_H
#define GNNRT_SAMPLE_CUDA_DEVICESAMPLER_H

#include "gnnrt/sample/Sampler.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace gnnrt {

class DeviceNeighborSampler final : public NeighborSampling {
public:
  /// Copies `adj` (a partition's rows with their globalIds, or row v =
  /// node v; typed or not, sampled per relation or not: its RelationPairs
  /// go along) to the current device: to device memory when its arrays
  /// fit `graphBudgetBytes` (negative: no bound), else to mapped pinned
  /// host memory that the kernels read zero-copy over the bus (the same
  /// draws, slower). Throws DataError for a bad fanout, DeviceError when
  /// CUDA fails.
  DeviceNeighborSampler(Adjacency adj, int64_t numGlobalNodes,
                        SamplerOptions options, int64_t graphBudgetBytes = -1);
  ~DeviceNeighborSampler();
  DeviceNeighborSampler(const DeviceNeighborSampler &) = delete;
  DeviceNeighborSampler &operator=(const DeviceNeighborSampler &) = delete;

  /// NeighborSampler::sample with the draws made on the device. Needs
  /// row v = node v (a DataError otherwise).
  void sample(const int64_t *seeds, int64_t numSeeds, const SampleKey &key,
              BlockBuilder &builder, SampledBatch &out) const override;

  /// sample() with each hop deduplicated on the device as well (the same
  /// blocks as BlockBuilder's): the frontier stays in device memory from
  /// hop to hop, and only the finished batch's nodes and blocks come to
  /// the host. `fanouts` per layer, layer 0 first (-1: all). Needs row v =
  /// node v and an untyped graph. Calls from several threads take turns.
  void sampleBatch(const int64_t *seeds, int64_t numSeeds,
                   const std::vector<int64_t> &fanouts, const SampleKey &key,
                   SampledBatch &out) const;

  /// One hop: the sampled in-neighbours (global ids) of rows[j], drawn
  /// from stream nodes[j] (the row's global id; null: rows are node ids)
  /// of `drawKey` (sampleDrawKey of the batch's key and the layer), as
  /// sampleNeighbors draws them, at neighbors[offsets[j] ..
  /// offsets[j + 1]); of a typed graph each as neighbour * numRelations +
  /// the relation of its edge (sampleNeighbors' types). `fanout` -1: all.
  /// Sampled per relation, relation r draws relationFanouts[r] when given
  /// (the layer's row of RelationFanouts), else `fanout`. Host arrays in
  /// and out; calls from several threads take turns.
  void sampleRows(const int64_t *rows, const int64_t *nodes, int64_t n,
                  int64_t fanout, uint64_t drawKey,
                  std::vector<int64_t> &offsets,
                  std::vector<int64_t> &neighbors,
                  const int64_t *relationFanouts = nullptr) const;
  /// sampleRows with the neighbours left in device memory: they are
  /// copied to `room(total)` (device memory for at least `total` ids), so
  /// that they can be sent to the rank that asked for them without
  /// crossing to the host; the offsets come back to the host (a hop's
  /// counts are read there anyway).
  void sampleRowsToDevice(const int64_t *rows, const int64_t *nodes, int64_t n,
                          int64_t fanout, uint64_t drawKey,
                          std::vector<int64_t> &offsets,
                          const std::function<int64_t *(int64_t)> &room,
                          const int64_t *relationFanouts = nullptr) const;
  const SamplerOptions &options() const override { return opts; }
  /// Whether the CSR is read zero-copy from pinned host memory, and its
  /// bytes.
  bool readsZeroCopy() const { return zeroCopy; }
  int64_t graphBytes() const { return csrBytes; }
  /// Bytes copied between host and device so far (--stats): sampleRows'
  /// neighbour lists brought to the host, and the rest (the draws' rows,
  /// counts and offsets, sampleBatch's new nodes and blocks).
  int64_t neighborListBytes() const { return neighborListsCopied; }
  int64_t transferBytes() const { return transferred; }

private:
  struct Device;
  /// The two kernels of a hop: sets `offsets` and returns the device array
  /// of the neighbours (the sampler's, valid while `turn` is held).
  const int64_t *drawHop(const int64_t *rows, const int64_t *nodes, int64_t n,
                         int64_t fanout, const int64_t *relationFanouts,
                         uint64_t drawKey,
                         std::vector<int64_t> &offsets,
                         std::unique_lock<std::mutex> &turn) const;
  int64_t numNodes;
  SamplerOptions opts;
  bool rowsAreNodes = false;
  bool typedRows = false;
  bool zeroCopy = false;
  int64_t csrBytes = 0;
  mutable std::atomic<int64_t> transferred{0}, neighborListsCopied{0};
  std::unique_ptr<Device> device;
};

/// out[i] = features[nodes[i]] for i < count, rows of `width` floats; every
/// pointer device memory. Queued on the current stream.
void gatherFeatureRows(const float *features, int64_t width,
                       const int64_t *nodes, int64_t count, float *out);

/// out[toRows[i]] = table[fromRows[i]] for i < count (toRows null: row i),
/// rows of `width` floats; every pointer device memory. Queued on the
/// current stream.
void copyFeatureRows(const float *table, int64_t width,
                     const int64_t *fromRows, const int64_t *toRows,
                     int64_t count, float *out);

} // namespace gnnrt

#endif // GNNRT_SAMPLE_CUDA_DEVICESAMPLER_H
