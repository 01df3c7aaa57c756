//===- GraphFoldsTest.cpp - Stratified folds and Errica fold files --------===//
//
// Stratified folds are checked for what they promise (a partition of the
// graphs, each class within one graph of its share in every fold, the same
// folds from the same seed); fold files for their exact errors.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/GraphFolds.h"

#include "TestUtil.h"
#include "gnnrt/io/Json.h"

#include <algorithm>
#include <cmath>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

const GraphCollection &nci1() {
  static const GraphCollection g =
      loadGraphCollection(sourceDir() + "/examples/data/tu/NCI1");
  return g;
}

std::vector<int64_t> classCounts(const GraphCollection &g,
                                 const std::vector<int64_t> &ids) {
  std::vector<int64_t> counts(size_t(g.numClasses), 0);
  for (int64_t id : ids)
    ++counts[size_t(g.classes[id])];
  return counts;
}

void expectStratified(const GraphCollection &g, int k, uint64_t seed) {
  const std::vector<GraphFold> folds = stratifiedFolds(g, k, seed);
  ASSERT_EQ(int(folds.size()), k);
  std::vector<int64_t> whole(size_t(g.numClasses), 0);
  for (int64_t c : g.classes)
    ++whole[size_t(c)];
  std::vector<int> tested(size_t(g.numGraphs()), 0);
  size_t smallest = SIZE_MAX, largest = 0;
  for (const GraphFold &fold : folds) {
    std::vector<int> seen(size_t(g.numGraphs()), 0);
    for (const std::vector<int64_t> *list :
         {&fold.train, &fold.valid, &fold.test}) {
      ASSERT_TRUE(std::is_sorted(list->begin(), list->end()));
      for (int64_t id : *list)
        ++seen[size_t(id)];
    }
    // train + valid + test is every graph once.
    ASSERT_EQ(std::count(seen.begin(), seen.end(), 1), g.numGraphs());
    for (int64_t id : fold.test)
      ++tested[size_t(id)];
    smallest = std::min(smallest, fold.test.size());
    largest = std::max(largest, fold.test.size());
    // Each class within one graph of its share, in test and valid.
    const std::vector<int64_t> test = classCounts(g, fold.test);
    const std::vector<int64_t> valid = classCounts(g, fold.valid);
    for (int64_t c = 0; c < g.numClasses; ++c) {
      EXPECT_LT(std::fabs(double(test[c]) - double(whole[c]) / k), 1.0)
          << fold.name << " class " << c;
      const double trainOfClass = double(whole[c] - test[c]);
      EXPECT_LE(std::fabs(double(valid[c]) - 0.1 * trainOfClass), 0.5)
          << fold.name << " class " << c;
    }
  }
  EXPECT_EQ(std::count(tested.begin(), tested.end(), 1), g.numGraphs());
  EXPECT_LE(largest - smallest, 1u);
}

} // namespace

TEST(StratifiedFolds, Nci1TenFoldsKeepTheClassProportions) {
  expectStratified(nci1(), 10, 0);
  expectStratified(nci1(), 7, 12345);
}

TEST(StratifiedFolds, EnzymesFoldsHoldTenOfEachClass) {
  const GraphCollection g =
      loadGraphCollection(sourceDir() + "/examples/data/tu/ENZYMES");
  expectStratified(g, 10, 3);
  for (const GraphFold &fold : stratifiedFolds(g, 10, 3))
    EXPECT_EQ(classCounts(g, fold.test), std::vector<int64_t>(6, 10));
}

TEST(StratifiedFolds, SameSeedSameFoldsOtherSeedOthers) {
  const auto a = stratifiedFolds(nci1(), 10, 42);
  const auto b = stratifiedFolds(nci1(), 10, 42);
  const auto c = stratifiedFolds(nci1(), 10, 43);
  for (size_t f = 0; f < a.size(); ++f) {
    EXPECT_EQ(a[f].name, "fold" + std::to_string(f));
    EXPECT_EQ(a[f].test, b[f].test);
    EXPECT_EQ(a[f].valid, b[f].valid);
    EXPECT_EQ(a[f].train, b[f].train);
  }
  EXPECT_NE(a[0].test, c[0].test);
}

TEST(StratifiedFolds, RegressionCollectionsAreDealtAsOneClass) {
  GraphCollection g;
  g.task = GraphTask::Regression;
  for (int64_t i = 0; i < 23; ++i) {
    g.nodeOffsets.push_back(i + 1);
    g.edgeOffsets.push_back(0);
    g.targets.push_back(float(i));
  }
  const auto folds = stratifiedFolds(g, 5, 1, 0.25);
  for (size_t f = 0; f < folds.size(); ++f) {
    const size_t test = f < 3 ? 5 : 4; // 23 = 5 + 5 + 5 + 4 + 4
    EXPECT_EQ(folds[f].test.size(), test);
    EXPECT_EQ(folds[f].valid.size(), size_t(std::llround(0.25 * (23 - test))));
  }
}

TEST(StratifiedFolds, BadCountsAreErrors) {
  EXPECT_EQ(dataErrorOf([] { stratifiedFolds(nci1(), 1, 0); }),
            "folds: 1 folds of 4110 graphs (expected 2 to the number of "
            "graphs)");
  EXPECT_EQ(dataErrorOf([] { stratifiedFolds(nci1(), 10, 0, 1.0); }),
            "folds: valid fraction 1.000000 outside [0, 1)");
}

TEST(ErricaFolds, ReadsTheFileAsGiven) {
  TempDir tmp;
  writeFile(tmp / "f.json",
            R"([{"test": [3], "model_selection": [{"train": [0, 2], )"
            R"("validation": [1]}]}, {"test": [0, 1], "model_selection": )"
            R"([{"train": [3, 2], "valid": []}]}])");
  const auto folds = readErricaFolds(tmp / "f.json", 4);
  ASSERT_EQ(folds.size(), 2u);
  EXPECT_EQ(folds[0].train, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(folds[0].valid, (std::vector<int64_t>{1}));
  EXPECT_EQ(folds[0].test, (std::vector<int64_t>{3}));
  EXPECT_EQ(folds[1].name, "fold1");
  EXPECT_EQ(folds[1].train, (std::vector<int64_t>{3, 2}));
  EXPECT_TRUE(folds[1].valid.empty());
}

TEST(ErricaFolds, BadFilesAreLocatedErrors) {
  TempDir tmp;
  auto error = [&](const std::string &text) {
    writeFile(tmp / "f.json", text);
    return dataErrorOf([&] { readErricaFolds(tmp / "f.json", 4); });
  };
  const std::string f = tmp / "f.json";
  EXPECT_EQ(error(R"([{"test": [3, 4], "model_selection": [{"train": [0], )"
                  R"("validation": [1]}]}])"),
            f + ": fold 0 test: graph id 4 out of range [0, 4) (the dataset "
                "has 4 graphs)");
  EXPECT_EQ(error(R"([{"test": [3], "model_selection": [{"train": [0], )"
                  R"("validation": [1]}]}, {"test": [1], )"
                  R"("model_selection": [{"train": [1], "validation": []}]}])"),
            f + ": fold 1: graph 1 is in both train and test");
  EXPECT_EQ(error(R"([{"test": [3], "model_selection": [{"train": [0, "x"], )"
                  R"("validation": [1]}]}])"),
            f + ": fold 0 train: expected a graph id, found \"x\"");
  EXPECT_EQ(error(R"([{"test": [3]}])"),
            f + ": fold 0: expected \"model_selection\": [{\"train\": [...], "
                "\"validation\": [...]}]");
  EXPECT_EQ(error(R"({"test": []})"),
            f + ": expected a list of folds ({\"test\": [...], "
                "\"model_selection\": [{\"train\": [...], \"validation\": "
                "[...]}]})");
  EXPECT_EQ(
      error("[{"), f + ": " + [] {
        try {
          parseJson("[{");
        } catch (const JsonSyntaxError &e) {
          return std::string(e.what());
        }
        return std::string();
      }());
}
