//===- Sampler.h - Neighbor sampling into message-flow blocks ----*- C++ -*-===//
//
// Mini-batch training samples, for a batch of seed nodes, a fixed number of
// in-neighbours per node and layer (GraphSAGE's fanouts) and trains on the
// resulting message-flow graphs ("blocks"), one per layer:
//
//   level L  = the seeds (the batch),
//   level d  = level d+1's nodes, then the new nodes sampled for them,
//   block d  = bipartite, sources = level d, destinations = level d+1,
//              edges = the in-neighbours sampled for each destination.
//
// Because every level starts with the next level's nodes, a block's
// destinations are the first numDst of its sources (GraphView's contract),
// every level is a prefix of level 0, and one list of global ids (level 0's)
// names the rows of every layer. Sampling goes hop by hop from the seeds
// outward: hop 1 samples block L-1, hop L samples block 0.
//
// Randomness: the neighbours drawn for node v in layer i are a pure function
// of (seed, epoch, batch key, layer, v), so a batch is the same whichever
// thread (or, distributed, whichever rank) samples it.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SAMPLE_SAMPLER_H
#define GNNRT_SAMPLE_SAMPLER_H

#include "gnnrt/graph/GraphView.h"
#include "gnnrt/graph/RelationIndex.h"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace gnnrt {

/// Per-relation sampling where some relations draw fanouts of their own
/// (`neighbor(..., relation_fanout = [relation("cites", [5, 5])])`, DGL's
/// `{etype: fanout}`): the fanout of every (layer, relation), layer 0
/// first; a relation the program does not name has the layer's fanout.
struct RelationFanouts {
  int32_t numRelations = 0;
  /// fanout of relation r in layer l at [l * numRelations + r]; -1: all.
  std::vector<int64_t> table;

  int64_t numLayers() const {
    return numRelations > 0 ? int64_t(table.size()) / numRelations : 0;
  }
  int64_t of(int layer, int32_t relation) const {
    return table[size_t(layer) * size_t(numRelations) + size_t(relation)];
  }
};

/// The in-neighbours of a set of nodes, as a CSR: row r's neighbours are
/// neighbors[offsets[r] .. offsets[r + 1]). Neighbours are row-space ids
/// mapped to global ids through `globalIds` (null: the identity, as for a
/// whole graph). A whole graph's GraphView gives it directly (inOffsets,
/// edgeSrc); a partition's local CSR with its local-to-global id list.
struct Adjacency {
  int64_t numRows = 0;
  const int64_t *offsets = nullptr;
  const int32_t *neighbors = nullptr;
  const int64_t *globalIds = nullptr;
  /// A heterogeneous graph's relation of each neighbour entry (null:
  /// untyped); sampled blocks then keep their edges' relations.
  const int32_t *edgeType = nullptr;
  int32_t numRelations = 0;
  /// Sampling per relation (`neighbor(..., per_relation = true)`): the
  /// rows' entries grouped by relation (RelationIndex::byDst of the typed
  /// graph these rows are), and each relation of a row draws its own
  /// fanout, as DGL's per-edge-type fanouts do. Null: a row draws its
  /// fanout over all its entries.
  const RelationPairs *perRelation = nullptr;
  /// With perRelation: the fanouts of relations that have their own, which
  /// replace the fanout a caller passes for the layer. Null: every
  /// relation draws that fanout.
  const RelationFanouts *relationFanouts = nullptr;

  static Adjacency of(const GraphView &g) {
    return {g.numDst, g.inOffsets, g.edgeSrc, nullptr, g.edgeType,
            g.numRelations};
  }
  /// The same with each relation sampled on its own; g must be typed and
  /// carry its RelationIndex (a typed GraphStorage's views do). `fanouts`
  /// (kept by pointer; null: none) must cover g's relations.
  static Adjacency perRelationOf(const GraphView &g,
                                 const RelationFanouts *fanouts = nullptr);
  int64_t degree(int64_t row) const { return offsets[row + 1] - offsets[row]; }
  int64_t neighbor(int64_t k) const {
    return globalIds ? globalIds[neighbors[k]] : int64_t(neighbors[k]);
  }
};

struct SamplerOptions {
  /// Neighbours per destination, layer 0 (the input side) first; one entry
  /// per block. -1: all in-neighbours.
  std::vector<int64_t> fanouts;
  /// With replacement: exactly fanout draws per node (repeats possible),
  /// none for a node without in-neighbours. Without: min(fanout, degree)
  /// distinct in-edges, uniformly.
  bool replace = false;
  uint64_t seed = 0;
};

/// Where a node's draws come from: (seed, epoch, batch key, layer, node).
struct SampleKey {
  uint64_t seed = 0, epoch = 0, batch = 0;
};

/// The Philox key of every draw of one (seed, epoch, batch, layer): node
/// v's draws in that layer are CounterRng(sampleDrawKey(key, layer), v).
/// Shared by the CPU and the device samplers, so their draws are the same.
uint64_t sampleDrawKey(const SampleKey &key, int layer);

/// Appends to `out` the global ids of the in-neighbours sampled for `row` of
/// `adj` (the node with global id `node`) in layer `layer`, and to `types`,
/// when given (a typed `adj`), the relation of each one's edge.
/// Deterministic in (key, layer, node).
void sampleNeighbors(const Adjacency &adj, int64_t row, int64_t node,
                     int64_t fanout, bool replace, const SampleKey &key,
                     int layer, std::vector<int64_t> &out,
                     std::vector<int32_t> *types = nullptr);

/// One sampled mini-batch: the blocks and the inputs a train step reads.
struct SampledBatch {
  /// Global ids of level 0's nodes; level d is the prefix of levelSizes[d].
  std::vector<int64_t> nodes;
  /// numLayers + 1 entries, non-increasing; levelSizes.back() = seeds.
  std::vector<int64_t> levelSizes;
  /// blocks[i]: numSrc = levelSizes[i], numDst = levelSizes[i + 1].
  std::vector<GraphStorage> blocks;
  std::vector<GraphView> views; ///< views of `blocks`, same order
  /// Input rows [levelSizes[0] x features] and the seeds' labels, filled by
  /// whoever gathers (the trainer's pipeline), not by the sampler.
  std::vector<float> features;
  std::vector<int64_t> labels;
  /// Input rows read in place (MiniBatchAssembler::readInputRowsInPlace):
  /// `features` then holds only blocks[0]'s destinations' rows, and the
  /// first aggregation gathers its sources' rows from `inputTable` (the
  /// dataset's resident feature rows) through `inputTableBlock`: blocks[0]
  /// with edge k's source the row tableSources[k] of the table. Null
  /// inputTable: `features` holds a row per source.
  const float *inputTable = nullptr;
  std::vector<int32_t> tableSources;
  GraphView inputTableBlock;
  /// A CUDA trainer that gathers on the device: the input rows in device
  /// memory (gnnrt/train/DeviceBatchSource.h), `features` then empty. The
  /// memory is `deviceStorage`'s (grown as needed, freed with the batch;
  /// copies of the batch share it).
  const float *deviceFeatures = nullptr;
  std::shared_ptr<void> deviceStorage;
  size_t deviceStorageBytes = 0;
  /// Distributed: rows of `features` that came from another rank, and how
  /// many of the remote rows a feature cache served.
  int64_t remoteRows = 0, cachedRows = 0;

  int64_t numSeeds() const { return levelSizes.empty() ? 0 : levelSizes.back(); }
  int64_t numLayers() const { return int64_t(blocks.size()); }
  int64_t sampledEdges() const;
  /// Sets tableSources and inputTableBlock: blocks[0] with each edge's
  /// source the row of a table indexed by level 0's ids (which fit int32,
  /// as a graph's do) of `tableRows` rows. The caller points inputTable at
  /// the table.
  const GraphView &listTableRows(int64_t tableRows);
};

/// Assembles a batch hop by hop from the seeds outward, deduplicating nodes
/// with a table over the global id space (reset after each batch, touching
/// only the ids it set). One per thread.
class BlockBuilder {
public:
  explicit BlockBuilder(int64_t numGlobalNodes);

  /// Starts a batch of `numLayers` blocks with these seeds (distinct ids).
  void start(const int64_t *seeds, int64_t numSeeds, int numLayers,
             SampledBatch &out);
  /// The destinations of the next hop's block: all nodes gathered so far
  /// (global ids), in level order. Valid until addHop.
  const int64_t *frontier() const;
  int64_t frontierSize() const;
  /// Adds the next hop: frontier node j's sampled neighbours are
  /// neighbors[offsets[j] .. offsets[j + 1]) (global ids; offsets has
  /// frontierSize() + 1 entries). Builds the block and extends the level.
  void addHop(const std::vector<int64_t> &offsets,
              const std::vector<int64_t> &neighbors);
  /// addHop for a heterogeneous graph: neighbour k came through an edge of
  /// relation types[k] (of numRelations), which the block keeps.
  void addHop(const std::vector<int64_t> &offsets,
              const std::vector<int64_t> &neighbors,
              const std::vector<int32_t> &types, int32_t numRelations);
  /// Completes the batch (views set) and clears the dedupe table.
  void finish();
  /// Blocks (bit l: block l) whose out-edge lists no one reads
  /// (CompiledProgram::blocksWithoutOutEdges): built without them.
  void leaveOutEdges(uint64_t blocks) { withoutOutEdges = blocks; }
  /// Edges no hop may add (a link batch's own target links, so that
  /// message passing does not see what the step scores): (dst, src) pairs
  /// of global ids, sorted. A drawn neighbour u of frontier node v is
  /// dropped when (v, u) is listed, so v may keep fewer than its fanout
  /// (DGL's `exclude` removes them before drawing instead). Kept until the
  /// next call; empty: none.
  void excludeEdges(std::vector<std::pair<int64_t, int64_t>> dstSrc);
  /// Drawn neighbours dropped by excludeEdges since construction.
  int64_t excludedEdges() const { return droppedEdges; }

private:
  friend class NeighborSampler;

  std::vector<int32_t> localOf; ///< global id -> local id, -1 = unseen
  SampledBatch *batch = nullptr;
  int layersLeft = 0;
  uint64_t withoutOutEdges = 0;
  /// excludeEdges' (dst, src) pairs, sorted, and the count dropped.
  std::vector<std::pair<int64_t, int64_t>> excluded;
  int64_t droppedEdges = 0;
  /// addHop's copy of a hop without the excluded edges.
  std::vector<int64_t> keptOffsets, keptNeighbors;
  std::vector<int32_t> keptTypes;
  /// addHop after the exclusion: deduplicates and builds the block.
  void buildHop(const std::vector<int64_t> &offsets,
                const std::vector<int64_t> &neighbors,
                const std::vector<int32_t> &types, int32_t numRelations);
  /// Whether a hop drops edges; if so, fills the kept* copies.
  bool dropExcluded(const std::vector<int64_t> &offsets,
                    const std::vector<int64_t> &neighbors,
                    const std::vector<int32_t> &types);
  /// Per-hop buffers (NeighborSampler's offsets and neighbours, addHop's
  /// local sources), kept here, one builder per thread, so that their
  /// memory is reused from batch to batch.
  std::vector<int64_t> hopOffsets, hopNeighbors;
  std::vector<int32_t> hopSources, hopTypes;
};

/// A neighbour sampler: the CPU one (NeighborSampler, lib/sample/cpu/) and
/// the device one (DeviceNeighborSampler, gnnrt/sample/cuda/DeviceSampler.h,
/// lib/sample/cuda/, only in the CUDA libraries) make the same draws, so a
/// batch's blocks are the same whichever samples it.
class NeighborSampling {
public:
  virtual ~NeighborSampling() = default;
  /// Samples the blocks of `seeds` into `out` (features/labels untouched).
  virtual void sample(const int64_t *seeds, int64_t numSeeds,
                      const SampleKey &key, BlockBuilder &builder,
                      SampledBatch &out) const = 0;
  virtual const SamplerOptions &options() const = 0;
};

/// Single-process sampling over one adjacency (the whole graph), on the CPU.
class NeighborSampler final : public NeighborSampling {
public:
  NeighborSampler(Adjacency adj, int64_t numGlobalNodes,
                  SamplerOptions options);
  /// NeighborSampling::sample. Thread-safe when each thread passes its own
  /// builder.
  void sample(const int64_t *seeds, int64_t numSeeds, const SampleKey &key,
              BlockBuilder &builder, SampledBatch &out) const override;
  const SamplerOptions &options() const override { return opts; }

private:
  Adjacency adj;
  int64_t numNodes;
  SamplerOptions opts;
};

/// The seeds of every batch of an epoch: the training nodes, shuffled by
/// (seed, epoch) when `shuffle`. Batch b of size batchSize takes positions
/// [b * batchSize, (b + 1) * batchSize) (the last one may be smaller).
std::vector<int64_t> epochSeedOrder(const std::vector<int64_t> &trainNodes,
                                    bool shuffle, uint64_t seed,
                                    uint64_t epoch);

/// GLT-style concurrent sampling: `workers` background threads produce
/// batches 0 .. numBatches-1 (batch b by calling produce(b, worker, slot),
/// worker in [0, workers) naming the calling thread, e.g. to pick its
/// BlockBuilder) into a ring of `capacity` slots, at most `capacity` batches
/// ahead of the consumer; next() hands them out in order. The order and
/// content of the batches do not depend on the thread count as long as
/// produce() depends on `batch` alone. An exception in produce() is rethrown
/// by next() in that batch's turn (and by every later call). Destruction
/// stops the workers (each finishes the batch it is producing). Throws
/// DataError if workers or capacity is below 1.
class BatchPipeline {
public:
  using Producer =
      std::function<void(int64_t batch, int worker, SampledBatch &slot)>;
  BatchPipeline(int64_t numBatches, int workers, int capacity,
                Producer produce);
  /// The ring is the caller's `slots` (capacity: their number), which
  /// outlive the pipeline: the next pipeline over them refills buffers that
  /// are already the size of a batch (no fresh pages to clear each epoch).
  BatchPipeline(int64_t numBatches, int workers,
                std::vector<SampledBatch> &slots, Producer produce);
  ~BatchPipeline();
  BatchPipeline(const BatchPipeline &) = delete;
  BatchPipeline &operator=(const BatchPipeline &) = delete;
  /// The next batch in order; the previous ones' slots are recycled,
  /// except the last `keep` handed out (a consumer that still reads the
  /// current batch while it looks at the next one passes 1; keep must be
  /// less than the capacity). Returns null after the last batch.
  SampledBatch *next(int keep = 0);
  /// Seconds next() spent waiting for a batch (the pipeline's stall time).
  double waitSeconds() const { return waited; }

private:
  BatchPipeline(int64_t numBatches, int workers,
                std::vector<SampledBatch> *slots, int capacity,
                Producer produce);
  struct Impl;
  Impl *impl;
  double waited = 0;
};

} // namespace gnnrt

#endif // GNNRT_SAMPLE_SAMPLER_H
