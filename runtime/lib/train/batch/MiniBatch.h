//===- MiniBatch.h - sampled batches of one rank's training data -*- C++
//-*-===//
//
// Internal to gnnrt. Turns seed nodes into a SampledBatch a train step can
// run on: the blocks, the input features of level 0 and the seeds' labels.
//
// A single process samples its whole graph and copies feature rows. A rank
// of a distributed run owns some nodes and their in-edges, so each hop of
// sampling and the final feature fetch are collectives (SAR's approach
// rather than DistDGL's RPC): frontier nodes owned elsewhere are sent to
// their owners with one all_to_all, the owners sample them with the draws
// one process would make (draws are keyed by node, not by who samples, and
// a partition lists in-edges in the whole graph's order), and the neighbour
// lists come back with a second one. Remote input rows are fetched the same way
// unless the rank's feature cache (frequency partitioning) holds them. Every
// rank calls assemble() the same number of times, with an empty seed list when
// it has no batch.
//
// A CUDA trainer hands the assembler a DeviceBatchSource: the draws of the
// nodes a rank samples (its own frontier nodes and its peers' requests; in
// one process all of them) are then made on the device, the same draws,
// and the input rows are gathered into device memory from the feature
// rows and the cache resident there, with the rows fetched from other
// ranks copied in. The collectives do not change; over a communicator that
// carries device buffers (NCCL), the neighbours a rank draws for its peers
// and the feature rows it serves them are sent from device memory and
// received into it, and each hop is deduplicated there (DeviceBlockBuilder
// behind DeviceBatchSource::addHop), so only the counts, the requested
// ids, each hop's new nodes (the next hop's requests are routed on the
// host) and the finished blocks cross to the host.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_MINIBATCH_H
#define GNNRT_LIB_TRAIN_MINIBATCH_H

#include "TrainingData.h"
#include "gnnrt/comm/Communicator.h"
#include "gnnrt/sample/Sampler.h"
#include "gnnrt/train/DeviceBatchSource.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace gnnrt {

/// What assembling batches moved, per rank (summed over calls).
struct SamplingTraffic {
  int64_t batches = 0, seeds = 0, sampledEdges = 0;
  /// all_to_all bytes sent + received: neighbour requests and replies,
  /// feature requests and feature rows.
  int64_t sampleRequestBytes = 0, sampleReplyBytes = 0;
  int64_t featureRequestBytes = 0, featureReplyBytes = 0;
  /// Of the reply and row bytes, those sent and received between device
  /// buffers (a CUDA trainer over NCCL), never crossing to the host.
  int64_t deviceReplyBytes = 0, deviceRowBytes = 0;
  /// Input rows owned by another rank, and how many the cache served.
  int64_t remoteRows = 0, cachedRows = 0;
  /// Input rows copied into batches on the host, and the batches whose
  /// first aggregation read the others in place (readInputRowsInPlace).
  int64_t copiedRows = 0, batchesInPlace = 0;
  double seconds = 0;
  void add(const SamplingTraffic &o);
};

class MiniBatchAssembler {
public:
  /// `data`: this rank's nodes (a partition, or the whole graph);
  /// `numGlobalNodes`: the id space. Collective (builds the partition book)
  /// in a distributed run.
  /// `perRelation`: each relation of a node draws its own fanout (a typed
  /// graph's `per_relation = true`), from `relationFanouts` for the
  /// relations that have their own (relationFanoutsOf; empty: none).
  MiniBatchAssembler(const TrainingData &data, int64_t numGlobalNodes,
                     bool replace, bool perRelation, uint64_t seed,
                     Communicator &comm,
                     RelationFanouts relationFanouts = {});

  /// The global ids of this rank's nodes of a split.
  std::vector<int64_t> globalIds(const std::vector<int64_t> &localIds) const;

  /// Whether assemble() gathers the batch's input rows, or leaves that to a
  /// later gatherInputs() (learned inputs: a batch sampled ahead must read
  /// the rows the steps before it wrote).
  enum class Inputs { Gather, Defer };

  /// Samples `fanouts` (layer 0 first; -1 = all) around `seeds` (global ids
  /// owned here) and gathers the inputs into `out` (unless deferred).
  /// Collective when distributed; thread-safe (with a builder per thread)
  /// when not.
  void assemble(const std::vector<int64_t> &seeds,
                const std::vector<int64_t> &fanouts, const SampleKey &key,
                BlockBuilder &builder, SampledBatch &out,
                SamplingTraffic &traffic, Inputs inputs = Inputs::Gather);

  /// Fills out.features and out.labels for out's sampled nodes. Collective
  /// when distributed.
  void gatherInputs(SampledBatch &out, SamplingTraffic &traffic);

  /// From now on, gatherInputs copies only block 0's destinations' rows
  /// and points the batch at the dataset's rows for the first aggregation
  /// (SampledBatch::inputTable), where `on` and inputRowsInPlaceable().
  void readInputRowsInPlace(bool on) {
    inputRowsInPlace = on && inputRowsInPlaceable();
  }
  /// Whether a batch's input rows can be read in place: one process with
  /// every feature row resident on the host, gathered there.
  bool inputRowsInPlaceable() const {
    return !distributed() && !deviceRows &&
           int64_t(data.data.features.size()) ==
               data.data.numNodes * data.data.numFeatures;
  }

  /// Learned input rows change every step: remote rows are then always
  /// fetched from their owner, never served from the feature cache.
  void bypassFeatureCache() { useCache = false; }

  /// Whether the all-to-alls move device buffers: a device draws the
  /// samples and the communicator carries its buffers (NCCL).
  /// $GNNRT_SAMPLING_EXCHANGE=host keeps them host buffers (staged by the
  /// communicator), to compare the two.
  bool exchangesOnDevice() const {
    return device && distributed() && comm.carriesDeviceBuffers() &&
           !hostExchange;
  }

  /// Whether each hop is deduplicated on the device too: an untyped graph
  /// (a typed block keeps its edges' relations, which the host's
  /// BlockBuilder does), in one process or, under mpirun, with the
  /// neighbours exchanged between device buffers (exchangesOnDevice).
  /// $GNNRT_SAMPLING_DEDUP=host keeps it on the host, to compare the two.
  bool deduplicatesOnDevice() const {
    return device && !adjacency.edgeType && !hostDedup &&
           (!distributed() || exchangesOnDevice());
  }
  /// Whether $GNNRT_SAMPLING_DEDUP=host asked for the host's deduplication.
  bool hostDedupRequested() const { return hostDedup; }
  /// The adjacency sampled (rows of this rank's nodes).
  const Adjacency &sampledAdjacency() const { return adjacency; }
  /// Draws on `source` from now on; with
  /// `rowsOnDevice` (its row tables placed), batches' input rows are
  /// gathered there too (SampledBatch::deviceFeatures).
  void sampleOn(DeviceBatchSource &source, bool rowsOnDevice) {
    device = &source;
    deviceRows = rowsOnDevice;
  }
  /// The host's rows of the feature cache in use (empty when bypassed).
  const std::vector<float> &cacheInUse() const;
  int64_t cacheRowsInUse() const;

  /// Whether relations with fanouts of their own draw them (training), or
  /// every relation draws the fanouts assemble() is given (inference's
  /// whole neighbourhoods, -1). On by default; every rank sets the same.
  void useRelationFanouts(bool on) {
    if (adjacency.perRelation)
      adjacency.relationFanouts =
          on && relationFanouts.numRelations > 0 ? &relationFanouts : nullptr;
  }

  /// The owners' side of a batch's input-row gradients (learned inputs
  /// under mpirun): sends gradient row i ([rows, width]) of global node
  /// ids[i] to its owner, and sets `ownRows` to this rank's rows (distinct
  /// local row indices, in order of first arrival) that any rank's batch
  /// read, with `ownGrad` their gradients summed in rank order. Collective.
  void sendRowGradients(const int64_t *ids, int64_t rows, const float *grad,
                        int64_t width, std::vector<int64_t> &ownRows,
                        std::vector<float> &ownGrad,
                        SamplingTraffic &traffic);

  int64_t numGlobalNodes() const { return numNodes; }
  bool distributed() const { return comm.size() > 1; }

private:
  int64_t localRow(int64_t globalId) const;
  /// One hop of a distributed batch around frontier[0..n): into `builder`,
  /// or with a null builder into the device's (deduplicatesOnDevice()).
  void sampleHop(const int64_t *frontier, int64_t n, BlockBuilder *builder,
                 int layer, int64_t fanout, const SampleKey &key,
                 SamplingTraffic &traffic);
  /// sampleHop's end on the device: draws the rank's own frontier rows
  /// (position[j] < 0) and adds them with the peers' replies (`received`,
  /// gotCounts per request slot) to the device's batch.
  void addHopOnDevice(const int64_t *frontier, int64_t n,
                      const std::vector<int64_t> &position,
                      const std::vector<int64_t> &gotCounts, int layer,
                      int64_t fanout, const SampleKey &key,
                      const int64_t *received);
  /// builder.addHop of drawn neighbours (of a typed graph, neighbour *
  /// relations + relation: split into the neighbours and their relations).
  void addDrawnHop(BlockBuilder &builder, const std::vector<int64_t> &offsets,
                   std::vector<int64_t> &neighbors) const;
  /// The sampled neighbours of nodes[0..n) (owned here, or any in one
  /// process) with `key`'s draws of `layer`: node k's at
  /// out[offsets[k] .. offsets[k + 1]) (of a typed graph, neighbour *
  /// relations + relation). On the device when there is one.
  void drawNeighbors(const int64_t *nodes, int64_t n, int layer,
                     int64_t fanout, const SampleKey &key,
                     std::vector<int64_t> &offsets,
                     std::vector<int64_t> &out) const;
  /// Requests out's rows remoteRows[k] (row indices of the batch) from
  /// their owners remoteOwners[k] (sendCounts per owner) and serves the
  /// peers' requests; returns the rows received, row k being the batch's
  /// row rowOf[k]. Sets out.remoteRows. Collective.
  std::vector<float> fetchRemoteRows(SampledBatch &out,
                                     const std::vector<int64_t> &remoteRows,
                                     const std::vector<int32_t> &remoteOwners,
                                     const std::vector<int64_t> &sendCounts,
                                     std::vector<int64_t> &rowOf,
                                     SamplingTraffic &traffic);
  /// The request half of a feature fetch: sends the requests (as
  /// fetchRemoteRows) and returns the local rows the peers asked this rank
  /// for, grouped by peer, with their counts in `askedCounts`. Collective.
  std::vector<int64_t> requestRemoteRows(
      SampledBatch &out, const std::vector<int64_t> &remoteRows,
      const std::vector<int32_t> &remoteOwners,
      const std::vector<int64_t> &sendCounts, std::vector<int64_t> &rowOf,
      std::vector<int64_t> &askedCounts, SamplingTraffic &traffic);
  /// fetchRemoteRows over device buffers (exchangesOnDevice()): the asked
  /// rows are copied from the device's feature table and the received
  /// ones into `rowsOut` (the batch's device rows) on the device.
  void fetchRemoteRowsOnDevice(SampledBatch &out,
                               const std::vector<int64_t> &remoteRows,
                               const std::vector<int32_t> &remoteOwners,
                               const std::vector<int64_t> &sendCounts,
                               float *rowsOut, SamplingTraffic &traffic);
  /// The fanouts of `layer`'s relations when relations draw their own
  /// (relation_fanout, while useRelationFanouts), else null.
  const int64_t *relationFanoutsOf(int layer) const;
  /// The device rows of global ids nodes[0..n) for the device's draws.
  std::vector<int64_t> deviceRowsOf(const int64_t *nodes, int64_t n) const;
  /// gatherInputs' rows when they are gathered on the device.
  void gatherRowsOnDevice(SampledBatch &out, SamplingTraffic &traffic);

  const TrainingData &data;
  int64_t numNodes;
  bool replace;
  uint64_t seed;
  Communicator &comm;
  /// What adjacency.relationFanouts points to (when sampling per relation
  /// with relations of their own fanouts).
  RelationFanouts relationFanouts;
  Adjacency adjacency;
  /// The partition book (distributed only): each node's owner and its row
  /// among the owner's nodes.
  std::vector<int32_t> owner;
  std::vector<int64_t> ownerRow;
  /// Cached remote feature rows, by global id.
  std::unordered_map<int64_t, int64_t> cacheRow;
  bool useCache = true;
  /// A CUDA trainer's draws and input rows (sampleOn); not owned.
  DeviceBatchSource *device = nullptr;
  bool deviceRows = false;
  /// $GNNRT_SAMPLING_EXCHANGE=host (exchangesOnDevice).
  bool hostExchange = false;
  /// $GNNRT_SAMPLING_DEDUP=host (deduplicatesOnDevice).
  bool hostDedup = false;
  /// readInputRowsInPlace.
  bool inputRowsInPlace = false;
};

/// Each rank's value of `local` (collective).
std::vector<int64_t> gatherCounts(Communicator &comm, int64_t local);

/// Every rank's `local` values, concatenated in rank order (collective).
std::vector<int64_t> gatherAll(Communicator &comm,
                               const std::vector<int64_t> &local);

/// Byte offsets of per-peer runs of `elementBytes`-sized elements.
std::vector<int64_t> byteOffsets(const std::vector<int64_t> &counts,
                                 int64_t elementBytes);

/// What every peer sends this rank, given what this rank sends each (one
/// int64 per peer each way; collective); adds the bytes to `bytes`.
std::vector<int64_t> exchangeCounts(Communicator &comm,
                                    const std::vector<int64_t> &sendCounts,
                                    int64_t &bytes);

/// Sends send[q] (grouped by peer, counts sendCounts, `width` values per
/// element) and receives what the peers send (counts recvCounts);
/// collective; adds the bytes both ways to `bytes`.
template <typename T>
std::vector<T> exchange(Communicator &comm, const std::vector<T> &send,
                        const std::vector<int64_t> &sendCounts,
                        const std::vector<int64_t> &recvCounts,
                        int64_t width, int64_t &bytes) {
  const int64_t element = int64_t(sizeof(T)) * width;
  const std::vector<int64_t> sendOffsets = byteOffsets(sendCounts, element),
                             recvOffsets = byteOffsets(recvCounts, element);
  std::vector<T> recv(size_t(recvOffsets.back() / int64_t(sizeof(T))));
  comm.allToAllV(send.data(), sendOffsets, recv.data(), recvOffsets);
  bytes += sendOffsets.back() + recvOffsets.back();
  return recv;
}

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_MINIBATCH_H
