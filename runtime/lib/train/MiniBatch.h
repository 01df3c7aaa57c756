//===- MiniBatch.h - sampled batches of one rank's training data -*- C++ -*-===//
//
// Internal to gnnrt. Turns seed nodes into a SampledBatch a train step can
// run on: the blocks, the input features of level 0 and the seeds' labels.
//
// A single process samples its whole graph and copies feature rows. A rank
// of a distributed run owns some nodes and their in-edges, so each hop of
// sampling and the final feature fetch are collectives (SAR's approach
// rather than DistDGL's RPC): frontier nodes owned elsewhere are sent to
// their owners with one all_to_all, the owners sample them with the same
// random draws the requester would have made (draws are keyed by node, not
// by who samples), and the neighbour lists come back with a second one.
// Remote input rows are fetched the same way unless the rank's feature
// cache (frequency partitioning) holds them. Every rank calls assemble()
// the same number of times, with an empty seed list when it has no batch.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_MINIBATCH_H
#define GNNRT_LIB_TRAIN_MINIBATCH_H

#include "TrainingData.h"
#include "gnnrt/comm/Communicator.h"
#include "gnnrt/sample/Sampler.h"

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
  /// Input rows owned by another rank, and how many the cache served.
  int64_t remoteRows = 0, cachedRows = 0;
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

  /// Learned input rows change every step: remote rows are then always
  /// fetched from their owner, never served from the feature cache.
  void bypassFeatureCache() { useCache = false; }

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
  void sampleHop(BlockBuilder &builder, int layer, int64_t fanout,
                 const SampleKey &key, SamplingTraffic &traffic);

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
};

/// Each rank's value of `local` (collective).
std::vector<int64_t> gatherCounts(Communicator &comm, int64_t local);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_MINIBATCH_H
