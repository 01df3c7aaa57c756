//===- GraphBatchTest.cpp - Packing graphs block-diagonally ---------------===//
//
// The packed batch of ogbg-tiny's graphs (make-ogbg-tiny.py) against the
// renumbering worked out by hand, and NCI1 batches against the collection
// they came from.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/GraphBatch.h"

#include "TestUtil.h"

using namespace gnnrt;
using namespace gnnrt::test;

namespace {
std::string ogbgTinyDir() {
  return sourceDir() + "/test/Unit/Runtime/data/ogbg-tiny";
}
} // namespace

TEST(GraphBatch, PacksInTheOrderGiven) {
  const GraphCollection g = loadGraphCollection(ogbgTinyDir());
  const GraphBatch b = packGraphs(g, {3, 0, 2});
  // Graph 3 (2 nodes) first, then graph 0 (3), then graph 2 (4).
  EXPECT_EQ(b.nodeOffsets, (std::vector<int64_t>{0, 2, 5, 9}));
  EXPECT_EQ(b.nodeGraph, (std::vector<int64_t>{0, 0, 1, 1, 1, 2, 2, 2, 2}));
  EXPECT_EQ(b.features, (std::vector<float>{8, 4, 9, 4.5, 0, 0, 1, 0.5, 2, 1, 4,
                                            2, 5, 2.5, 6, 3, 7, 3.5}));
  // Edges in batch order: (1,0) | (2,3) (3,4) | (5,6) (6,7) (7,8) (8,5).
  EXPECT_EQ(b.graph.numNodes(), 9);
  EXPECT_EQ(b.graph.numEdges(), 7);
  EXPECT_EQ(b.edgeFeatures, (std::vector<float>{6.25f, 0.25f, 1.25f, 2.25f,
                                                3.25f, 4.25f, 5.25f}));
  EXPECT_EQ(b.graph.inOffsets(),
            (std::vector<int64_t>{0, 1, 1, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(b.graph.inSources(), (std::vector<int32_t>{1, 2, 3, 8, 5, 6, 7}));
  // Node 5's in-edge is edge 6 of the batch, (8, 5): its feature 5.25.
  EXPECT_EQ(b.graph.inEdgeIds()[3], 6);
  EXPECT_EQ(b.classes, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(b.targets.empty());
}

TEST(GraphBatch, RepeatsAndEdgelessGraphsAreBlocksToo) {
  const GraphCollection g = loadGraphCollection(ogbgTinyDir());
  const GraphBatch b = packGraphs(g, {1, 1});
  EXPECT_EQ(b.nodeOffsets, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(b.graph.numEdges(), 0);
  EXPECT_EQ(b.features, (std::vector<float>{3, 1.5, 3, 1.5}));
  EXPECT_EQ(dataErrorOf([&] {
              packGraphs(g, {0, 4});
            }),
            "batch: graph id 4 out of range [0, 4)");
}

TEST(GraphBatch, Nci1BatchesAreBlockDiagonalAndDeterministic) {
  const GraphCollection g =
      loadGraphCollection(sourceDir() + "/examples/data/tu/NCI1");
  const std::vector<int64_t> ids = {4109, 7, 7, 2000, 0, 313};
  const GraphBatch b = packGraphs(g, ids), again = packGraphs(g, ids);
  int64_t nodes = 0, edges = 0;
  for (int64_t id : ids) {
    nodes += g.nodeCount(id);
    edges += g.edgeCount(id);
  }
  EXPECT_EQ(b.numNodes(), nodes);
  EXPECT_EQ(b.graph.numEdges(), edges);
  // No edge joins two graphs of the batch.
  for (int64_t v = 0; v < b.numNodes(); ++v)
    for (int64_t k = b.graph.inOffsets()[v]; k < b.graph.inOffsets()[v + 1];
         ++k)
      ASSERT_EQ(b.nodeGraph[b.graph.inSources()[k]], b.nodeGraph[v]);
  // Batch graph 3 is graph 2000: its feature rows and its in-degrees.
  const int64_t first = g.nodeOffsets[2000], at = b.nodeOffsets[3];
  for (int64_t v = 0; v < g.nodeCount(2000); ++v) {
    ASSERT_TRUE(std::equal(b.features.begin() + (at + v) * 37,
                           b.features.begin() + (at + v + 1) * 37,
                           g.features.begin() + (first + v) * 37));
    int64_t inDegree = 0;
    for (int64_t e = g.edgeOffsets[2000]; e < g.edgeOffsets[2001]; ++e)
      inDegree += g.dst[e] == first + v;
    ASSERT_EQ(b.graph.inDegree(at + v), inDegree);
  }
  EXPECT_EQ(b.features, again.features);
  EXPECT_EQ(b.graph.inSources(), again.graph.inSources());
  EXPECT_EQ(b.graph.inEdgeIds(), again.graph.inEdgeIds());
  EXPECT_EQ(b.nodeGraph, again.nodeGraph);
}
