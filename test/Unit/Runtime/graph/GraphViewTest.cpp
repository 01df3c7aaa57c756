//===- GraphViewTest.cpp - The kernels' graph layout ----------------------===//
//
// Checks GraphStorage::build against the documented numbering (destination
// major, sources ascending, parallel edges in input order; out-edges
// ascending per source) on a hand-worked example and on random bipartite
// multigraphs, plus its exact error messages.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/graph/GraphView.h"

#include "TestUtil.h"
#include "gnnrt/support/Random.h"

#include <algorithm>
#include <tuple>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

template <typename T> std::vector<T> toVector(const T *data, int64_t n) {
  return std::vector<T>(data, data + n);
}

} // namespace

TEST(GraphView, SmallExampleLayout) {
  // 4 sources, 3 destinations (the first 3 sources). Input edges:
  // 0: 2->0, 1: 1->0, 2: 0->1, 3: 3->1, 4: 1->0 (parallel to edge 1).
  // Destination 2 has no in-edges.
  GraphStorage storage =
      GraphStorage::build(4, 3, {2, 1, 0, 3, 1}, {0, 0, 1, 1, 0});
  GraphView g = storage.view();
  ASSERT_EQ(g.numSrc, 4);
  ASSERT_EQ(g.numDst, 3);
  ASSERT_EQ(g.numEdges, 5);
  EXPECT_EQ(toVector(g.inOffsets, 4), (std::vector<int64_t>{0, 3, 5, 5}));
  EXPECT_EQ(toVector(g.edgeSrc, 5), (std::vector<int32_t>{1, 1, 2, 0, 3}));
  EXPECT_EQ(toVector(g.edgeDst, 5), (std::vector<int32_t>{0, 0, 0, 1, 1}));
  EXPECT_EQ(toVector(g.outOffsets, 5), (std::vector<int64_t>{0, 1, 3, 4, 5}));
  EXPECT_EQ(toVector(g.outEdges, 5), (std::vector<int64_t>{3, 0, 1, 2, 4}));
  EXPECT_EQ(toVector(g.outDst, 5), (std::vector<int32_t>{1, 0, 0, 0, 1}));
  EXPECT_EQ(storage.numSrc(), 4);
  EXPECT_EQ(storage.numDst(), 3);
  EXPECT_EQ(storage.numEdges(), 5);
}

TEST(GraphView, MatchesNaiveLayout) {
  for (uint64_t seed = 0; seed < 5; ++seed) {
    const int64_t numSrc = 40 + int64_t(seed) * 13, numDst = numSrc / 2 + 1;
    const int64_t m = 600;
    CounterRng rng(seed, 7);
    std::vector<int64_t> src(m), dst(m);
    for (int64_t e = 0; e < m; ++e) {
      // Few distinct sources per destination give many parallel edges;
      // skewed destinations give empty and heavy rows.
      src[e] = rng.nextBelow(uint32_t(numSrc)) % 9;
      dst[e] = rng.nextBelow(uint32_t(numDst)) % (numDst / 2 + 1);
    }
    GraphStorage storage = GraphStorage::build(numSrc, numDst, src, dst);
    GraphView g = storage.view();
    ASSERT_EQ(g.numEdges, m);

    // Edge k is the k-th of the input edges sorted by (dst, src, input id).
    std::vector<std::tuple<int64_t, int64_t, int64_t>> sorted;
    for (int64_t e = 0; e < m; ++e)
      sorted.emplace_back(dst[e], src[e], e);
    std::sort(sorted.begin(), sorted.end());
    for (int64_t k = 0; k < m; ++k) {
      EXPECT_EQ(g.edgeDst[k], std::get<0>(sorted[k])) << "edge " << k;
      EXPECT_EQ(g.edgeSrc[k], std::get<1>(sorted[k])) << "edge " << k;
    }
    for (int64_t v = 0; v < numDst; ++v) {
      int64_t degree = std::count(dst.begin(), dst.end(), v);
      EXPECT_EQ(g.inOffsets[v + 1] - g.inOffsets[v], degree);
      for (int64_t k = g.inOffsets[v]; k < g.inOffsets[v + 1]; ++k)
        EXPECT_EQ(g.edgeDst[k], v);
    }
    EXPECT_EQ(g.inOffsets[numDst], m);

    // The out-edges of u are exactly the edges with source u, ascending.
    for (int64_t u = 0; u < numSrc; ++u) {
      std::vector<int64_t> expected;
      for (int64_t k = 0; k < m; ++k)
        if (g.edgeSrc[k] == u)
          expected.push_back(k);
      std::vector<int64_t> actual(g.outEdges + g.outOffsets[u],
                                  g.outEdges + g.outOffsets[u + 1]);
      EXPECT_EQ(actual, expected) << "source " << u;
    }
    EXPECT_EQ(g.outOffsets[numSrc], m);
    // outDst lists the destinations of outEdges.
    for (int64_t i = 0; i < m; ++i)
      EXPECT_EQ(g.outDst[i], g.edgeDst[g.outEdges[i]]) << "out-edge " << i;
  }
}

TEST(GraphView, EmptyGraph) {
  GraphStorage storage = GraphStorage::build(3, 2, {}, {});
  GraphView g = storage.view();
  EXPECT_EQ(g.numEdges, 0);
  EXPECT_EQ(toVector(g.inOffsets, 3), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(toVector(g.outOffsets, 4), (std::vector<int64_t>{0, 0, 0, 0}));
}

TEST(GraphView, RejectsBadEdgeLists) {
  EXPECT_EQ(
      dataErrorOf([] {
        GraphStorage::build(10, 10, {0, 1, 2, 3, 4, 12}, {0, 0, 0, 0, 0, 0});
      }),
      "graph: edge 5: source id 12 out of range [0, 10)");
  EXPECT_EQ(dataErrorOf([] { GraphStorage::build(4, 3, {0}, {-1}); }),
            "graph: edge 0: destination id -1 out of range [0, 3)");
  // A valid source id is not a valid destination id in a block.
  EXPECT_EQ(dataErrorOf([] {
              GraphStorage::build(4, 3, {0, 1}, {0, 3});
            }),
            "graph: edge 1: destination id 3 out of range [0, 3)");
  EXPECT_EQ(dataErrorOf([] { GraphStorage::build(4, 5, {}, {}); }),
            "graph: 5 destinations but 4 sources (destinations must be the "
            "first sources)");
  EXPECT_EQ(dataErrorOf([] {
              GraphStorage::build(4, 4, {0, 1}, {0});
            }),
            "graph: 2 sources but 1 destinations");
}

// relation(g, "name"): each relation's subgraph keeps g's nodes and takes
// exactly g's edges of that relation, in g's edge order; together they are g.
TEST(GraphView, RelationSubgraphsSplitTheEdges) {
  CounterRng rng(5, 2);
  const int64_t n = 40, m = 300;
  const int32_t relations = 3;
  std::vector<int64_t> src(m), dst(m);
  std::vector<int32_t> type(m);
  for (int64_t e = 0; e < m; ++e) {
    src[e] = rng.nextBelow(uint32_t(n));
    dst[e] = rng.nextBelow(uint32_t(n - 5)); // the last 5 get no in-edges
    type[e] = int32_t(rng.nextBelow(uint32_t(relations)));
  }
  const GraphStorage storage =
      GraphStorage::build(n, n, src, dst, type, relations);
  const GraphView g = storage.view();
  // The same graph without its relation index: built by a scan of g's edges
  // instead of from the index's pairs, with the same result.
  GraphView unindexed = g;
  unindexed.relationIndex = nullptr;
  int64_t edges = 0;
  for (int32_t r = 0; r < relations; ++r) {
    const GraphStorage sub = relationSubgraph(g, r);
    const GraphView s = sub.view();
    const GraphStorage scanned = relationSubgraph(unindexed, r);
    EXPECT_EQ(std::vector<int64_t>(s.inOffsets, s.inOffsets + s.numDst + 1),
              std::vector<int64_t>(scanned.view().inOffsets,
                                   scanned.view().inOffsets + s.numDst + 1));
    EXPECT_EQ(std::vector<int32_t>(s.edgeSrc, s.edgeSrc + s.numEdges),
              std::vector<int32_t>(scanned.view().edgeSrc,
                                   scanned.view().edgeSrc + s.numEdges));
    EXPECT_EQ(s.numSrc, g.numSrc);
    EXPECT_EQ(s.numDst, g.numDst);
    // Per destination, the relation-r sources of g in g's order.
    for (int64_t v = 0; v < g.numDst; ++v) {
      std::vector<int32_t> expected;
      for (int64_t k = g.inOffsets[v]; k < g.inOffsets[v + 1]; ++k)
        if (g.edgeType[k] == r)
          expected.push_back(g.edgeSrc[k]);
      EXPECT_EQ(std::vector<int32_t>(s.edgeSrc + s.inOffsets[v],
                                     s.edgeSrc + s.inOffsets[v + 1]),
                expected)
          << "relation " << r << " destination " << v;
    }
    edges += s.numEdges;
  }
  EXPECT_EQ(edges, g.numEdges);
  EXPECT_THROW(relationSubgraph(g, relations), DataError);
  const GraphStorage plain = GraphStorage::build(n, n, src, dst);
  EXPECT_THROW(relationSubgraph(plain.view(), 0), DataError);
}

// relationView keeps a relation's subgraph with the graph's relation index:
// the second call returns the arrays of the first, until the storage's
// edges change (a sampled block refilled); a view without an index gets a
// subgraph built into the caller's scratch storage.
TEST(GraphView, RelationViewsAreBuiltOncePerGraph) {
  GraphStorage block = GraphStorage::fromCsr(3, 2, {0, 2, 3}, {0, 2, 1});
  block.setEdgeTypes({0, 1, 1}, 2);
  GraphStorage scratch;
  const GraphView first = relationView(block.view(), 1, scratch);
  const GraphView again = relationView(block.view(), 1, scratch);
  EXPECT_EQ(first.edgeSrc, again.edgeSrc);
  EXPECT_EQ(scratch.numEdges(), 0);
  ASSERT_EQ(first.numEdges, 2);
  EXPECT_EQ(first.edgeSrc[0], 2);
  EXPECT_EQ(first.edgeSrc[1], 1);

  // Refilled with other edges: relation 1 is now destination 0's source 1.
  block.assignCsr(3, 2, {0, 2, 3}, {1, 2, 0});
  block.setEdgeTypes({1, 0, 0}, 2);
  const GraphView refilled = relationView(block.view(), 1, scratch);
  ASSERT_EQ(refilled.numEdges, 1);
  EXPECT_EQ(refilled.edgeSrc[0], 1);
  EXPECT_EQ(refilled.inOffsets[1], 1);
  EXPECT_EQ(refilled.inOffsets[2], 1);

  GraphView unindexed = block.view();
  unindexed.relationIndex = nullptr;
  const GraphView built = relationView(unindexed, 0, scratch);
  EXPECT_EQ(scratch.numEdges(), 2);
  EXPECT_EQ(built.edgeSrc, scratch.view().edgeSrc);
  EXPECT_THROW(relationView(block.view(), 2, scratch), DataError);
}

// A block whose readers walk in-edges only is filled without out-edge
// lists: its view says so with null pointers, and a recycled block filled
// with them again has the right ones.
TEST(GraphView, BlockWithoutOutEdges) {
  GraphStorage block;
  // Destination 0 has sources 1 and 2, destination 1 source 0.
  block.assignCsr(3, 2, {0, 2, 3}, {1, 2, 0}, /*outEdges=*/false);
  GraphView v = block.view();
  EXPECT_EQ(v.numEdges, 3);
  EXPECT_EQ(v.edgeSrc[1], 2);
  EXPECT_EQ(v.edgeDst[2], 1);
  EXPECT_EQ(v.outOffsets, nullptr);
  EXPECT_EQ(v.outEdges, nullptr);
  EXPECT_EQ(v.outDst, nullptr);

  block.assignCsr(3, 2, {0, 2, 3}, {1, 2, 0});
  v = block.view();
  ASSERT_NE(v.outOffsets, nullptr);
  // Source 0's out-edge is edge 2 (to destination 1); source 2's is edge 1.
  EXPECT_EQ(v.outOffsets[1] - v.outOffsets[0], 1);
  EXPECT_EQ(v.outEdges[v.outOffsets[0]], 2);
  EXPECT_EQ(v.outDst[v.outOffsets[0]], 1);
  EXPECT_EQ(v.outEdges[v.outOffsets[2]], 1);
}
