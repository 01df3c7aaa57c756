//===- LinkPairFilesTest.cpp - Fixed link splits from pair files ----------===//
//
// The pair files of a split directory, csv and csv.gz, absent files as
// absent sets, and the exact messages of bad rows (file and row).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/links/LinkPairFiles.h"

#include "TestUtil.h"

#include <filesystem>

using namespace gnnrt;
using namespace gnnrt::test;

TEST(LinkPairFiles, ReadsPairsPerSplitCsvAndGzip) {
  TempDir tmp;
  writeFile(tmp / "train_pos.csv.gz", "0,1\n1,2\n2,3\n");
  writeFile(tmp / "valid_pos.csv", "3,4\n");
  writeFile(tmp / "valid_neg.csv", "0,4\n");
  writeFile(tmp / "test_pos.csv", "1,4\n\n0,3\n");
  writeFile(tmp / "test_neg.csv.gz", "2,4\n1,3\n");
  const FixedLinkSplit s = readFixedLinkSplit(tmp.path(), 5);
  EXPECT_TRUE(s.hasPos[0] && s.hasPos[1] && s.hasPos[2]);
  EXPECT_FALSE(s.hasNeg[0]);
  EXPECT_TRUE(s.hasNeg[1] && s.hasNeg[2]);
  EXPECT_EQ(s.pos[0].src, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(s.pos[0].dst, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(s.pos[2].src, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(s.neg[2].dst, (std::vector<int64_t>{4, 3}));
}

TEST(LinkPairFiles, BadRowsNameFileAndRow) {
  TempDir tmp;
  writeFile(tmp / "valid_pos.csv", "0,1\n\n1,5\n");
  EXPECT_EQ(dataErrorOf([&] { readFixedLinkSplit(tmp.path(), 5); }),
            tmp / "valid_pos.csv" + ":3: node id 5 out of range [0, 5)");
  writeFile(tmp / "valid_pos.csv", "0,1\n");
  writeFile(tmp / "test_neg.csv.gz", "0,1,2\n");
  EXPECT_EQ(dataErrorOf([&] { readFixedLinkSplit(tmp.path(), 5); }),
            tmp / "test_neg.csv.gz" + ":1: expected 2 columns, found 3");
  writeFile(tmp / "test_neg.csv.gz", "-1,2\n");
  EXPECT_EQ(dataErrorOf([&] { readFixedLinkSplit(tmp.path(), 5); }),
            tmp / "test_neg.csv.gz" + ":1: node id -1 out of range [0, 5)");
  TempDir empty;
  EXPECT_EQ(dataErrorOf([&] { readFixedLinkSplit(empty.path(), 5); }),
            empty.path() +
                ": no link pair files ({train,valid,test}_{pos,neg}.csv[.gz])");
}

TEST(LinkPairFiles, WrittenSplitReadsBackAndOutputIsNotReplaced) {
  const Dataset ds = loadedGraph(200, 900, 8, 0.6, 0.2, 0.2);
  EdgeSplitOptions o;
  o.seed = 5;
  const EdgeSplit split = randomEdgeSplit(ds.numNodes, ds.src, ds.dst, o);
  TempDir tmp;
  writeFixedLinkSplit(tmp / "split", split);
  EXPECT_FALSE(std::filesystem::exists(tmp / "split.partial"));
  const FixedLinkSplit read = readFixedLinkSplit(tmp / "split", ds.numNodes);
  EXPECT_FALSE(read.hasNeg[0]);
  const LinkPairs *written[2][3] = {
      {&split.trainPos, &split.validPos, &split.testPos},
      {nullptr, &split.validNeg, &split.testNeg}};
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(read.pos[k].src, written[0][k]->src);
    EXPECT_EQ(read.pos[k].dst, written[0][k]->dst);
    if (written[1][k]) {
      EXPECT_EQ(read.neg[k].src, written[1][k]->src);
      EXPECT_EQ(read.neg[k].dst, written[1][k]->dst);
    }
  }
  EXPECT_EQ(dataErrorOf([&] { writeFixedLinkSplit(tmp / "split", split); }),
            tmp / "split" + ": exists and is not an empty directory");
}
