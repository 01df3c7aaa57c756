//===- KnowledgeGraphTest.cpp - Knowledge-graph triples from text ---------===//
//
// The bundled WN18RR against its published statistics (Dettmers et al.
// 2018: 40,943 entities, 11 relations, 86,835 / 3,034 / 3,134 triples), the
// id order (first appearance over train, valid, test; head before tail),
// and the exact messages of bad lines.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/links/KnowledgeGraph.h"

#include "TestUtil.h"

using namespace gnnrt;
using namespace gnnrt::test;

TEST(KnowledgeGraph, Wn18rrHasThePublishedCounts) {
  const std::string dir = sourceDir() + "/examples/data/wn18rr";
  ASSERT_TRUE(isKnowledgeGraphDirectory(dir));
  const KnowledgeGraph kg = readKnowledgeGraph(dir);
  EXPECT_EQ(kg.numEntities(), 40943);
  EXPECT_EQ(kg.numRelations(), 11);
  EXPECT_EQ(kg.train.size(), 86835u);
  EXPECT_EQ(kg.valid.size(), 3034u);
  EXPECT_EQ(kg.test.size(), 3134u);
  // train.txt's first line: 00260881 _hypernym 00260622.
  EXPECT_EQ(kg.entities[0], "00260881");
  EXPECT_EQ(kg.entities[1], "00260622");
  EXPECT_EQ(kg.relations[0], "_hypernym");
  EXPECT_EQ(kg.train.head[0], 0);
  EXPECT_EQ(kg.train.tail[0], 1);
}

TEST(KnowledgeGraph, IdsInOrderOfFirstAppearance) {
  TempDir tmp;
  writeFile(tmp / "train.txt.gz",
            "b\tlikes\ta\r\na\tknows\tc\n\nc\tlikes\tb\n");
  writeFile(tmp / "valid.txt", "d\tknows\ta\n");
  writeFile(tmp / "test.txt", "a\tlikes\te\n");
  const KnowledgeGraph kg = readKnowledgeGraph(tmp.path());
  EXPECT_EQ(kg.entities, (std::vector<std::string>{"b", "a", "c", "d", "e"}));
  EXPECT_EQ(kg.relations, (std::vector<std::string>{"likes", "knows"}));
  EXPECT_EQ(kg.train.head, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(kg.train.relation, (std::vector<int32_t>{0, 1, 0}));
  EXPECT_EQ(kg.train.tail, (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(kg.valid.head, (std::vector<int64_t>{3}));
  EXPECT_EQ(kg.test.tail, (std::vector<int64_t>{4}));
}

TEST(KnowledgeGraph, BadLinesNameFileAndLine) {
  TempDir tmp;
  writeFile(tmp / "train.txt", "a\tr\tb\na\tr b\n");
  writeFile(tmp / "valid.txt", "a\tr\tb\n");
  writeFile(tmp / "test.txt", "a\tr\tb\n");
  EXPECT_EQ(dataErrorOf([&] { readKnowledgeGraph(tmp.path()); }),
            tmp / "train.txt" +
                ":2: expected 3 tab-separated fields (head, relation, tail), "
                "found 2");
  writeFile(tmp / "train.txt", "a\tr\tb\tc\n");
  EXPECT_EQ(dataErrorOf([&] { readKnowledgeGraph(tmp.path()); }),
            tmp / "train.txt" +
                ":1: expected 3 tab-separated fields (head, relation, tail), "
                "found 4");
  writeFile(tmp / "train.txt", "a\t\tb\n");
  EXPECT_EQ(dataErrorOf([&] { readKnowledgeGraph(tmp.path()); }),
            tmp / "train.txt" + ":1: the relation is empty");
  writeFile(tmp / "train.txt", "a\tr\tb\n");
  writeFile(tmp / "test.txt", "a\tr\tb\n\nb\t_hyponym\ta\n");
  EXPECT_EQ(dataErrorOf([&] { readKnowledgeGraph(tmp.path()); }),
            tmp / "test.txt" +
                ":3: relation \"_hyponym\" does not appear in the train "
                "triples");
  std::filesystem::remove(tmp / "valid.txt");
  EXPECT_EQ(dataErrorOf([&] { readKnowledgeGraph(tmp.path()); }),
            tmp / "valid.txt[.gz]" + ": no such file");
}
