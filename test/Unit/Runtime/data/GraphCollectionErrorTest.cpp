//===- GraphCollectionErrorTest.cpp - Exact messages for bad collections --===//
//
// Each test starts from a small valid collection (TU or OGB graph
// property) in a temporary directory, breaks one file, and asserts the
// complete DataError message: file, row and what was expected.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/GraphCollection.h"

#include "TestUtil.h"

#include <filesystem>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

class CollectionFixture : public ::testing::Test {
protected:
  void put(const std::string &rel, const std::string &content) {
    writeFile(tmp / rel, content);
  }
  std::string load() {
    return dataErrorOf([&] { loadGraphCollection(tmp.path()); });
  }
  TempDir tmp;
};

/// Two graphs: nodes 1-2 and 3-4, one edge each way in each.
class BadTu : public CollectionFixture {
protected:
  void SetUp() override {
    put("T_graph_indicator.txt", "1\n1\n2\n2\n");
    put("T_graph_labels.txt", "0\n1\n");
    put("T_A.txt", "1,2\n2,1\n3,4\n4,3\n");
    put("T_node_labels.txt", "0\n1\n1\n0\n");
    put("T_node_attributes.txt", "0.5\n1\n2\n3\n");
    put("T_splits.json", R"([{"test": [0], "model_selection": [{"train": [1], )"
                         R"("validation": []}]}])");
  }
};

/// Two graphs of 3 and 2 nodes, edges local to each.
class BadOgbGraph : public CollectionFixture {
protected:
  void SetUp() override {
    put("raw/num-node-list.csv", "3\n2\n");
    put("raw/num-edge-list.csv", "2\n1\n");
    put("raw/edge.csv", "0,1\n1,2\n1,0\n");
    put("raw/graph-label.csv", "0\n1\n");
    put("raw/node-feat.csv", "1\n2\n3\n4\n5\n");
    put("raw/edge-feat.csv", "1,0\n0,1\n1,1\n");
    put("split/s/train.csv", "0\n");
    put("split/s/test.csv", "1\n");
  }
};

} // namespace

TEST_F(BadTu, ValidBaselineLoads) {
  EXPECT_EQ(load(), "<no error>");
  GraphCollection g = loadGraphCollection(tmp.path());
  EXPECT_EQ(g.numFeatures, 3);
  EXPECT_EQ(g.features,
            (std::vector<float>{0.5, 1, 0, 1, 0, 1, 2, 0, 1, 3, 1, 0}));
  EXPECT_EQ(g.folds.size(), 1u);
}

TEST_F(BadTu, NodeInNoGraph) {
  put("T_A.txt", "1,2\n2,5\n");
  EXPECT_EQ(load(), tmp / "T_A.txt:2: node 5 is in no graph "
                          "(T_graph_indicator.txt has 4 nodes)");
  put("T_A.txt", "0,2\n");
  EXPECT_EQ(load(),
            tmp / "T_A.txt:1: node id 0 out of range (node ids start at 1)");
}

TEST_F(BadTu, EdgeAcrossGraphs) {
  put("T_A.txt", "1,2\n2,3\n");
  EXPECT_EQ(load(), tmp / "T_A.txt:2: edge 2, 3 joins graph 1 and graph 2 "
                          "(an edge must stay inside its graph)");
}

TEST_F(BadTu, GraphWithNoNodes) {
  put("T_graph_indicator.txt", "1\n1\n3\n3\n");
  put("T_graph_labels.txt", "0\n1\n0\n");
  EXPECT_EQ(load(), tmp / "T_graph_indicator.txt:3: graph 2 has no nodes "
                          "(node 3 is in graph 3, node 2 in graph 1)");
  put("T_graph_indicator.txt", "2\n2\n");
  EXPECT_EQ(load(), tmp / "T_graph_indicator.txt:1: graph 1 has no nodes "
                          "(node 1 is in graph 2)");
  put("T_graph_indicator.txt", "");
  EXPECT_EQ(load(), tmp / "T_graph_indicator.txt: no nodes");
}

TEST_F(BadTu, GraphNodesNotConsecutive) {
  put("T_graph_indicator.txt", "1\n2\n1\n2\n");
  EXPECT_EQ(load(), tmp / "T_graph_indicator.txt:3: node 3 is in graph 1 "
                          "after a node of graph 2 (the nodes of a graph "
                          "must be consecutive)");
}

TEST_F(BadTu, LabelFilesOfTheWrongLength) {
  put("T_graph_labels.txt", "0\n1\n1\n");
  EXPECT_EQ(load(), tmp / "T_graph_labels.txt: expected 2 rows (one per "
                          "graph of T_graph_indicator.txt), found 3");
  put("T_graph_labels.txt", "0\n1\n");
  put("T_node_labels.txt", "0\n1\n1\n");
  EXPECT_EQ(load(), tmp / "T_node_labels.txt: expected 4 rows (one per "
                          "node), found 3");
  put("T_node_labels.txt", "0\n1\n1\n0\n");
  put("T_node_attributes.txt", "0.5\n1\n2\n3\n4\n");
  EXPECT_EQ(load(), tmp / "T_node_attributes.txt: expected 4 rows (one per "
                          "node), found 5");
  put("T_node_attributes.txt", "0.5\n1\n2\n3\n");
  put("T_edge_labels.txt", "0\n");
  EXPECT_EQ(load(), tmp / "T_edge_labels.txt: expected 4 rows (one per "
                          "edge), found 1");
}

TEST_F(BadTu, MissingFiles) {
  std::filesystem::remove(tmp / "T_A.txt");
  EXPECT_EQ(load(), tmp / "T_A.txt: no such file");
  std::filesystem::remove(tmp / "T_graph_labels.txt");
  EXPECT_EQ(load(), tmp / "T_graph_labels.txt: no such file (nor "
                          "T_graph_attributes.txt)");
}

TEST_F(BadTu, FoldNamingAMissingGraph) {
  put("T_splits.json", R"([{"test": [0], "model_selection": [{"train": [1], )"
                       R"("validation": [2]}]}])");
  EXPECT_EQ(load(), tmp / "T_splits.json: fold 0 validation: graph id 2 out "
                          "of range [0, 2) (the dataset has 2 graphs)");
}

TEST_F(BadOgbGraph, ValidBaselineLoads) { EXPECT_EQ(load(), "<no error>"); }

TEST_F(BadOgbGraph, GraphWithNoNodes) {
  put("raw/num-node-list.csv", "3\n0\n");
  EXPECT_EQ(load(), tmp / "raw/num-node-list.csv:2: graph 1 has no nodes");
}

TEST_F(BadOgbGraph, NodeOutsideItsGraph) {
  // Row 3 is graph 1's edge: its ids are local to graph 1's 2 nodes.
  put("raw/edge.csv", "0,1\n1,2\n2,0\n");
  EXPECT_EQ(load(), tmp / "raw/edge.csv:3: node 2 is not in graph 1 (its "
                          "nodes are [0, 2))");
}

TEST_F(BadOgbGraph, TablesOfTheWrongLength) {
  put("raw/num-edge-list.csv", "3\n");
  EXPECT_EQ(load(), tmp / "raw/num-edge-list.csv: expected 2 rows (one per "
                          "graph of num-node-list.csv), found 1");
  put("raw/num-edge-list.csv", "2\n1\n");
  put("raw/edge.csv", "0,1\n1,2\n");
  EXPECT_EQ(load(), tmp / "raw/edge.csv: expected 3 rows (the sum of "
                          "num-edge-list.csv), found 2");
  put("raw/edge.csv", "0,1\n1,2\n1,0\n0,1\n0,1\n");
  EXPECT_EQ(load(), tmp / "raw/edge.csv: expected 3 rows (the sum of "
                          "num-edge-list.csv), found 5");
  put("raw/edge.csv", "0,1\n1,2\n1,0\n");
  put("raw/graph-label.csv", "0\n1\n1\n");
  EXPECT_EQ(load(), tmp / "raw/graph-label.csv: expected 2 rows (one per "
                          "graph), found 3");
  put("raw/graph-label.csv", "0\n1\n");
  put("raw/node-feat.csv", "1\n2\n3\n4\n");
  EXPECT_EQ(load(), tmp / "raw/node-feat.csv: expected 5 rows (one per "
                          "node), found 4");
  put("raw/node-feat.csv", "1\n2\n3\n4\n5\n");
  put("raw/edge-feat.csv", "1,0\n0,1\n");
  EXPECT_EQ(load(), tmp / "raw/edge-feat.csv: expected 3 rows (one per "
                          "edge), found 2");
}

TEST_F(BadOgbGraph, BadLabels) {
  put("raw/graph-label.csv", "0\n-1\n");
  EXPECT_EQ(load(), tmp / "raw/graph-label.csv:2: a class label is negative "
                          "(classes are 0, 1, ...)");
  put("raw/graph-label.csv", "0.5\nnan\n");
  EXPECT_EQ(load(), tmp / "raw/graph-label.csv:2: graph 1's label is \"nan\" "
                          "(labels must be finite numbers)");
}

TEST_F(BadOgbGraph, FoldNamingAMissingGraph) {
  put("split/s/test.csv", "2\n");
  EXPECT_EQ(load(), tmp / "split/s/test.csv:1: graph id 2 out of range [0, 2)");
  put("split/s/test.csv", "0\n");
  EXPECT_EQ(load(), tmp / "split/s: graph 0 is in both train and test");
}
