//===- GraphTest.cpp - CSR/CSC construction ------------------------------===//
//
// Checks Graph::fromEdges against a naive construction (collect each row's
// (neighbour, edge id) pairs and sort them) on random multigraphs, plus the
// documented order and error behaviour.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/graph/Graph.h"

#include "TestUtil.h"
#include "gnnrt/support/Random.h"

#include <algorithm>

using namespace gnnrt;
using namespace gnnrt::test;

TEST(Graph, SmallExampleLayout) {
  // Edges: 0:2->0, 1:1->0, 2:0->1, 3:2->1, 4:1->0 (parallel to 1).
  Graph g = Graph::fromEdges(3, {2, 1, 0, 2, 1}, {0, 0, 1, 1, 0});
  EXPECT_EQ(g.numNodes(), 3);
  EXPECT_EQ(g.numEdges(), 5);
  EXPECT_EQ(g.inOffsets(), (std::vector<int64_t>{0, 3, 5, 5}));
  EXPECT_EQ(g.inSources(), (std::vector<int32_t>{1, 1, 2, 0, 2}));
  EXPECT_EQ(g.inEdgeIds(), (std::vector<int64_t>{1, 4, 0, 2, 3}));
  EXPECT_EQ(g.outOffsets(), (std::vector<int64_t>{0, 1, 3, 5}));
  EXPECT_EQ(g.outTargets(), (std::vector<int32_t>{1, 0, 0, 0, 1}));
  EXPECT_EQ(g.outEdgeIds(), (std::vector<int64_t>{2, 1, 4, 0, 3}));
  EXPECT_EQ(g.inDegrees(), (std::vector<int64_t>{3, 2, 0}));
  EXPECT_EQ(g.outDegrees(), (std::vector<int64_t>{1, 2, 2}));
  EXPECT_EQ(g.inDegree(2), 0);
  EXPECT_EQ(g.outDegree(0), 1);
}

TEST(Graph, MatchesNaiveConstruction) {
  for (uint64_t seed = 0; seed < 5; ++seed) {
    const int64_t n = 50 + int64_t(seed) * 37, m = 1000;
    CounterRng rng(seed, 0);
    std::vector<int64_t> src(m), dst(m);
    for (int64_t e = 0; e < m; ++e) {
      // Skewed destinations give empty rows and heavy rows.
      src[e] = rng.nextBelow(uint32_t(n));
      dst[e] = rng.nextBelow(uint32_t(n)) % (n / 3 + 1);
    }
    Graph g = Graph::fromEdges(n, src, dst);
    std::vector<std::vector<std::pair<int64_t, int64_t>>> in(n), out(n);
    for (int64_t e = 0; e < m; ++e) {
      in[dst[e]].push_back({src[e], e});
      out[src[e]].push_back({dst[e], e});
    }
    for (int64_t v = 0; v < n; ++v) {
      std::sort(in[v].begin(), in[v].end());
      std::sort(out[v].begin(), out[v].end());
      ASSERT_EQ(g.inDegree(v), int64_t(in[v].size()));
      ASSERT_EQ(g.outDegree(v), int64_t(out[v].size()));
      for (size_t k = 0; k < in[v].size(); ++k) {
        int64_t pos = g.inOffsets()[v] + int64_t(k);
        EXPECT_EQ(g.inSources()[pos], in[v][k].first);
        EXPECT_EQ(g.inEdgeIds()[pos], in[v][k].second);
      }
      for (size_t k = 0; k < out[v].size(); ++k) {
        int64_t pos = g.outOffsets()[v] + int64_t(k);
        EXPECT_EQ(g.outTargets()[pos], out[v][k].first);
        EXPECT_EQ(g.outEdgeIds()[pos], out[v][k].second);
      }
    }
  }
}

TEST(Graph, EmptyGraph) {
  Graph g = Graph::fromEdges(4, {}, {});
  EXPECT_EQ(g.numEdges(), 0);
  EXPECT_EQ(g.inOffsets(), (std::vector<int64_t>{0, 0, 0, 0, 0}));
}

TEST(Graph, CountingSortIsStable) {
  std::vector<int64_t> key = {2, 0, 2, 1, 0};
  EXPECT_EQ(countingSortOrder(3, key), (std::vector<int64_t>{1, 4, 3, 0, 2}));
  // With an input order, ties keep that order instead.
  EXPECT_EQ(countingSortOrder(3, key, {4, 3, 2, 1, 0}),
            (std::vector<int64_t>{4, 1, 3, 2, 0}));
}

TEST(Graph, RejectsOutOfRangeIds) {
  EXPECT_EQ(dataErrorOf([] {
              Graph::fromEdges(3, {0, 3}, {1, 1});
            }),
            "graph: edge 1 (3 -> 1) has a node id out of range [0, 3)");
  EXPECT_EQ(dataErrorOf([] {
              Graph::fromEdges(3, {0}, {1, 1});
            }),
            "graph: 1 sources but 2 destinations");
}
