//===- GraphCollectionTest.cpp - Reading TU and OGB graph collections -----===//
//
// The bundled TU datasets against their published statistics (TUDataset,
// graphlearning.io: graphs, average nodes, average undirected edges; PyG's
// TUDataset(use_node_attr=True) feature widths) and values Python read from
// the raw files; the hand-made OGB graph-property dataset (ogbg-tiny,
// written by make-ogbg-tiny.py) against the values that script chose.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/GraphCollection.h"

#include "TestUtil.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

std::string tuDir(const std::string &name) {
  return sourceDir() + "/examples/data/tu/" + name;
}
std::string ogbgTinyDir() {
  return sourceDir() + "/test/Unit/Runtime/data/ogbg-tiny";
}

struct Published {
  const char *name;
  int64_t graphs, classes, features;
  double nodes, edges; // averages per graph, edges undirected
};

void expectPublished(const GraphCollection &g, const Published &p) {
  EXPECT_EQ(g.numGraphs(), p.graphs);
  EXPECT_EQ(g.numClasses, p.classes);
  EXPECT_EQ(g.numFeatures, p.features);
  EXPECT_NEAR(double(g.numNodes()) / double(g.numGraphs()), p.nodes, 0.005);
  // DS_A.txt holds each undirected edge in both directions.
  EXPECT_NEAR(double(g.numEdges()) / 2 / double(g.numGraphs()), p.edges, 0.005);
  EXPECT_EQ(g.task, GraphTask::Classification);
  EXPECT_EQ(int64_t(g.classes.size()), p.graphs);
  EXPECT_EQ(int64_t(g.features.size()), g.numNodes() * p.features);
  // Every edge inside its graph.
  for (int64_t graph = 0; graph < g.numGraphs(); ++graph)
    for (int64_t e = g.edgeOffsets[graph]; e < g.edgeOffsets[graph + 1]; ++e)
      ASSERT_TRUE(g.src[e] >= g.nodeOffsets[graph] &&
                  g.src[e] < g.nodeOffsets[graph + 1] &&
                  g.dst[e] >= g.nodeOffsets[graph] &&
                  g.dst[e] < g.nodeOffsets[graph + 1])
          << p.name << " edge " << e;
}

/// The Errica folds: 10, each a partition of all graphs, the tests a
/// partition too (sizes as Python counted them in the JSON files).
void expectErricaFolds(const GraphCollection &g, size_t test0, size_t train0,
                       size_t valid0) {
  ASSERT_EQ(g.folds.size(), 10u);
  EXPECT_EQ(g.folds[0].name, "fold0");
  EXPECT_EQ(g.folds[0].test.size(), test0);
  EXPECT_EQ(g.folds[0].train.size(), train0);
  EXPECT_EQ(g.folds[0].valid.size(), valid0);
  std::vector<int> inTest(size_t(g.numGraphs()), 0);
  for (const GraphFold &fold : g.folds) {
    EXPECT_EQ(int64_t(fold.train.size() + fold.valid.size() + fold.test.size()),
              g.numGraphs());
    for (int64_t id : fold.test)
      ++inTest[size_t(id)];
  }
  EXPECT_EQ(std::count(inTest.begin(), inTest.end(), 1), g.numGraphs());
}

} // namespace

TEST(TuCollection, Nci1MatchesPublishedStatistics) {
  GraphCollection g = loadGraphCollection(tuDir("NCI1"));
  expectPublished(g, {"NCI1", 4110, 2, 37, 29.87, 32.30});
  // Python, from the raw files: 2053 / 2057 per class; graph 1 has 21
  // nodes and 42 directed edges, the last 39 nodes; the first edge is
  // (8, 1); node 1's label is 1, the smallest, so one-hot column 0.
  EXPECT_EQ(std::count(g.classes.begin(), g.classes.end(), 0), 2053);
  EXPECT_EQ(g.nodeCount(0), 21);
  EXPECT_EQ(g.edgeCount(0), 42);
  EXPECT_EQ(g.nodeCount(4109), 39);
  EXPECT_EQ(g.src[0], 7);
  EXPECT_EQ(g.dst[0], 0);
  EXPECT_EQ(g.features[0], 1.0f);
  EXPECT_EQ(std::accumulate(g.features.begin(), g.features.begin() + 37, 0.0f),
            1.0f);
  EXPECT_EQ(g.numEdgeFeatures, 0);
  expectErricaFolds(g, 412, 3328, 370);
}

TEST(TuCollection, ProteinsMatchesPublishedStatistics) {
  GraphCollection g = loadGraphCollection(tuDir("PROTEINS"));
  expectPublished(g, {"PROTEINS", 1113, 2, 4, 39.06, 72.82});
  // Labels 1 and 2 become classes 0 and 1 (663 and 450 graphs); node 1's
  // attribute 23 comes first, then its label 0 one-hot over [0, 2].
  EXPECT_EQ(std::count(g.classes.begin(), g.classes.end(), 0), 663);
  EXPECT_EQ(std::vector<float>(g.features.begin(), g.features.begin() + 4),
            (std::vector<float>{23, 1, 0, 0}));
  EXPECT_EQ(g.nodeCount(0), 42);
  EXPECT_EQ(g.edgeCount(0), 162);
  expectErricaFolds(g, 112, 900, 101);
}

TEST(TuCollection, EnzymesMatchesPublishedStatistics) {
  GraphCollection g = loadGraphCollection(tuDir("ENZYMES"));
  expectPublished(g, {"ENZYMES", 600, 6, 21, 32.63, 62.14});
  for (int64_t c = 0; c < 6; ++c)
    EXPECT_EQ(std::count(g.classes.begin(), g.classes.end(), c), 100);
  // 18 attributes, then the label (1 of 1..3) one-hot.
  EXPECT_FLOAT_EQ(g.features[1], 15.887014f);
  EXPECT_EQ(
      std::vector<float>(g.features.begin() + 18, g.features.begin() + 21),
      (std::vector<float>{1, 0, 0}));
  EXPECT_EQ(g.nodeCount(0), 37);
  EXPECT_EQ(g.nodeCount(599), 48);
  expectErricaFolds(g, 60, 486, 54);
}

TEST(TuCollection, UngroupedEdgesAreGroupedByGraphInFileOrder) {
  TempDir tmp;
  writeFile(tmp / "T_graph_indicator.txt", "1\n1\n2\n2\n");
  writeFile(tmp / "T_graph_labels.txt", "5\n-1\n");
  writeFile(tmp / "T_A.txt", "3,4\n1,2\n4,3\n2,1\n");
  writeFile(tmp / "T_edge_labels.txt", "7\n8\n9\n7\n");
  GraphCollection g = loadGraphCollection(tmp.path());
  EXPECT_EQ(g.src, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(g.dst, (std::vector<int64_t>{1, 0, 3, 2}));
  EXPECT_EQ(g.edgeOffsets, (std::vector<int64_t>{0, 2, 4}));
  // The edge labels 7..9 one-hot, following their edges.
  EXPECT_EQ(g.numEdgeFeatures, 3);
  EXPECT_EQ(g.edgeFeatures,
            (std::vector<float>{0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1}));
  // -1 < 5: classes are the labels' ranks.
  EXPECT_EQ(g.classes, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(g.numFeatures, 0);
  EXPECT_TRUE(g.folds.empty());
}

TEST(TuCollection, GraphAttributesMakeARegressionCollection) {
  TempDir tmp;
  writeFile(tmp / "R_graph_indicator.txt.gz", "1\n2\n2\n");
  writeFile(tmp / "R_graph_attributes.txt", "0.5\n-2.25\n");
  writeFile(tmp / "R_A.txt", "2,3\n");
  GraphCollection g = loadGraphCollection(tmp.path());
  EXPECT_EQ(g.task, GraphTask::Regression);
  EXPECT_EQ(g.targets, (std::vector<float>{0.5f, -2.25f}));
  EXPECT_EQ(g.nodeOffsets, (std::vector<int64_t>{0, 1, 3}));
}

TEST(OgbGraphCollection, ReadsTheHandMadeDataset) {
  GraphCollectionFormat format = GraphCollectionFormat::Tu;
  ASSERT_TRUE(isGraphCollection(ogbgTinyDir(), &format));
  EXPECT_EQ(format, GraphCollectionFormat::OgbGraph);
  GraphCollection g = loadGraphCollection(ogbgTinyDir());
  EXPECT_EQ(g.nodeOffsets, (std::vector<int64_t>{0, 3, 4, 8, 10}));
  EXPECT_EQ(g.edgeOffsets, (std::vector<int64_t>{0, 2, 2, 6, 7}));
  // Local ids shifted by the graph's first node.
  EXPECT_EQ(g.src, (std::vector<int64_t>{0, 1, 4, 5, 6, 7, 9}));
  EXPECT_EQ(g.dst, (std::vector<int64_t>{1, 2, 5, 6, 7, 4, 8}));
  EXPECT_EQ(g.task, GraphTask::Classification);
  EXPECT_EQ(g.classes, (std::vector<int64_t>{1, 0, 2, 0}));
  EXPECT_EQ(g.numClasses, 3);
  EXPECT_EQ(g.numFeatures, 2);
  EXPECT_EQ(g.features[2 * 9], 9.0f);
  EXPECT_EQ(g.features[2 * 9 + 1], 4.5f);
  EXPECT_EQ(g.numEdgeFeatures, 1);
  EXPECT_EQ(g.edgeFeatures[6], 6.25f);
  ASSERT_EQ(g.folds.size(), 2u);
  EXPECT_EQ(g.folds[0].name, "scaffold");
  EXPECT_EQ(g.folds[0].train, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(g.folds[0].valid, (std::vector<int64_t>{1}));
  EXPECT_EQ(g.folds[0].test, (std::vector<int64_t>{3}));
  EXPECT_EQ(g.folds[1].name, "single");
  EXPECT_EQ(g.folds[1].train.size(), 4u);
  EXPECT_TRUE(g.folds[1].test.empty());
}

TEST(OgbGraphCollection, NonIntegerLabelsMakeARegressionCollection) {
  TempDir tmp;
  writeFile(tmp / "raw/num-node-list.csv", "1\n2\n");
  writeFile(tmp / "raw/num-edge-list.csv", "0\n1\n");
  writeFile(tmp / "raw/edge.csv", "0,1\n");
  writeFile(tmp / "raw/graph-label.csv", "3\n0.125\n");
  GraphCollection g = loadGraphCollection(tmp.path());
  EXPECT_EQ(g.task, GraphTask::Regression);
  EXPECT_EQ(g.targets, (std::vector<float>{3.0f, 0.125f}));
  EXPECT_TRUE(g.classes.empty());
}

TEST(GraphCollection, ReverseEdgesFollowEachGraphsOwn) {
  GraphCollection g = loadGraphCollection(ogbgTinyDir());
  addReverseEdges(g);
  EXPECT_EQ(g.edgeOffsets, (std::vector<int64_t>{0, 4, 4, 12, 14}));
  EXPECT_EQ(g.src,
            (std::vector<int64_t>{0, 1, 1, 2, 4, 5, 6, 7, 5, 6, 7, 4, 9, 8}));
  EXPECT_EQ(g.dst,
            (std::vector<int64_t>{1, 2, 0, 1, 5, 6, 7, 4, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(
      g.edgeFeatures,
      (std::vector<float>{0.25f, 1.25f, 0.25f, 1.25f, 2.25f, 3.25f, 4.25f,
                          5.25f, 2.25f, 3.25f, 4.25f, 5.25f, 6.25f, 6.25f}));
}

TEST(GraphCollection, NodeLevelLoaderNamesACollection) {
  EXPECT_EQ(dataErrorOf([] { loadDataset(ogbgTinyDir()); }),
            ogbgTinyDir() + ": a collection of graphs (ogb-graph layout), not "
                            "a node dataset (gnn-data info describes it)");
  EXPECT_EQ(dataErrorOf([] { loadGraphCollection(coraDir()); }),
            coraDir() + ": not a graph collection (expected "
                        "<DS>_graph_indicator.txt[.gz] or "
                        "raw/graph-label.csv[.gz])");
}
