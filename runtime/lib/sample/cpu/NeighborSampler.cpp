//===- NeighborSampler.cpp - Neighbor sampling into message-flow blocks ---===//
//
// Sampling is a walk over random CSR rows, so its cost is cache misses, not
// arithmetic. The code is shaped by that:
//  - Draws come from Philox keyed per (seed, epoch, batch, layer): two
//    chained blocks turn those into one 64-bit key, and node v then reads
//    blocks 0, 1, ... of stream v under it. Every field keeps its full 64
//    bits, the key is derived once per hop (not per node), and the draws of
//    a node do not depend on which thread or rank samples it.
//  - Without replacement, Floyd's algorithm picks k distinct positions of d
//    with exactly k draws (no rejection loop, no O(d) scratch); with
//    replacement, k independent draws. A row with d <= k is taken whole.
//  - The hop loop prefetches the CSR offsets of the node 16 steps ahead and
//    the neighbour list (up to 4 cache lines) of the node 8 steps ahead,
//    which made it 1.5x faster on a 1M-node graph; the block builder
//    prefetches the dedupe-table entries of upcoming neighbours.
//  - Global ids become local ids through one int32 table over the global id
//    space; after a batch only the ids it set are reset, so a batch costs
//    O(its nodes), not O(the graph).
//  - A block is written destination-major as sampled, each destination's few
//    sources sorted in place, and GraphStorage::assignCsr adds the transpose
//    in one counting pass, into the arrays of the recycled batch's blocks:
//    a batch allocates nothing once its slot has seen one of the same size.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/sample/Sampler.h"

#include "gnnrt/support/Error.h"
#include "gnnrt/support/Prefetch.h"
#include "gnnrt/support/Random.h"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <string>

namespace gnnrt {
namespace {

/// The stream of the key derivation ("SAMP" in ASCII) and of the epoch
/// shuffle ("SHUF"), apart from the generator's streams 1-5 and the other
/// tagged streams (PART, PARA, GRAD) of the same seed.
constexpr uint64_t kSampleStream = uint64_t(0x53414D50) << 32;
constexpr uint64_t kShuffleStream = uint64_t(0x53485546) << 32;

/// Up to this fanout Floyd's membership test scans the positions picked so
/// far (at most 64 compares); above it, a hash set keeps it O(1).
constexpr int64_t kLinearScanFanout = 64;

/// How many frontier nodes ahead the hop loop prefetches CSR offsets; the
/// neighbour lists are prefetched half as far ahead, once their offsets
/// have arrived.
constexpr int64_t kPrefetchNodes = 16;
/// How much of a neighbour list the hop loop prefetches: the draws land
/// anywhere in it, and a list of the typical degree (tens) fits.
constexpr int64_t kPrefetchListBytes = 256;
constexpr int64_t kCacheLine = 64;
/// How many neighbours ahead the builder prefetches dedupe-table entries.
constexpr int64_t kPrefetchNeighbors = 16;

uint64_t wordsToKey(const std::array<uint32_t, 4> &r) {
  return (uint64_t(r[0]) << 32) | r[1];
}

/// The Philox key of every draw of one (seed, epoch, batch, layer).
uint64_t layerKey(const SampleKey &key, int layer) {
  const uint64_t epochKey = wordsToKey(
      randomBits(key.seed, kSampleStream | uint32_t(layer), key.epoch));
  return wordsToKey(randomBits(epochKey, kSampleStream, key.batch));
}

/// Requests the first kPrefetchListBytes of row's neighbour list.
void prefetchNeighbors(const Adjacency &adj, int64_t row) {
  const char *begin =
      reinterpret_cast<const char *>(adj.neighbors + adj.offsets[row]);
  const char *end =
      reinterpret_cast<const char *>(adj.neighbors + adj.offsets[row + 1]);
  for (const char *line = begin;
       line < std::min(end, begin + kPrefetchListBytes); line += kCacheLine)
    prefetchLine(line);
}

[[noreturn]] void throwSamplerError(const std::string &message) {
  throwDataError("sampler", 0, message);
}

void checkFanout(int64_t fanout, int layer) {
  if (fanout == 0 || fanout < -1)
    throwSamplerError("fanout " + std::to_string(fanout) + " of layer " +
                      std::to_string(layer) +
                      ": expected a positive count or -1 (all neighbours)");
}

/// An integer uniform in [0, n), n > 0.
int64_t drawBelow(CounterRng &rng, uint64_t n) {
  return n <= std::numeric_limits<uint32_t>::max()
             ? int64_t(rng.nextBelow(uint32_t(n)))
             : int64_t(rng.nextBelow64(n));
}

/// Floyd's membership test for fanouts above kLinearScanFanout: an
/// open-addressing set of positions in [0, degree).
class PositionSet {
public:
  explicit PositionSet(int64_t capacity) {
    size_t size = 1;
    while (size < size_t(2 * capacity))
      size <<= 1;
    slots.assign(size, -1);
  }
  /// Inserts p; false if it was there already.
  bool insert(int64_t p) {
    const size_t mask = slots.size() - 1;
    for (size_t i = size_t(uint64_t(p) * 0x9E3779B97F4A7C15ull >> 20) & mask;;
         i = (i + 1) & mask) {
      if (slots[i] == p)
        return false;
      if (slots[i] < 0) {
        slots[i] = p;
        return true;
      }
    }
  }

private:
  std::vector<int64_t> slots;
};

/// Appends the neighbours of `degree` entries of `adj`, entry i at CSR
/// position at(i), drawn from stream `stream` under `key`: fanout of them
/// (or all when there are no more), with or without replacement.
template <typename Position>
void sampleEntries(const Adjacency &adj, int64_t degree, const Position &at,
                   int64_t fanout, bool replace, uint64_t key, uint64_t stream,
                   std::vector<int64_t> &out, std::vector<int32_t> *types) {
  const size_t first = out.size();
  if (fanout == -1 || (!replace && degree <= fanout)) {
    out.resize(first + size_t(degree));
    for (int64_t k = 0; k < degree; ++k) {
      out[first + k] = adj.neighbor(at(k));
      if (types)
        types->push_back(adj.edgeType[at(k)]);
    }
    return;
  }
  if (degree == 0)
    return;

  CounterRng rng(key, stream);
  out.resize(first + size_t(fanout));
  int64_t *picked = out.data() + first;
  if (replace) {
    for (int64_t i = 0; i < fanout; ++i) {
      const int64_t k = at(drawBelow(rng, uint64_t(degree)));
      picked[i] = adj.neighbor(k);
      if (types)
        types->push_back(adj.edgeType[k]);
    }
    return;
  }
  // Floyd: for j = d-k .. d-1 draw t in [0, j]; take t, or j if t was
  // taken. Each k-subset comes out with probability 1 / C(d, k).
  if (fanout <= kLinearScanFanout) {
    for (int64_t i = 0, j = degree - fanout; j < degree; ++i, ++j) {
      const int64_t t = drawBelow(rng, uint64_t(j) + 1);
      picked[i] = std::find(picked, picked + i, t) == picked + i ? t : j;
    }
  } else {
    PositionSet taken(fanout);
    for (int64_t i = 0, j = degree - fanout; j < degree; ++i, ++j) {
      int64_t t = drawBelow(rng, uint64_t(j) + 1);
      if (!taken.insert(t)) {
        t = j;
        taken.insert(j);
      }
      picked[i] = t;
    }
  }
  for (int64_t i = 0; i < fanout; ++i) {
    const int64_t k = at(picked[i]);
    if (types)
      types->push_back(adj.edgeType[k]);
    picked[i] = adj.neighbor(k);
  }
}

/// Appends the sampled in-neighbours of `row` (global ids) with the layer's
/// key already derived; sampleNeighbors and the hop loop share it. Per
/// relation, relation r of node v draws from stream v * relations + r, so
/// its draws do not depend on the node's other relations (nor on their
/// fanouts), and draws adj.relationFanouts' count for `layer` when given.
void sampleRow(const Adjacency &adj, int64_t row, int64_t node, int64_t fanout,
               bool replace, uint64_t key, int layer,
               std::vector<int64_t> &out,
               std::vector<int32_t> *types = nullptr) {
  if (!adj.perRelation) {
    const int64_t begin = adj.offsets[row];
    sampleEntries(
        adj, adj.offsets[row + 1] - begin,
        [begin](int64_t i) { return begin + i; }, fanout, replace, key,
        uint64_t(node), out, types);
    return;
  }
  const RelationPairs &pairs = *adj.perRelation;
  for (int64_t p = pairs.nodePairs[row]; p < pairs.nodePairs[row + 1]; ++p) {
    const int64_t *edges = pairs.edges.data() + pairs.edgeBegin[p];
    const int64_t own = adj.relationFanouts
                            ? adj.relationFanouts->of(layer, pairs.relation[p])
                            : fanout;
    sampleEntries(
        adj, pairs.count(p), [edges](int64_t i) { return edges[i]; }, own,
        replace, key,
        uint64_t(node) * uint64_t(adj.numRelations) +
            uint64_t(pairs.relation[p]),
        out, types);
  }
}

/// sortSources for a typed hop: (source, relation) pairs in order, so that
/// parallel edges of several relations keep a fixed order too.
void sortTypedSources(int32_t *src, int32_t *type, int64_t n) {
  for (int64_t i = 1; i < n; ++i) {
    const int32_t s = src[i], t = type[i];
    int64_t j = i;
    for (; j > 0 && (src[j - 1] > s || (src[j - 1] == s && type[j - 1] > t));
         --j) {
      src[j] = src[j - 1];
      type[j] = type[j - 1];
    }
    src[j] = s;
    type[j] = t;
  }
}

/// Sorts a destination's sampled sources; rows are short (the fanout), so
/// insertion sort beats std::sort's setup below a few dozen.
void sortSources(int32_t *begin, int32_t *end) {
  if (end - begin > 32) {
    std::sort(begin, end);
    return;
  }
  for (int32_t *i = begin + 1; i < end; ++i) {
    const int32_t v = *i;
    int32_t *j = i;
    for (; j > begin && j[-1] > v; --j)
      *j = j[-1];
    *j = v;
  }
}

/// Forgets the local ids of `nodes`, leaving the table all -1 again.
void unmark(std::vector<int32_t> &localOf, const int64_t *nodes, size_t n) {
  for (size_t i = 0; i < n; ++i)
    localOf[size_t(nodes[i])] = -1;
}

} // namespace

uint64_t sampleDrawKey(const SampleKey &key, int layer) {
  return layerKey(key, layer);
}

void sampleNeighbors(const Adjacency &adj, int64_t row, int64_t node,
                     int64_t fanout, bool replace, const SampleKey &key,
                     int layer, std::vector<int64_t> &out,
                     std::vector<int32_t> *types) {
  checkFanout(fanout, layer);
  // Callers sample a hop node by node with one key and layer; deriving the
  // layer's key once per thread and hop instead of per node (two Philox
  // blocks) made such a loop 1.3x faster.
  thread_local bool haveLast = false;
  thread_local SampleKey lastKey;
  thread_local int lastLayer = 0;
  thread_local uint64_t lastDrawKey = 0;
  if (!haveLast || layer != lastLayer || key.seed != lastKey.seed ||
      key.epoch != lastKey.epoch || key.batch != lastKey.batch) {
    haveLast = true;
    lastKey = key;
    lastLayer = layer;
    lastDrawKey = layerKey(key, layer);
  }
  if (adj.relationFanouts && layer >= adj.relationFanouts->numLayers())
    throw std::logic_error("sampleNeighbors: layer " + std::to_string(layer) +
                           " has no relation fanouts");
  sampleRow(adj, row, node, fanout, replace, lastDrawKey, layer, out, types);
}

Adjacency Adjacency::perRelationOf(const GraphView &g,
                                   const RelationFanouts *fanouts) {
  if (!g.edgeType || g.numRelations <= 0)
    throwSamplerError("per_relation = true samples each relation on its own, "
                      "but the graph has no relations (a homogeneous dataset)");
  if (!g.relationIndex || !g.relationIndex->describes(g))
    throw std::logic_error("Adjacency::perRelationOf: the view carries no "
                           "relation index of its own");
  if (fanouts) {
    if (fanouts->numRelations != g.numRelations)
      throw std::logic_error("Adjacency::perRelationOf: fanouts for " +
                             std::to_string(fanouts->numRelations) +
                             " relations, the graph has " +
                             std::to_string(g.numRelations));
    for (size_t i = 0; i < fanouts->table.size(); ++i)
      checkFanout(fanouts->table[i], int(i / size_t(g.numRelations)));
  }
  Adjacency adj = of(g);
  adj.perRelation = &g.relationIndex->byDst;
  adj.relationFanouts = fanouts;
  return adj;
}

int64_t SampledBatch::sampledEdges() const {
  int64_t edges = 0;
  for (const GraphStorage &block : blocks)
    edges += block.numEdges();
  return edges;
}

const GraphView &SampledBatch::listTableRows(int64_t tableRows) {
  const GraphView &block = views.front();
  tableSources.resize(size_t(block.numEdges));
  for (int64_t k = 0; k < block.numEdges; ++k)
    tableSources[size_t(k)] = int32_t(nodes[size_t(block.edgeSrc[k])]);
  // The in-edge layout only: the table's rows have no out-edge lists.
  GraphView &view = inputTableBlock;
  view = GraphView();
  view.numSrc = tableRows;
  view.numDst = block.numDst;
  view.numEdges = block.numEdges;
  view.inOffsets = block.inOffsets;
  view.edgeSrc = tableSources.data();
  view.edgeDst = block.edgeDst;
  return view;
}

//===--- BlockBuilder -----------------------------------------------------===//

BlockBuilder::BlockBuilder(int64_t numGlobalNodes)
    : localOf(size_t(numGlobalNodes), -1) {}

void BlockBuilder::start(const int64_t *seeds, int64_t numSeeds, int numLayers,
                         SampledBatch &out) {
  if (numLayers < 0)
    throwSamplerError(std::to_string(numLayers) + " layers");
  out.nodes.clear();
  for (int64_t i = 0; i < numSeeds; ++i) {
    const int64_t id = seeds[i];
    const bool inRange = id >= 0 && id < int64_t(localOf.size());
    if (!inRange || localOf[size_t(id)] >= 0) {
      unmark(localOf, out.nodes.data(), out.nodes.size());
      out.nodes.clear();
      throwSamplerError("seed " + std::to_string(id) +
                        (inRange ? " appears twice in the batch"
                                 : " out of range [0, " +
                                       std::to_string(localOf.size()) + ")"));
    }
    localOf[size_t(id)] = int32_t(i);
    out.nodes.push_back(id);
  }
  out.levelSizes.assign(size_t(numLayers) + 1, 0);
  out.levelSizes[size_t(numLayers)] = numSeeds;
  out.blocks.resize(size_t(numLayers));
  out.views.clear();
  batch = &out;
  layersLeft = numLayers;
}

const int64_t *BlockBuilder::frontier() const { return batch->nodes.data(); }

int64_t BlockBuilder::frontierSize() const {
  return int64_t(batch->nodes.size());
}

void BlockBuilder::addHop(const std::vector<int64_t> &offsets,
                          const std::vector<int64_t> &neighbors) {
  addHop(offsets, neighbors, {}, 0);
}

void BlockBuilder::excludeEdges(
    std::vector<std::pair<int64_t, int64_t>> dstSrc) {
  excluded = std::move(dstSrc);
  std::sort(excluded.begin(), excluded.end());
}

bool BlockBuilder::dropExcluded(const std::vector<int64_t> &offsets,
                                const std::vector<int64_t> &neighbors,
                                const std::vector<int32_t> &types) {
  if (excluded.empty())
    return false;
  const int64_t *frontierIds = batch->nodes.data();
  const int64_t numDst = int64_t(offsets.size()) - 1;
  const bool typed = !types.empty();
  bool any = false;
  keptOffsets.assign(1, 0);
  keptNeighbors.clear();
  keptTypes.clear();
  for (int64_t j = 0; j < numDst; ++j) {
    // The excluded sources of this destination: usually none.
    const int64_t v = frontierIds[j];
    auto first = std::lower_bound(
        excluded.begin(), excluded.end(),
        std::make_pair(v, std::numeric_limits<int64_t>::min()));
    for (int64_t k = offsets[size_t(j)]; k < offsets[size_t(j) + 1]; ++k) {
      const int64_t u = neighbors[size_t(k)];
      bool drop = false;
      for (auto it = first; it != excluded.end() && it->first == v; ++it)
        drop = drop || it->second == u;
      if (drop) {
        any = true;
        ++droppedEdges;
        continue;
      }
      keptNeighbors.push_back(u);
      if (typed)
        keptTypes.push_back(types[size_t(k)]);
    }
    keptOffsets.push_back(int64_t(keptNeighbors.size()));
  }
  return any;
}

void BlockBuilder::addHop(const std::vector<int64_t> &offsets,
                          const std::vector<int64_t> &neighbors,
                          const std::vector<int32_t> &types,
                          int32_t numRelations) {
  // A malformed hop goes to buildHop as it is, which names what is wrong.
  if (batch && int64_t(offsets.size()) == int64_t(batch->nodes.size()) + 1 &&
      offsets.back() == int64_t(neighbors.size()) &&
      dropExcluded(offsets, neighbors, types))
    buildHop(keptOffsets, keptNeighbors, keptTypes, numRelations);
  else
    buildHop(offsets, neighbors, types, numRelations);
}

void BlockBuilder::buildHop(const std::vector<int64_t> &offsets,
                            const std::vector<int64_t> &neighbors,
                            const std::vector<int32_t> &types,
                            int32_t numRelations) {
  std::vector<int64_t> &nodes = batch->nodes;
  const int64_t numDst = int64_t(nodes.size());
  const int64_t numEdges = int64_t(neighbors.size());
  if (layersLeft == 0 || int64_t(offsets.size()) != numDst + 1 ||
      offsets.back() != numEdges)
    throwSamplerError(
        "a hop of " + std::to_string(offsets.size()) + " offsets and " +
        std::to_string(numEdges) + " neighbours for " + std::to_string(numDst) +
        " frontier nodes and " + std::to_string(layersLeft) + " layers left");

  const int64_t numGlobal = int64_t(localOf.size());
  std::vector<int32_t> &edgeSrc = hopSources;
  edgeSrc.resize(neighbors.size());
  for (int64_t k = 0; k < numEdges; ++k) {
    if (k + kPrefetchNeighbors < numEdges) {
      const int64_t ahead = neighbors[k + kPrefetchNeighbors];
      if (ahead >= 0 && ahead < numGlobal)
        prefetchLine(&localOf[size_t(ahead)]);
    }
    const int64_t id = neighbors[k];
    if (id < 0 || id >= numGlobal) {
      unmark(localOf, nodes.data(), nodes.size());
      batch = nullptr;
      throwSamplerError("neighbour " + std::to_string(id) +
                        " out of range [0, " + std::to_string(numGlobal) + ")");
    }
    int32_t &local = localOf[size_t(id)];
    if (local < 0) {
      local = int32_t(nodes.size());
      nodes.push_back(id);
    }
    edgeSrc[size_t(k)] = local;
  }
  const bool typed = numRelations > 0;
  if (typed && types.size() != neighbors.size())
    throwSamplerError(std::to_string(types.size()) + " relations for " +
                      std::to_string(neighbors.size()) + " neighbours");
  std::vector<int32_t> &edgeTypes = hopTypes;
  if (typed)
    edgeTypes.assign(types.begin(), types.end());
  for (int64_t j = 0; j < numDst; ++j)
    if (typed)
      sortTypedSources(edgeSrc.data() + offsets[j],
                       edgeTypes.data() + offsets[j], offsets[j + 1] - offsets[j]);
    else
      sortSources(edgeSrc.data() + offsets[j], edgeSrc.data() + offsets[j + 1]);

  const int layer = --layersLeft;
  batch->levelSizes[size_t(layer)] = int64_t(nodes.size());
  GraphStorage &block = batch->blocks[size_t(layer)];
  const bool outEdges = layer >= 64 || !(withoutOutEdges >> layer & 1);
  block.assignCsr(int64_t(nodes.size()), numDst, offsets, edgeSrc, outEdges);
  if (typed)
    block.setEdgeTypes(edgeTypes, numRelations);
}

void BlockBuilder::finish() {
  if (layersLeft != 0)
    throwSamplerError("batch finished with " + std::to_string(layersLeft) +
                      " layers not sampled");
  batch->views.clear();
  for (const GraphStorage &block : batch->blocks)
    batch->views.push_back(block.view());
  unmark(localOf, batch->nodes.data(), batch->nodes.size());
  batch = nullptr;
}

//===--- NeighborSampler --------------------------------------------------===//

NeighborSampler::NeighborSampler(Adjacency adj, int64_t numGlobalNodes,
                                 SamplerOptions options)
    : adj(adj), numNodes(numGlobalNodes), opts(std::move(options)) {
  if (adj.numRows != numGlobalNodes)
    throwSamplerError("the adjacency has " + std::to_string(adj.numRows) +
                      " rows for " + std::to_string(numGlobalNodes) +
                      " nodes (row v must be node v)");
  for (size_t i = 0; i < opts.fanouts.size(); ++i)
    checkFanout(opts.fanouts[i], int(i));
  if (adj.relationFanouts &&
      adj.relationFanouts->numLayers() != int64_t(opts.fanouts.size()))
    throwSamplerError(
        "relation fanouts for " +
        std::to_string(adj.relationFanouts->numLayers()) + " layers, but " +
        std::to_string(opts.fanouts.size()) + " layers are sampled");
}

void NeighborSampler::sample(const int64_t *seeds, int64_t numSeeds,
                             const SampleKey &key, BlockBuilder &builder,
                             SampledBatch &out) const {
  const int numLayers = int(opts.fanouts.size());
  builder.start(seeds, numSeeds, numLayers, out);
  std::vector<int64_t> &offsets = builder.hopOffsets;
  std::vector<int64_t> &neighbors = builder.hopNeighbors;
  // A heterogeneous graph's blocks keep each sampled edge's relation.
  std::vector<int32_t> types;
  std::vector<int32_t> *typesOut = adj.edgeType ? &types : nullptr;
  // Hop h samples block numLayers - h: the seeds' hop first.
  for (int layer = numLayers - 1; layer >= 0; --layer) {
    const uint64_t drawKey = layerKey(key, layer);
    const int64_t fanout = opts.fanouts[size_t(layer)];
    const int64_t *frontier = builder.frontier();
    const int64_t n = builder.frontierSize();
    offsets.resize(size_t(n) + 1);
    offsets[0] = 0;
    neighbors.clear();
    types.clear();
    for (int64_t j = 0; j < n; ++j) {
      if (j + kPrefetchNodes < n)
        prefetchLine(adj.offsets + frontier[j + kPrefetchNodes]);
      if (j + kPrefetchNodes / 2 < n)
        prefetchNeighbors(adj, frontier[j + kPrefetchNodes / 2]);
      sampleRow(adj, frontier[j], frontier[j], fanout, opts.replace, drawKey,
                layer, neighbors, typesOut);
      offsets[size_t(j) + 1] = int64_t(neighbors.size());
    }
    if (typesOut)
      builder.addHop(offsets, neighbors, types, adj.numRelations);
    else
      builder.addHop(offsets, neighbors);
  }
  builder.finish();
}

std::vector<int64_t> epochSeedOrder(const std::vector<int64_t> &trainNodes,
                                    bool shuffle, uint64_t seed,
                                    uint64_t epoch) {
  std::vector<int64_t> order = trainNodes;
  if (!shuffle)
    return order;
  // Fisher-Yates driven by a key of (seed, epoch) alone.
  CounterRng rng(wordsToKey(randomBits(seed, kShuffleStream, epoch)),
                 kShuffleStream);
  for (size_t i = order.size(); i > 1; --i)
    std::swap(order[i - 1], order[size_t(drawBelow(rng, i))]);
  return order;
}

} // namespace gnnrt
