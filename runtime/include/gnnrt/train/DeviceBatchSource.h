//===- DeviceBatchSource.h - Sampled batches drawn on the device -*- C++ -*-===//
//
// What a CUDA trainer's sampled batches need from the device, behind an
// interface of host types, so that the batch assembly (MiniBatchAssembler,
// in the CPU-only gnnrt library) can use it without CUDA: the neighbour
// draws of a hop (DeviceNeighborSampler, the CPU sampler's draws) and the
// batch's input rows gathered into device memory from tables resident
// there: the rank's feature rows and the frequency partitioner's cache of
// hot remote rows. Rows fetched from other ranks are copied in.
//
// CompiledProgram::makeDeviceBatchSource makes one (gnnc --target=cuda,
// sampled programs); the train step then reads a batch's input rows where
// the source gathered them (SampledBatch::deviceFeatures), and no feature
// row crosses from the host unless another rank sent it. Over a device
// communicator (NCCL) the rows and neighbours other ranks ask for are sent
// from device buffers, and received into them, and each hop is
// deduplicated there too: nothing crosses to the host but the counts, the
// requested ids, each hop's new nodes and the finished blocks.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TRAIN_DEVICEBATCHSOURCE_H
#define GNNRT_TRAIN_DEVICEBATCHSOURCE_H

#include "gnnrt/sample/Sampler.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

class DeviceBatchSource {
public:
  virtual ~DeviceBatchSource() = default;

  /// DeviceNeighborSampler::sampleRows on the adjacency the source was made
  /// for (relationFanouts: a graph sampled per relation's fanouts of the
  /// hop's layer, or null). Thread-safe (calls take turns).
  virtual void sampleRows(const int64_t *rows, const int64_t *nodes,
                          int64_t n, int64_t fanout,
                          const int64_t *relationFanouts, uint64_t drawKey,
                          std::vector<int64_t> &offsets,
                          std::vector<int64_t> &neighbors) = 0;

  /// A whole batch in one process: DeviceNeighborSampler::sampleBatch
  /// (every hop drawn and deduplicated on the device; the same blocks as
  /// sampleRows hop by hop through a BlockBuilder). Thread-safe (calls
  /// take turns).
  virtual void sampleBatch(const int64_t *seeds, int64_t numSeeds,
                           const std::vector<int64_t> &fanouts,
                           const SampleKey &key, SampledBatch &out) = 0;

  /// The tables input rows are gathered from, [rows x width] each (host
  /// memory; `cache` may be empty). Copies them to the device when both
  /// fit the budget ($GNNRT_DEVICE_FEATURE_BUDGET_MB if set, else half of
  /// the device's free memory: the rest is for the model's workspace and
  /// the batches) and returns true; otherwise keeps nothing and returns
  /// false (the inputs are then gathered on the host). rowPlacement()
  /// says which, and the sizes.
  virtual bool placeRowTables(const float *features, int64_t rows,
                              const float *cache, int64_t cacheRows,
                              int64_t width) = 0;
  virtual std::string rowPlacement() const = 0;

  /// The tables of a batch's rows.
  enum class Table { Features, Cache };

  /// `batch`'s device buffer of input rows, [rows x width] of the placed
  /// tables' width: its deviceStorage, grown if needed, so a pipeline's
  /// batches in flight never share one.
  virtual float *batchRows(SampledBatch &batch, int64_t rows) = 0;
  /// out[toRows[i]] = table[fromRows[i]] (host index arrays; out from
  /// batchRows).
  virtual void copyRows(Table table, const int64_t *fromRows,
                        const int64_t *toRows, int64_t count, float *out) = 0;
  /// out[toRows[i]] = hostRows[i] (rows another rank sent).
  virtual void copyHostRows(const float *hostRows, const int64_t *toRows,
                            int64_t count, float *out) = 0;
  /// Waits until the rows copied into batch buffers are in place (before
  /// the batch is handed to a step).
  virtual void finishRows() = 0;

  /// The device side of the all-to-alls under a communicator that carries
  /// device buffers (NCCL: Communicator::carriesDeviceBuffers), so that
  /// draws and rows made on this device go to the ranks that asked for
  /// them without crossing to the host. One assembler at a time uses them
  /// (the one on the device communicator).
  ///
  /// sampleRows with the neighbours left on the device: returns them, in a
  /// buffer of the source's, valid until the next call.
  virtual const int64_t *sampleRowsToDevice(const int64_t *rows,
                                            const int64_t *nodes, int64_t n,
                                            int64_t fanout,
                                            const int64_t *relationFanouts,
                                            uint64_t drawKey,
                                            std::vector<int64_t> &offsets) = 0;
  /// The source's device buffers for the exchanges: the neighbours
  /// received, the rows this rank sends, the rows received. At least
  /// `bytes` long; valid until the next call for the same use.
  enum class Exchange { ReceivedNeighbors, SentRows, ReceivedRows };
  virtual void *exchangeBuffer(Exchange use, size_t bytes) = 0;
  /// host[0 .. bytes) = device[0 .. bytes) (the neighbours received: the
  /// blocks are built on the host).
  virtual void copyToHost(const void *device, size_t bytes, void *host) = 0;
  /// out[toRows[i]] = rows[i] (device rows another rank sent; host index
  /// array; out from batchRows).
  virtual void copyDeviceRows(const float *rows, const int64_t *toRows,
                              int64_t count, float *out) = 0;

  /// A rank's batch under mpirun deduplicated on the device
  /// (DeviceBlockBuilder), so that its neighbour lists stay there:
  /// startBatch (out.nodes = the seeds), then per hop addHop of the rank's
  /// own draws (the buffer the last sampleRowsToDevice returned, ownCount
  /// ids) and the neighbours its peers sent (the ReceivedNeighbors buffer):
  /// frontier row j's offsets[j + 1] - offsets[j] neighbours start at
  /// rowStarts[j] of the two concatenated (host arrays); the hop's new
  /// nodes are appended to out.nodes. finishBatch brings the blocks to the
  /// host. One assembler at a time (the one on the device communicator).
  virtual void startBatch(const int64_t *seeds, int64_t numSeeds,
                          int numLayers, SampledBatch &out) = 0;
  virtual void addHop(const int64_t *own, int64_t ownCount,
                      const int64_t *received,
                      const std::vector<int64_t> &rowStarts,
                      const std::vector<int64_t> &offsets,
                      int64_t longestRow) = 0;
  virtual void finishBatch() = 0;

  /// Bytes the draws and the deduplication copied between host and device
  /// so far (--stats): the drawn and received neighbour lists brought to
  /// the host for a BlockBuilder there (none when hops are deduplicated on
  /// the device), and the rest (the draws' rows, counts and offsets, each
  /// hop's new nodes, the finished blocks).
  struct Transfers {
    int64_t neighborLists = 0, other = 0;
  };
  virtual Transfers samplingTransfers() const = 0;

  /// Where the draws read the graph, for --stats: its CSR in device memory,
  /// or, when it exceeds the graph budget ($GNNRT_DEVICE_GRAPH_BUDGET_MB
  /// if set, else half of the device's free memory), read zero-copy from
  /// mapped pinned host memory (the same draws).
  virtual std::string graphPlacement() const = 0;

  /// Where the draws run, for --stats: "CUDA device 0".
  virtual std::string deviceName() const = 0;
};

} // namespace gnnrt

#endif // GNNRT_TRAIN_DEVICEBATCHSOURCE_H
