//===- HeteroDatasetErrorTest.cpp - Exact messages for bad typed datasets -===//
//
// Each test starts from a small valid dataset in OGB's heterogeneous layout
// (node types a: 3 nodes, b: 2 nodes; relations a -r-> b and b -s-> a; a
// carries features, labels and the split), breaks one file, and asserts
// the complete DataError message: the file, the row and what was expected.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"

#include "DatasetDirFixture.h"
#include "TestUtil.h"

#include <filesystem>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {
class BadHeteroDataset : public DatasetDirFixture {
protected:
  void SetUp() override {
    put("raw/num-node-dict.csv", "a,b\n3,2\n");
    put("raw/triplet-type-list.csv", "a,r,b\nb,s,a\n");
    put("raw/relations/a___r___b/edge.csv", "0,1\n2,0\n");
    put("raw/relations/a___r___b/num-edge-list.csv", "2\n");
    put("raw/relations/b___s___a/edge.csv", "1,2\n");
    put("raw/node-feat/a/node-feat.csv", "1,2\n3,4\n5,6\n");
    put("raw/node-label/a/node-label.csv", "0\n1\nnan\n");
    put("split/s/a/train.csv", "0\n1\n");
    put("split/s/a/test.csv", "2\n");
    options.useCache = false;
  }
};
} // namespace

TEST_F(BadHeteroDataset, ValidBaselineLoads) {
  EXPECT_EQ(load(), "<no error>");
  Dataset ds = loadDataset(tmp.path(), options);
  EXPECT_EQ(ds.numNodes, 5);
  EXPECT_EQ(ds.targetType, 0);
  EXPECT_EQ(ds.labels, (std::vector<int64_t>{0, 1, -1, -1, -1}));
  EXPECT_EQ(ds.features, (std::vector<float>{1, 2, 3, 4, 5, 6, 0, 0, 0, 0}));
  EXPECT_EQ(ds.src, (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(ds.dst, (std::vector<int64_t>{4, 3, 2}));
  EXPECT_EQ(ds.edgeType, (std::vector<int32_t>{0, 0, 1}));
  EXPECT_FALSE(ds.hasSplit("valid"));
}

TEST_F(BadHeteroDataset, NodeTypeTable) {
  put("raw/num-node-dict.csv", "a,b\n3\n");
  EXPECT_EQ(load(),
            tmp / "raw/num-node-dict.csv:2: expected 2 columns, found 1");
  put("raw/num-node-dict.csv", "a,a\n3,2\n");
  EXPECT_EQ(load(), tmp / "raw/num-node-dict.csv:1: node type 'a' is listed "
                          "twice (columns 1 and 2)");
  put("raw/num-node-dict.csv", "a,b\n3,-2\n");
  EXPECT_EQ(load(), tmp / "raw/num-node-dict.csv:2: negative node count -2 "
                          "for node type 'b'");
  put("raw/num-node-dict.csv", "a,b\n");
  EXPECT_EQ(load(), tmp / "raw/num-node-dict.csv: expected 2 rows (node type "
                          "names, then their counts), found 1");
}

TEST_F(BadHeteroDataset, UnknownNodeTypeInTriplet) {
  put("raw/triplet-type-list.csv", "a,r,b\nb,s,c\n");
  EXPECT_EQ(load(), tmp / "raw/triplet-type-list.csv:2: unknown node type "
                          "'c' (the types of raw/num-node-dict are a, b)");
}

TEST_F(BadHeteroDataset, MissingRelationDirectory) {
  put("raw/triplet-type-list.csv", "a,r,b\nb,t,a\n");
  EXPECT_EQ(load(), tmp / "raw/triplet-type-list.csv:2: relation b___t___a "
                          "has no directory " +
                        tmp / "raw/relations/b___t___a");
  put("raw/triplet-type-list.csv", "a,r,b\na,r,b\n");
  EXPECT_EQ(load(), tmp / "raw/triplet-type-list.csv:2: relation a___r___b "
                          "is listed twice (first on line 1)");
}

TEST_F(BadHeteroDataset, EdgeIdOutOfItsTypesRange) {
  put("raw/relations/a___r___b/edge.csv", "0,1\n2,2\n");
  EXPECT_EQ(load(), tmp / "raw/relations/a___r___b/edge.csv:2: destination id "
                          "2 out of range [0, 2) of node type 'b'");
  put("raw/relations/a___r___b/edge.csv", "3,1\n");
  EXPECT_EQ(load(), tmp / "raw/relations/a___r___b/edge.csv:1: source id 3 "
                          "out of range [0, 3) of node type 'a'");
}

TEST_F(BadHeteroDataset, EdgeCountMismatch) {
  put("raw/relations/a___r___b/num-edge-list.csv", "5\n");
  EXPECT_EQ(load(), tmp / "raw/relations/a___r___b/num-edge-list.csv: edge "
                          "count 5 does not match the 2 rows of " +
                        tmp / "raw/relations/a___r___b/edge.csv");
}

TEST_F(BadHeteroDataset, FeatureWidthsDiffer) {
  put("raw/node-feat/b/node-feat.csv", "1,2,3\n4,5,6\n");
  EXPECT_EQ(load(), tmp / "raw/node-feat/b/node-feat.csv: node type 'b' has "
                          "3 features per node, but node type 'a' has 2 (" +
                        tmp.path() +
                        "/raw/node-feat/a/node-feat.csv): every node type "
                        "with features must have the same width");
  put("raw/node-feat/b/node-feat.csv", "1,2\n");
  EXPECT_EQ(load(), tmp / "raw/node-feat/b/node-feat.csv: expected 2 rows "
                          "(one per node), found 1");
}

TEST_F(BadHeteroDataset, LabelOutOfRange) {
  options.numClasses = 2;
  put("raw/node-label/a/node-label.csv", "0\n2\n1\n");
  EXPECT_EQ(load(), tmp / "raw/node-label/a/node-label.csv:2: label 2 out of "
                          "range [0, 2)");
}

TEST_F(BadHeteroDataset, SplitIdOutOfTargetRange) {
  put("split/s/a/train.csv", "0\n3\n");
  EXPECT_EQ(load(), tmp / "split/s/a/train.csv:2: node id 3 out of range "
                          "[0, 3) of node type 'a'");
}

TEST_F(BadHeteroDataset, SplitMustNameOneType) {
  put("split/s/b/train.csv", "0\n");
  EXPECT_EQ(load(), tmp / "split/s: expected one directory, named after the "
                          "node type the split is for, found 2 (a, b)");
  std::filesystem::remove_all(tmp / "split/s");
  put("split/s/z/train.csv", "0\n");
  EXPECT_EQ(load(), tmp / "split/s/z: unknown node type 'z' (the types of "
                          "raw/num-node-dict are a, b)");
}

TEST_F(BadHeteroDataset, EvaluatingAnAbsentSplit) {
  Dataset ds = loadDataset(tmp.path(), options);
  EXPECT_EQ(dataErrorOf([&] {
              requireSplits(ds, {"valid", "test"});
            }),
            "split 'valid' is not in " + tmp / "split/s/a" +
                ": the dataset has train, test");
}
