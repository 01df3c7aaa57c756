//===- DatasetErrorTest.cpp - Exact messages for bad datasets -------------===//
//
// Each test starts from a small valid OGB-layout dataset in a temporary
// directory, breaks one file, and asserts the complete DataError message:
// the message is what a user sees, so its wording is behaviour.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"

#include "DatasetDirFixture.h"
#include "TestUtil.h"
#include "gnnrt/io/Npy.h"

#include <filesystem>
#include <limits>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {
class BadDataset : public DatasetDirFixture {
protected:
  void SetUp() override {
    put("raw/num-node-list.csv", "4\n");
    put("raw/edge.csv", "0,1\n1,2\n2,3\n3,0\n");
    put("raw/node-feat.csv", "0.5,1\n1,0\n0,0\n1,1\n");
    put("raw/node-label.csv", "0\n1\n-1\n2\n");
    put("split/s/train.csv", "0\n1\n");
    put("split/s/valid.csv", "2\n");
    put("split/s/test.csv", "3\n");
    options.useCache = false;
  }
};
} // namespace

TEST_F(BadDataset, ValidBaselineLoads) {
  EXPECT_EQ(load(), "<no error>");
  Dataset ds = loadDataset(tmp.path(), options);
  EXPECT_EQ(ds.numClasses, 3);
  EXPECT_EQ(ds.labels, (std::vector<int64_t>{0, 1, -1, 2}));
  EXPECT_EQ(ds.features[0], 0.5f);
}

TEST_F(BadDataset, WrongColumnCount) {
  put("raw/edge.csv", "0,1\n1,2\n2,3,1\n");
  EXPECT_EQ(load(), tmp / "raw/edge.csv:3: expected 2 columns, found 3");
}

TEST_F(BadDataset, WrongColumnCountInGzip) {
  std::filesystem::remove(tmp / "raw/edge.csv");
  put("raw/edge.csv.gz", "0,1\n\n1\n");
  EXPECT_EQ(load(), tmp / "raw/edge.csv.gz:3: expected 2 columns, found 1");
}

TEST_F(BadDataset, NonNumericToken) {
  put("raw/edge.csv", "0,1\n1,two\n");
  EXPECT_EQ(load(), tmp / "raw/edge.csv:2: expected an integer, found \"two\"");
}

TEST_F(BadDataset, NonNumericFeature) {
  put("raw/node-feat.csv", "0.5,1\n1,0\n0,1.2.3\n1,1\n");
  EXPECT_EQ(load(),
            tmp / "raw/node-feat.csv:3: expected a number, found \"1.2.3\"");
}

TEST_F(BadDataset, NodeIdOutOfRange) {
  put("raw/edge.csv", "0,1\n4,2\n");
  EXPECT_EQ(load(), tmp / "raw/edge.csv:2: node id 4 out of range [0, 4)");
  put("raw/edge.csv", "-1,2\n");
  EXPECT_EQ(load(), tmp / "raw/edge.csv:1: node id -1 out of range [0, 4)");
}

TEST_F(BadDataset, NegativeLabel) {
  put("raw/node-label.csv", "0\n-3\nnan\n1\n");
  EXPECT_EQ(load(), tmp / "raw/node-label.csv:2: label -3 is negative (only "
                          "-1 or nan mark an unlabeled node)");
}

TEST_F(BadDataset, LabelOutOfRange) {
  options.numClasses = 2;
  EXPECT_EQ(load(), tmp / "raw/node-label.csv:4: label 2 out of range [0, 2)");
}

TEST_F(BadDataset, FractionalLabel) {
  put("raw/node-label.csv", "0\n1.5\n1\n1\n");
  EXPECT_EQ(load(), tmp / "raw/node-label.csv:2: expected an integer label "
                          "or nan, found \"1.5\"");
}

TEST_F(BadDataset, NanAndFloatLabelsAreAccepted) {
  put("raw/node-label.csv", "0.0\nnan\nNaN\n3.0\n");
  Dataset ds = loadDataset(tmp.path(), options);
  EXPECT_EQ(ds.labels, (std::vector<int64_t>{0, -1, -1, 3}));
  EXPECT_EQ(ds.numClasses, 4);
}

TEST_F(BadDataset, LabelRowCount) {
  put("raw/node-label.csv", "0\n1\n2\n3\n4\n");
  EXPECT_EQ(load(), tmp / "raw/node-label.csv: expected 4 rows (one per "
                          "node), found 5");
}

TEST_F(BadDataset, SplitIndexOutOfRange) {
  put("split/s/valid.csv", "2\n9\n");
  EXPECT_EQ(load(), tmp / "split/s/valid.csv:2: node id 9 out of range [0, 4)");
}

TEST_F(BadDataset, SplitIndexDuplicated) {
  put("split/s/train.csv", "0\n1\n\n0\n");
  EXPECT_EQ(load(), tmp / "split/s/train.csv:4: node id 0 is listed twice "
                          "(first on line 1)");
}

TEST_F(BadDataset, MissingFile) {
  std::filesystem::remove(tmp / "raw/edge.csv");
  EXPECT_EQ(load(), tmp / "raw/edge.csv[.gz]: no such file");
}

/// A split file that is absent is an absent split (aifb's `rdf` has no
/// valid.csv), not a load error; evaluating it is one.
TEST_F(BadDataset, AbsentSplitFile) {
  std::filesystem::remove(tmp / "split/s/valid.csv");
  Dataset ds = loadDataset(tmp.path(), options);
  EXPECT_TRUE(ds.hasSplit("train"));
  EXPECT_FALSE(ds.hasSplit("valid"));
  EXPECT_TRUE(ds.validIdx.empty());
  EXPECT_EQ(dataErrorOf([&] { requireSplits(ds, {"test"}); }), "<no error>");
  EXPECT_EQ(dataErrorOf([&] {
              requireSplits(ds, {"test", "valid"});
            }),
            "split 'valid' is not in " + tmp / "split/s" +
                ": the dataset has train, test");
  std::filesystem::remove_all(tmp / "split");
  ds = loadDataset(tmp.path(), options);
  EXPECT_EQ(dataErrorOf([&] { requireSplits(ds, {"train"}); }),
            "split 'train' is not in " + tmp.path() +
                ": the dataset has no splits");
}

TEST_F(BadDataset, MissingSplitName) {
  options.splitName = "nope";
  EXPECT_EQ(load(), tmp / "split/nope: no such split directory");
}

TEST_F(BadDataset, FeatureRowCount) {
  put("raw/node-feat.csv", "0.5,1\n1,0\n0,0\n");
  EXPECT_EQ(load(), tmp / "raw/node-feat.csv: expected 4 rows (one per "
                          "node), found 3");
}

TEST_F(BadDataset, FeatureRowWidth) {
  put("raw/node-feat.csv", "0.5,1\n1,0\n0\n1,1\n");
  EXPECT_EQ(load(), tmp / "raw/node-feat.csv:3: expected 2 columns, found 1");
}

TEST_F(BadDataset, EdgeCountMismatch) {
  put("raw/num-edge-list.csv", "5\n");
  EXPECT_EQ(load(), tmp / "raw/num-edge-list.csv: edge count 5 does not "
                          "match the 4 rows of " +
                        tmp / "raw/edge.csv");
}

TEST_F(BadDataset, NodeCountFile) {
  put("raw/num-node-list.csv", "4\n5\n");
  EXPECT_EQ(load(), tmp / "raw/num-node-list.csv: expected 1 row (a single "
                          "graph), found 2");
}

TEST_F(BadDataset, NotADatasetDirectory) {
  EXPECT_EQ(dataErrorOf([&] { loadDataset(tmp / "split"); }),
            tmp / "split: not a dataset directory (expected "
                  "raw/edge.csv[.gz] or edge_index.npy)");
  EXPECT_EQ(dataErrorOf([&] { loadDataset(tmp / "nowhere/"); }),
            tmp / "nowhere: no such dataset directory");
}

TEST(BadNpyDataset, LabelRowsAndEdgeRange) {
  TempDir tmp;
  std::vector<int64_t> edges = {0, 1, 1, 5};
  writeNpy(tmp / "edge_index.npy", NpyType::Int64, {2, 2}, edges.data());
  std::vector<float> feats(3, 1.0f);
  writeNpy(tmp / "features.npy", NpyType::Float32, {3, 1}, feats.data());
  std::vector<int64_t> labels = {0, 1};
  writeNpy(tmp / "labels.npy", NpyType::Int64, {2}, labels.data());
  LoadOptions options;
  options.useCache = false;
  EXPECT_EQ(dataErrorOf([&] { loadDataset(tmp.path(), options); }),
            tmp / "labels.npy: expected 3 rows (one per node, as in "
                  "features.npy), found 2");
  labels = {0, 1, 1};
  writeNpy(tmp / "labels.npy", NpyType::Int64, {3}, labels.data());
  EXPECT_EQ(dataErrorOf([&] { loadDataset(tmp.path(), options); }),
            tmp / "edge_index.npy: element 1: node id 5 out of range [0, 3)");
  edges = {0, 1, 1, 2};
  writeNpy(tmp / "edge_index.npy", NpyType::Int64, {2, 2}, edges.data());
  writeNpy(tmp / "test_idx.npy", NpyType::Int64, {3}, labels.data());
  EXPECT_EQ(dataErrorOf([&] { loadDataset(tmp.path(), options); }),
            tmp / "test_idx.npy: element 2: node id 1 is listed twice");
  writeNpy(tmp / "edge_index.npy", NpyType::Int64, {4}, edges.data());
  EXPECT_EQ(dataErrorOf([&] { loadDataset(tmp.path(), options); }),
            tmp / "edge_index.npy: expected an integer array of shape "
                  "[2, E], found [4] of <i8");
}

TEST_F(BadDataset, TruncatedGzipIsAnError) {
  // The edge list cut inside its gzip stream: zlib reports an early end,
  // which must not read as a shorter (and valid) edge list.
  std::string edges;
  for (int i = 0; i < 4000; ++i)
    edges += "0,1\n1,2\n";
  std::filesystem::remove(tmp / "raw/edge.csv");
  put("raw/edge.csv.gz", edges);
  std::string whole = tmp / "raw/edge.csv.gz";
  std::filesystem::resize_file(whole, std::filesystem::file_size(whole) - 12);
  EXPECT_EQ(load(), whole + ": the compressed file is truncated (the gzip "
                            "stream ends early)");
}

TEST_F(BadDataset, NonFiniteFeatureNamesTheRow) {
  put("raw/node-feat.csv", "0.5,1\n1,0\n0,nan\n1,1\n");
  EXPECT_EQ(load(), tmp / "raw/node-feat.csv:3: feature 1 of node 2 is "
                          "\"nan\" (features must be finite numbers)");
  put("raw/node-feat.csv", "0.5,1\n1,0\n0,0\n-inf,1\n");
  EXPECT_EQ(load(), tmp / "raw/node-feat.csv:4: feature 0 of node 3 is "
                          "\"-inf\" (features must be finite numbers)");
}

TEST(BadNpyDataset, NonFiniteFeatureNamesTheRow) {
  TempDir tmp;
  std::vector<int64_t> edges = {0, 1, 1, 0};
  std::vector<float> feats = {1.f, 2.f, std::numeric_limits<float>::infinity(),
                              0.f};
  writeNpy(tmp / "edge_index.npy", NpyType::Int64, {2, 2}, edges.data());
  writeNpy(tmp / "features.npy", NpyType::Float32, {2, 2}, feats.data());
  EXPECT_EQ(dataErrorOf([&] {
              LoadOptions options;
              options.useCache = false;
              loadDataset(tmp.path(), options);
            }),
            tmp / "features.npy: feature 0 of node (row) 1 is inf (features "
                  "must be finite numbers)");
}
