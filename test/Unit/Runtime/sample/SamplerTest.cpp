//===- SamplerTest.cpp - Neighbor sampling, blocks and the batch pipeline -===//
//
// What a trainer relies on: every level is a prefix of level 0 and a block's
// destinations are the first of its sources; every block edge is an edge of
// the graph; the per-node counts of each sampling mode; batches that are a
// pure function of their key and uniform over the neighbours; fromCsr's
// layout equal to build()'s; the epoch order; and the pipeline's in-order,
// thread-count-independent delivery and error propagation.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/sample/Sampler.h"

#include "TestUtil.h"
#include "gnnrt/support/Random.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

/// A random simple graph (no parallel edges, no self loops) with a few
/// isolated nodes, as the sampler sees a whole graph.
struct TestGraph {
  int64_t numNodes = 0;
  std::set<std::pair<int64_t, int64_t>> edges; ///< (src, dst)
  GraphStorage storage;

  explicit TestGraph(int64_t n, int64_t m, uint64_t seed) : numNodes(n) {
    CounterRng rng(seed, 11);
    std::vector<int64_t> src, dst;
    for (int64_t e = 0; e < m; ++e) {
      // Nodes n-3 .. n-1 stay isolated.
      int64_t u = rng.nextBelow(uint32_t(n - 3));
      int64_t v = rng.nextBelow(uint32_t(n - 3));
      if (u != v && edges.insert({u, v}).second) {
        src.push_back(u);
        dst.push_back(v);
      }
    }
    storage = GraphStorage::build(n, n, src, dst);
    view = storage.view();
  }
  Adjacency adjacency() const { return Adjacency::of(view); }
  int64_t inDegree(int64_t v) const {
    return view.inOffsets[v + 1] - view.inOffsets[v];
  }
  std::vector<int64_t> inNeighbors(int64_t v) const {
    return std::vector<int64_t>(view.edgeSrc + view.inOffsets[v],
                                view.edgeSrc + view.inOffsets[v + 1]);
  }

private:
  GraphView view;
};

/// The global ids of the sources destination j reads in `block`, ascending.
std::vector<int64_t> sourcesOf(const SampledBatch &b, int block, int64_t j) {
  const GraphView &g = b.views[size_t(block)];
  std::vector<int64_t> out;
  for (int64_t k = g.inOffsets[j]; k < g.inOffsets[j + 1]; ++k)
    out.push_back(b.nodes[size_t(g.edgeSrc[k])]);
  std::sort(out.begin(), out.end());
  return out;
}

/// Everything a batch's content consists of, for equality checks.
auto contentOf(const SampledBatch &b) {
  std::vector<std::vector<int32_t>> edges;
  for (const GraphView &g : b.views)
    edges.emplace_back(g.edgeSrc, g.edgeSrc + g.numEdges);
  std::vector<std::vector<int64_t>> offsets;
  for (const GraphView &g : b.views)
    offsets.emplace_back(g.inOffsets, g.inOffsets + g.numDst + 1);
  return std::make_tuple(b.nodes, b.levelSizes, edges, offsets);
}

SampledBatch sampleOnce(const TestGraph &graph, SamplerOptions options,
                        const std::vector<int64_t> &seeds,
                        const SampleKey &key) {
  NeighborSampler sampler(graph.adjacency(), graph.numNodes, options);
  BlockBuilder builder(graph.numNodes);
  SampledBatch batch;
  sampler.sample(seeds.data(), int64_t(seeds.size()), key, builder, batch);
  return batch;
}

const std::vector<int64_t> kSeeds = {5, 0, 17, 42, 99, 3, 197, 198};

} // namespace

TEST(Sampler, LevelsArePrefixesAndBlocksChain) {
  TestGraph graph(200, 1500, 1);
  SamplerOptions options;
  options.fanouts = {3, 4, 2};
  SampledBatch b = sampleOnce(graph, options, kSeeds, {7, 1, 2});

  ASSERT_EQ(b.numLayers(), 3);
  ASSERT_EQ(b.levelSizes.size(), 4u);
  EXPECT_EQ(b.numSeeds(), int64_t(kSeeds.size()));
  EXPECT_EQ(b.levelSizes[0], int64_t(b.nodes.size()));
  EXPECT_EQ(std::vector<int64_t>(b.nodes.begin(), b.nodes.begin() + 8), kSeeds);
  EXPECT_EQ(std::set<int64_t>(b.nodes.begin(), b.nodes.end()).size(),
            b.nodes.size())
      << "level 0 lists a node twice";
  ASSERT_EQ(b.views.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_LE(b.levelSizes[i + 1], b.levelSizes[i]);
    EXPECT_EQ(b.views[i].numSrc, b.levelSizes[i]) << "block " << i;
    EXPECT_EQ(b.views[i].numDst, b.levelSizes[i + 1]) << "block " << i;
    EXPECT_EQ(b.views[i].numEdges, b.blocks[i].numEdges());
  }
  // The hops grew the batch (the graph is connected enough for that).
  EXPECT_GT(b.levelSizes[0], b.levelSizes[1]);
  EXPECT_GT(b.levelSizes[1], b.levelSizes[2]);
  EXPECT_GT(b.levelSizes[2], b.levelSizes[3]);
  int64_t edges = 0;
  for (const GraphView &g : b.views)
    edges += g.numEdges;
  EXPECT_EQ(b.sampledEdges(), edges);
}

TEST(Sampler, BlockEdgesAreGraphEdges) {
  TestGraph graph(200, 1500, 2);
  for (bool replace : {false, true}) {
    SamplerOptions options;
    options.fanouts = {3, 4, 2};
    options.replace = replace;
    SampledBatch b = sampleOnce(graph, options, kSeeds, {7, 1, 2});
    for (int i = 0; i < b.numLayers(); ++i) {
      const GraphView &g = b.views[i];
      for (int64_t k = 0; k < g.numEdges; ++k) {
        const int64_t u = b.nodes[g.edgeSrc[k]], v = b.nodes[g.edgeDst[k]];
        EXPECT_TRUE(graph.edges.count({u, v}))
            << "block " << i << " edge " << u << " -> " << v;
      }
    }
  }
}

/// A heterogeneous graph's blocks keep each sampled edge's relation: with
/// parallel edges of different relations, every block edge is a graph edge
/// of its relation, and with all neighbours taken (fanout -1) each
/// destination has the multiset of (source, relation) pairs of the graph.
TEST(Sampler, TypedBlocksKeepRelations) {
  TestGraph graph(120, 900, 3);
  // Every edge twice, as relations 0 and 1 (relation 2 only on even
  // sources), so a relation cannot be told from the endpoints alone.
  std::vector<int64_t> src, dst;
  std::vector<int32_t> type;
  std::set<std::tuple<int64_t, int64_t, int32_t>> typed;
  for (auto [u, v] : graph.edges)
    for (int32_t r : {1, 0, 2}) {
      if (r == 2 && u % 2)
        continue;
      src.push_back(u);
      dst.push_back(v);
      type.push_back(r);
      typed.insert({u, v, r});
    }
  GraphStorage storage = GraphStorage::build(120, 120, src, dst, type, 3);
  for (int64_t fanout : {int64_t(3), int64_t(-1)}) {
    for (bool replace : {false, true}) {
      SamplerOptions options;
      options.fanouts = {fanout, fanout};
      options.replace = replace && fanout > 0;
      NeighborSampler sampler(Adjacency::of(storage.view()), 120, options);
      BlockBuilder builder(120);
      SampledBatch b;
      sampler.sample(kSeeds.data() + 1, 5, {7, 1, 2}, builder, b);
      for (int i = 0; i < b.numLayers(); ++i) {
        const GraphView &g = b.views[i];
        ASSERT_NE(g.edgeType, nullptr) << "block " << i;
        EXPECT_EQ(g.numRelations, 3);
        std::multiset<std::pair<int64_t, int32_t>> got, want;
        for (int64_t k = 0; k < g.numEdges; ++k) {
          const int64_t u = b.nodes[g.edgeSrc[k]], v = b.nodes[g.edgeDst[k]];
          EXPECT_TRUE(typed.count({u, v, g.edgeType[k]}))
              << "block " << i << " edge " << u << " -> " << v
              << " of relation " << g.edgeType[k];
          if (fanout < 0 && v == b.nodes[0])
            got.insert({u, g.edgeType[k]});
        }
        if (fanout >= 0)
          continue;
        for (const auto &[u, v, r] : typed)
          if (v == b.nodes[0])
            want.insert({u, r});
        EXPECT_EQ(got, want) << "block " << i;
      }
    }
  }
}

TEST(Sampler, WithoutReplacementDistinctMinOfFanoutAndDegree) {
  TestGraph graph(200, 1500, 3);
  SamplerOptions options;
  options.fanouts = {2, 5, 9};
  SampledBatch b = sampleOnce(graph, options, kSeeds, {1, 0, 0});
  for (int i = 0; i < 3; ++i)
    for (int64_t j = 0; j < b.views[i].numDst; ++j) {
      const int64_t v = b.nodes[j];
      std::vector<int64_t> sources = sourcesOf(b, i, j);
      EXPECT_EQ(int64_t(sources.size()),
                std::min(options.fanouts[i], graph.inDegree(v)))
          << "block " << i << " node " << v;
      EXPECT_EQ(std::adjacent_find(sources.begin(), sources.end()),
                sources.end())
          << "block " << i << " node " << v << " repeats a neighbour";
    }
}

TEST(Sampler, FanoutMinusOneTakesAllNeighbours) {
  TestGraph graph(200, 1500, 4);
  for (bool replace : {false, true}) {
    SamplerOptions options;
    options.fanouts = {-1, -1};
    options.replace = replace;
    SampledBatch b = sampleOnce(graph, options, kSeeds, {1, 0, 0});
    for (int i = 0; i < 2; ++i)
      for (int64_t j = 0; j < b.views[i].numDst; ++j) {
        std::vector<int64_t> all = graph.inNeighbors(b.nodes[j]);
        std::sort(all.begin(), all.end());
        EXPECT_EQ(sourcesOf(b, i, j), all) << "block " << i << " row " << j;
      }
  }
}

// A link batch's own links are left out of message passing: with every
// in-neighbour drawn, each hop holds exactly the graph's in-edges minus the
// excluded ones, in every block (not only the seeds' hop), and the builder
// counts what it dropped; the exclusion lasts until it is replaced.
TEST(Sampler, ExcludedEdgesNeverEnterABlock) {
  TestGraph graph(200, 1500, 4);
  // Every in-edge of the first three seeds, and one edge of a node the
  // second hop reaches, are excluded.
  std::set<std::pair<int64_t, int64_t>> excluded; // (dst, src)
  for (int64_t v : {kSeeds[0], kSeeds[1], kSeeds[2]})
    for (int64_t u : graph.inNeighbors(v))
      excluded.insert({v, u});
  const int64_t far = graph.inNeighbors(kSeeds[3]).at(0);
  ASSERT_FALSE(graph.inNeighbors(far).empty());
  excluded.insert({far, graph.inNeighbors(far).front()});
  SamplerOptions options;
  options.fanouts = {-1, -1};
  NeighborSampler sampler(graph.adjacency(), graph.numNodes, options);
  BlockBuilder builder(graph.numNodes);
  builder.excludeEdges({excluded.begin(), excluded.end()});
  SampledBatch b;
  sampler.sample(kSeeds.data(), int64_t(kSeeds.size()), {1, 0, 0}, builder, b);
  int64_t expectDropped = 0;
  for (int i = 0; i < 2; ++i)
    for (int64_t j = 0; j < b.views[i].numDst; ++j) {
      const int64_t v = b.nodes[size_t(j)];
      std::vector<int64_t> kept;
      for (int64_t u : graph.inNeighbors(v)) {
        if (excluded.count({v, u}))
          ++expectDropped;
        else
          kept.push_back(u);
      }
      std::sort(kept.begin(), kept.end());
      EXPECT_EQ(sourcesOf(b, i, j), kept) << "block " << i << " row " << j;
    }
  EXPECT_GT(expectDropped, int64_t(excluded.size()) / 2);
  EXPECT_EQ(builder.excludedEdges(), expectDropped);
  // Cleared: the next batch draws every in-edge again.
  builder.excludeEdges({});
  sampler.sample(kSeeds.data(), int64_t(kSeeds.size()), {1, 0, 0}, builder, b);
  std::vector<int64_t> all = graph.inNeighbors(kSeeds[0]);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(sourcesOf(b, 1, 0), all);
  EXPECT_EQ(builder.excludedEdges(), expectDropped);
}

TEST(Sampler, WithReplacementExactlyFanout) {
  TestGraph graph(200, 600, 5);
  SamplerOptions options;
  options.fanouts = {7, 30};
  options.replace = true;
  SampledBatch b = sampleOnce(graph, options, kSeeds, {1, 0, 0});
  bool repeats = false;
  for (int i = 0; i < 2; ++i)
    for (int64_t j = 0; j < b.views[i].numDst; ++j) {
      std::vector<int64_t> sources = sourcesOf(b, i, j);
      const int64_t degree = graph.inDegree(b.nodes[j]);
      EXPECT_EQ(int64_t(sources.size()), degree ? options.fanouts[i] : 0)
          << "block " << i << " node " << b.nodes[j];
      repeats |=
          std::adjacent_find(sources.begin(), sources.end()) != sources.end();
    }
  // Seeds 197 and 198 are isolated: no draws at all.
  EXPECT_EQ(sourcesOf(b, 1, 6), std::vector<int64_t>{});
  // 30 draws from about 3 neighbours must repeat.
  EXPECT_TRUE(repeats);
}

TEST(Sampler, SameKeySameBatchOtherKeysDiffer) {
  TestGraph graph(300, 3000, 6);
  SamplerOptions options;
  options.fanouts = {4, 3, 2};
  options.seed = 9;
  NeighborSampler sampler(graph.adjacency(), graph.numNodes, options);
  BlockBuilder reused(graph.numNodes);
  SampledBatch first, again, otherEpoch, otherBatch;
  sampler.sample(kSeeds.data(), 8, {9, 1, 4}, reused, first);
  // Another batch in between must leave no trace in the dedupe table.
  sampler.sample(kSeeds.data() + 2, 5, {9, 3, 3}, reused, otherBatch);
  BlockBuilder fresh(graph.numNodes);
  sampler.sample(kSeeds.data(), 8, {9, 1, 4}, fresh, again);
  EXPECT_EQ(contentOf(first), contentOf(again));

  sampler.sample(kSeeds.data(), 8, {9, 2, 4}, reused, otherEpoch);
  EXPECT_NE(contentOf(first), contentOf(otherEpoch));
  sampler.sample(kSeeds.data(), 8, {9, 1, 5}, reused, otherBatch);
  EXPECT_NE(contentOf(first), contentOf(otherBatch));
}

TEST(Sampler, SampleNeighborsIsWhatTheSamplerDraws) {
  // A node's draws depend on (key, layer, node) alone: sampleNeighbors
  // called on its own gives the seeds' rows of the last block.
  TestGraph graph(200, 2500, 7);
  SamplerOptions options;
  options.fanouts = {3, 6};
  const SampleKey key{4, 2, 8};
  SampledBatch b = sampleOnce(graph, options, kSeeds, key);
  for (int64_t j = 0; j < int64_t(kSeeds.size()); ++j) {
    std::vector<int64_t> drawn;
    sampleNeighbors(graph.adjacency(), kSeeds[j], kSeeds[j], 6, false, key, 1,
                    drawn);
    std::sort(drawn.begin(), drawn.end());
    EXPECT_EQ(sourcesOf(b, 1, j), drawn) << "seed " << kSeeds[j];
  }
}

TEST(Sampler, UniformOverNeighbours) {
  // A star: node 0's in-neighbours are 1..20. Over many batch keys every
  // neighbour must come up about equally often (chi-square, 19 degrees of
  // freedom: 60 is beyond the 1e-6 quantile), in both modes.
  const int64_t leaves = 20, fanout = 5, trials = 20000;
  std::vector<int64_t> src, dst(leaves, 0);
  for (int64_t u = 1; u <= leaves; ++u)
    src.push_back(u);
  GraphStorage star = GraphStorage::build(leaves + 1, leaves + 1, src, dst);
  const Adjacency adj = Adjacency::of(star.view());
  for (bool replace : {false, true}) {
    std::vector<int64_t> count(size_t(leaves) + 1, 0), drawn;
    for (int64_t t = 0; t < trials; ++t) {
      drawn.clear();
      sampleNeighbors(adj, 0, 0, fanout, replace, {1, 0, uint64_t(t)}, 0,
                      drawn);
      ASSERT_EQ(int64_t(drawn.size()), fanout);
      for (int64_t u : drawn)
        ++count[size_t(u)];
    }
    const double expected = double(trials * fanout) / double(leaves);
    double chi2 = 0;
    for (int64_t u = 1; u <= leaves; ++u)
      chi2 += (count[u] - expected) * (count[u] - expected) / expected;
    EXPECT_LT(chi2, 60.0) << (replace ? "with" : "without") << " replacement";
  }
}

TEST(Sampler, UniformOverSubsets) {
  // Floyd's algorithm must make every 2-subset of 6 neighbours equally
  // likely (a biased variant can keep uniform marginals); 14 degrees of
  // freedom, 50 is beyond the 1e-5 quantile.
  std::vector<int64_t> src = {1, 2, 3, 4, 5, 6}, dst(6, 0);
  GraphStorage star = GraphStorage::build(7, 7, src, dst);
  const Adjacency adj = Adjacency::of(star.view());
  const int64_t trials = 30000;
  std::map<std::pair<int64_t, int64_t>, int64_t> count;
  std::vector<int64_t> drawn;
  for (int64_t t = 0; t < trials; ++t) {
    drawn.clear();
    sampleNeighbors(adj, 0, 0, 2, false, {3, 1, uint64_t(t)}, 2, drawn);
    ASSERT_EQ(drawn.size(), 2u);
    ++count[{std::min(drawn[0], drawn[1]), std::max(drawn[0], drawn[1])}];
  }
  ASSERT_EQ(count.size(), 15u);
  const double expected = double(trials) / 15;
  double chi2 = 0;
  for (const auto &[pair, n] : count)
    chi2 += (n - expected) * (n - expected) / expected;
  EXPECT_LT(chi2, 50.0);
}

TEST(Sampler, LargeFanoutStaysDistinct) {
  // Fanouts above the linear-scan limit take Floyd's hash-set path.
  const int64_t leaves = 300;
  std::vector<int64_t> src, dst(leaves, 0);
  for (int64_t u = 1; u <= leaves; ++u)
    src.push_back(u);
  GraphStorage star = GraphStorage::build(leaves + 1, leaves + 1, src, dst);
  std::vector<int64_t> drawn;
  for (uint64_t batch = 0; batch < 20; ++batch) {
    drawn.clear();
    sampleNeighbors(Adjacency::of(star.view()), 0, 0, 250, false, {0, 0, batch},
                    0, drawn);
    std::set<int64_t> distinct(drawn.begin(), drawn.end());
    EXPECT_EQ(drawn.size(), 250u);
    EXPECT_EQ(distinct.size(), 250u);
  }
}

TEST(Sampler, NoSeedsGiveEmptyBlocks) {
  TestGraph graph(50, 200, 8);
  SamplerOptions options;
  options.fanouts = {3, 2};
  SampledBatch b = sampleOnce(graph, options, {}, {});
  EXPECT_EQ(b.levelSizes, (std::vector<int64_t>{0, 0, 0}));
  ASSERT_EQ(b.numLayers(), 2);
  EXPECT_EQ(b.sampledEdges(), 0);
  EXPECT_EQ(b.views[0].numSrc, 0);
}

TEST(Sampler, Errors) {
  TestGraph graph(50, 200, 9);
  auto withFanouts = [&](std::vector<int64_t> fanouts) {
    SamplerOptions options;
    options.fanouts = std::move(fanouts);
    return options;
  };
  EXPECT_EQ(dataErrorOf([&] {
              NeighborSampler(graph.adjacency(), 50, withFanouts({5, 0}));
            }),
            "sampler: fanout 0 of layer 1: expected a positive count or -1 "
            "(all neighbours)");
  EXPECT_EQ(dataErrorOf([&] {
              NeighborSampler(graph.adjacency(), 50, withFanouts({-2}));
            }),
            "sampler: fanout -2 of layer 0: expected a positive count or -1 "
            "(all neighbours)");
  std::vector<int64_t> out;
  EXPECT_EQ(dataErrorOf([&] {
              sampleNeighbors(graph.adjacency(), 0, 0, 0, false, {}, 2, out);
            }),
            "sampler: fanout 0 of layer 2: expected a positive count or -1 "
            "(all neighbours)");

  NeighborSampler sampler(graph.adjacency(), 50, withFanouts({2}));
  BlockBuilder builder(50);
  SampledBatch b;
  const std::vector<int64_t> twice = {3, 4, 3}, outside = {3, 50};
  EXPECT_EQ(
      dataErrorOf([&] { sampler.sample(twice.data(), 3, {}, builder, b); }),
      "sampler: seed 3 appears twice in the batch");
  EXPECT_EQ(
      dataErrorOf([&] { sampler.sample(outside.data(), 2, {}, builder, b); }),
      "sampler: seed 50 out of range [0, 50)");
  // A failed start leaves the builder usable.
  SampledBatch good = sampleOnce(graph, withFanouts({2}), {3, 4}, {});
  sampler.sample(twice.data(), 2, {}, builder, b);
  EXPECT_EQ(contentOf(b), contentOf(good));
}

TEST(GraphView, FromCsrMatchesBuild) {
  for (uint64_t seed = 0; seed < 5; ++seed) {
    const int64_t numSrc = 30 + int64_t(seed) * 7, numDst = numSrc / 3;
    CounterRng rng(seed, 3);
    std::vector<int64_t> offsets = {0}, src, dst;
    std::vector<int32_t> edgeSrc;
    for (int64_t v = 0; v < numDst; ++v) {
      // Degrees 0..5, sources ascending, parallel edges allowed.
      std::vector<int32_t> row(rng.nextBelow(6));
      for (int32_t &u : row)
        u = int32_t(rng.nextBelow(uint32_t(numSrc)));
      std::sort(row.begin(), row.end());
      for (int32_t u : row) {
        edgeSrc.push_back(u);
        src.push_back(u);
        dst.push_back(v);
      }
      offsets.push_back(int64_t(edgeSrc.size()));
    }
    GraphStorage built = GraphStorage::build(numSrc, numDst, src, dst);
    GraphStorage fast = GraphStorage::fromCsr(numSrc, numDst, offsets, edgeSrc);
    GraphView a = built.view(), b = fast.view();
    ASSERT_EQ(a.numSrc, b.numSrc);
    ASSERT_EQ(a.numDst, b.numDst);
    ASSERT_EQ(a.numEdges, b.numEdges);
    const int64_t e = a.numEdges;
    EXPECT_TRUE(std::equal(a.inOffsets, a.inOffsets + numDst + 1, b.inOffsets));
    EXPECT_TRUE(std::equal(a.edgeSrc, a.edgeSrc + e, b.edgeSrc));
    EXPECT_TRUE(std::equal(a.edgeDst, a.edgeDst + e, b.edgeDst));
    EXPECT_TRUE(
        std::equal(a.outOffsets, a.outOffsets + numSrc + 1, b.outOffsets));
    EXPECT_TRUE(std::equal(a.outEdges, a.outEdges + e, b.outEdges));
    EXPECT_TRUE(std::equal(a.outDst, a.outDst + e, b.outDst));
  }
}

// A partition lists each destination's sources by global id, not by local
// id: build() with a source rank orders rows by it, and fromCsr takes rows
// in that order (a relation's subgraph keeps it).
TEST(GraphView, SourceRankOrdersEachRow) {
  const std::vector<int64_t> reversed = {4, 3, 2, 1, 0};
  GraphStorage built = GraphStorage::build(5, 2, {1, 3, 0, 4, 2},
                                           {0, 0, 0, 1, 1}, {}, 0, reversed);
  const GraphView a = built.view();
  EXPECT_EQ(std::vector<int32_t>(a.edgeSrc, a.edgeSrc + 5),
            (std::vector<int32_t>{3, 1, 0, 4, 2}));
  GraphStorage fast =
      GraphStorage::fromCsr(5, 2, {0, 3, 5}, {3, 1, 0, 4, 2});
  const GraphView b = fast.view();
  EXPECT_TRUE(std::equal(a.outOffsets, a.outOffsets + 6, b.outOffsets));
  EXPECT_TRUE(std::equal(a.outEdges, a.outEdges + 5, b.outEdges));
  EXPECT_TRUE(std::equal(a.outDst, a.outDst + 5, b.outDst));
  EXPECT_EQ(dataErrorOf([] {
              GraphStorage::build(3, 1, {0}, {0}, {}, 0, {0, 1});
            }),
            "graph: source order has 2 entries for 3 sources");
}

TEST(GraphView, FromCsrErrors) {
  EXPECT_EQ(dataErrorOf([] {
              GraphStorage::fromCsr(3, 2, {0, 1}, {0});
            }),
            "graph: 2 in-offsets for 2 destinations (expected 3)");
  EXPECT_EQ(dataErrorOf([] {
              GraphStorage::fromCsr(3, 2, {0, 1, 3}, {0});
            }),
            "graph: in-offsets run from 0 to 3, not from 0 to the 1 edges");
  EXPECT_EQ(dataErrorOf([] {
              GraphStorage::fromCsr(3, 2, {0, 2, 1}, {0});
            }),
            "graph: in-offsets decrease at destination 1");
  EXPECT_EQ(dataErrorOf([] {
              GraphStorage::fromCsr(3, 2, {0, 2, 2}, {1, 3});
            }),
            "graph: edge 1: source id 3 out of range [0, 3)");
  EXPECT_EQ(dataErrorOf([] {
              GraphStorage::fromCsr(2, 3, {0, 0, 0, 0}, {});
            }),
            "graph: 3 destinations but 2 sources (destinations must be the "
            "first sources)");
}

TEST(Sampler, EpochSeedOrder) {
  std::vector<int64_t> train(1000);
  std::iota(train.begin(), train.end(), int64_t(5000));
  EXPECT_EQ(epochSeedOrder(train, false, 1, 3), train);

  std::vector<int64_t> order = epochSeedOrder(train, true, 1, 3);
  EXPECT_NE(order, train);
  std::vector<int64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, train) << "not a permutation of the training nodes";
  EXPECT_EQ(epochSeedOrder(train, true, 1, 3), order);
  EXPECT_NE(epochSeedOrder(train, true, 1, 4), order);
  EXPECT_NE(epochSeedOrder(train, true, 2, 3), order);

  // Cut into batches of 300: 300, 300, 300, 100 seeds, each node once.
  std::set<int64_t> seen;
  int64_t batches = 0;
  for (size_t at = 0; at < order.size(); at += 300, ++batches) {
    const size_t size = std::min<size_t>(300, order.size() - at);
    EXPECT_EQ(size, batches < 3 ? 300u : 100u);
    seen.insert(order.begin() + at, order.begin() + at + size);
  }
  EXPECT_EQ(batches, 4);
  EXPECT_EQ(seen.size(), train.size());
}

namespace {

/// Samples `numBatches` batches of 4 seeds through a pipeline and returns
/// their content in delivery order.
auto pipelineContent(const TestGraph &graph, int workers, int capacity,
                     int64_t numBatches) {
  SamplerOptions options;
  options.fanouts = {3, 2};
  NeighborSampler sampler(graph.adjacency(), graph.numNodes, options);
  std::vector<BlockBuilder> builders(size_t(workers),
                                     BlockBuilder(graph.numNodes));
  BatchPipeline pipeline(numBatches, workers, capacity,
                         [&](int64_t b, int worker, SampledBatch &slot) {
                           std::vector<int64_t> seeds;
                           for (int64_t s = 0; s < 4; ++s)
                             seeds.push_back((b * 4 + s) % graph.numNodes);
                           sampler.sample(seeds.data(), 4, {0, 0, uint64_t(b)},
                                          builders[size_t(worker)], slot);
                           slot.labels = {b};
                         });
  std::vector<decltype(contentOf(SampledBatch()))> content;
  while (SampledBatch *batch = pipeline.next()) {
    EXPECT_EQ(batch->labels, std::vector<int64_t>{int64_t(content.size())})
        << "out of order";
    content.push_back(contentOf(*batch));
  }
  EXPECT_EQ(pipeline.next(), nullptr);
  return content;
}

} // namespace

TEST(BatchPipeline, InOrderAndIndependentOfWorkers) {
  TestGraph graph(200, 1500, 10);
  auto one = pipelineContent(graph, 1, 2, 25);
  ASSERT_EQ(one.size(), 25u);
  EXPECT_EQ(pipelineContent(graph, 3, 2, 25), one);
  EXPECT_EQ(pipelineContent(graph, 3, 5, 25), one);
  EXPECT_EQ(pipelineContent(graph, 2, 1, 25), one);
  EXPECT_TRUE(pipelineContent(graph, 2, 3, 0).empty());
}

TEST(BatchPipeline, NeverMoreThanCapacityAhead) {
  const int capacity = 3;
  std::atomic<int64_t> finished{0};
  std::atomic<bool> ahead{false};
  BatchPipeline pipeline(200, 3, capacity,
                         [&](int64_t b, int, SampledBatch &slot) {
                           // Batches the consumer is done with bound the
                           // batches that may be in the ring.
                           if (b >= finished.load() + capacity)
                             ahead = true;
                           slot.labels = {b};
                         });
  int64_t expected = 0;
  while (SampledBatch *batch = pipeline.next()) {
    EXPECT_EQ(batch->labels[0], expected++);
    ++finished;
  }
  EXPECT_EQ(expected, 200);
  EXPECT_FALSE(ahead);
}

// A ring the caller owns outlives its pipelines: a second epoch's pipeline
// over it delivers its own batches in order, into the buffers the first one
// grew (a slot's features keep their allocation).
TEST(BatchPipeline, CallerSlotsOutliveThePipeline) {
  std::vector<SampledBatch> slots(3);
  auto epoch = [&](int64_t first) {
    std::vector<int64_t> seen;
    BatchPipeline pipeline(7, 2, slots, [&](int64_t b, int, SampledBatch &slot) {
      slot.labels = {first + b};
      slot.features.resize(1000);
    });
    while (SampledBatch *batch = pipeline.next())
      seen.push_back(batch->labels[0]);
    return seen;
  };
  EXPECT_EQ(epoch(0), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}));
  // The batches were produced into the caller's slots.
  std::vector<const float *> buffers;
  for (const SampledBatch &slot : slots) {
    EXPECT_EQ(slot.features.size(), 1000u);
    buffers.push_back(slot.features.data());
  }
  EXPECT_EQ(epoch(100),
            (std::vector<int64_t>{100, 101, 102, 103, 104, 105, 106}));
  for (size_t i = 0; i < slots.size(); ++i)
    EXPECT_EQ(slots[i].features.data(), buffers[i]) << "slot " << i;
}

TEST(BatchPipeline, LookAheadKeepsTheCurrentBatch) {
  // A device trainer holds batch b while it stages b + 1 (next(1)): with 2
  // slots and 3 workers, no worker may refill b's slot until the next call.
  BatchPipeline pipeline(100, 3, 2, [](int64_t b, int, SampledBatch &slot) {
    slot.labels.assign(64, b);
  });
  SampledBatch *current = pipeline.next();
  for (int64_t b = 0; b + 1 < 100; ++b) {
    SampledBatch *following = pipeline.next(/*keep=*/1);
    ASSERT_NE(following, nullptr);
    ASSERT_NE(following, current);
    // Let the workers run: they must not touch `current`.
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    EXPECT_EQ(current->labels, std::vector<int64_t>(64, b));
    EXPECT_EQ(following->labels, std::vector<int64_t>(64, b + 1));
    current = following;
  }
  EXPECT_EQ(pipeline.next(1), nullptr);
  EXPECT_THROW(pipeline.next(2), std::logic_error); // keep < capacity
}

TEST(BatchPipeline, RethrowsProducerErrorInTurn) {
  BatchPipeline pipeline(10, 3, 4, [](int64_t b, int, SampledBatch &slot) {
    if (b == 3)
      throw DataError("batch 3 failed");
    slot.labels = {b};
  });
  for (int64_t b = 0; b < 3; ++b) {
    SampledBatch *batch = pipeline.next();
    ASSERT_NE(batch, nullptr);
    EXPECT_EQ(batch->labels[0], b);
  }
  EXPECT_EQ(dataErrorOf([&] { pipeline.next(); }), "batch 3 failed");
  EXPECT_EQ(dataErrorOf([&] { pipeline.next(); }), "batch 3 failed");
}

TEST(BatchPipeline, StopsWhenTheConsumerStopsEarly) {
  std::atomic<int64_t> produced{0};
  {
    BatchPipeline pipeline(1000, 2, 2,
                           [&](int64_t, int, SampledBatch &) { ++produced; });
    ASSERT_NE(pipeline.next(), nullptr);
  }
  // Destruction joined the workers; they never ran past the ring (batch 0
  // is still the consumer's, so only batches 0 and 1 fit).
  EXPECT_LE(produced.load(), 2);
}

TEST(BatchPipeline, Errors) {
  auto noop = [](int64_t, int, SampledBatch &) {};
  EXPECT_EQ(dataErrorOf([&] { BatchPipeline(5, 0, 2, noop); }),
            "pipeline: 5 batches, 0 workers, 2 slots (expected batches >= 0, "
            "workers and slots >= 1)");
  EXPECT_EQ(dataErrorOf([&] { BatchPipeline(5, 2, 0, noop); }),
            "pipeline: 5 batches, 2 workers, 0 slots (expected batches >= 0, "
            "workers and slots >= 1)");
}
