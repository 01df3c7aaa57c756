//===- CrossValidationTest.cpp - Folds, --fold and the summary ------------===//
//
// A graph-level trainer (the pooled model of GraphLevelTestUtil.h) on a
// collection with three Errica-style folds: every fold in turn from the
// same fresh start, each fold's selected epoch the first of the best
// validation accuracy in its own metrics lines, the summary the mean and
// (population) standard deviation of the selected test accuracies, computed
// here from those lines; --fold K equal to fold K of the whole run; the
// options that belong to one model refused over several folds; checkpoints
// bound to their fold; and the data errors.
//
//===----------------------------------------------------------------------===//

#include "graphs/CrossValidation.h"
#include "GraphLevelTestUtil.h"

#include "gnnrt/io/Json.h"

#include <cmath>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

class Folds : public testing::Test {
protected:
  void SetUp() override { writeToyCollection(data, 40, 7, /*folds=*/3); }
  TrainerRun train(std::vector<std::string> more,
                   const CompiledProgram &program = pooledProgram()) {
    more.insert(more.begin(), {"--data", data});
    return runGraphTrainer(program, more);
  }
  TempDir tmp;
  std::string data = tmp / "TOY";
};

std::vector<Json> jsonLines(const std::string &path) {
  std::vector<Json> lines;
  for (const std::string &line : fileLines(path))
    lines.push_back(parseJson(line));
  return lines;
}

/// An epoch line without its timings (which differ between runs).
std::string withoutTimes(Json line) {
  for (const char *key :
       {"epoch_seconds", "epoch_cpu_seconds", "peak_rss_bytes"})
    line.erase(key);
  return line.dump();
}

std::string fixed4(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", value);
  return text;
}

} // namespace

TEST_F(Folds, EveryFoldInTurnThenTheSummary) {
  const std::string metrics = tmp / "m.jsonl";
  const int64_t epochs = 20;
  const TrainerRun run =
      train({"--epochs", std::to_string(epochs), "--metrics", metrics});
  ASSERT_EQ(run.status, 0) << run.err;
  const std::vector<Json> lines = jsonLines(metrics);
  // Per fold its epoch lines and its result; then the summary.
  ASSERT_EQ(lines.size(), size_t(3 * (epochs + 1) + 1));
  std::vector<double> tests;
  for (int64_t fold = 0; fold < 3; ++fold) {
    int64_t bestEpoch = 0;
    double bestValid = -1, bestTest = 0;
    for (int64_t e = 0; e < epochs; ++e) {
      const Json &line = lines[size_t(fold * (epochs + 1) + e)];
      EXPECT_EQ(line["epoch"].get<int64_t>(), e + 1);
      EXPECT_EQ(line["fold"].get<int64_t>(), fold);
      const double valid = line["valid_acc"].get<double>();
      if (valid > bestValid) { // the earlier epoch wins a tie
        bestValid = valid;
        bestEpoch = e + 1;
        bestTest = line["test_acc"].get<double>();
      }
    }
    const Json &result = lines[size_t(fold * (epochs + 1) + epochs)];
    EXPECT_EQ(result["fold"].get<int64_t>(), fold);
    EXPECT_EQ(result["selected_epoch"].get<int64_t>(), bestEpoch);
    EXPECT_EQ(result["valid_acc"].get<double>(), bestValid);
    EXPECT_EQ(result["test_acc"].get<double>(), bestTest);
    EXPECT_EQ(linesStarting(run.out, "fold " + std::to_string(fold) + ":"),
              std::vector<std::string>{"fold " + std::to_string(fold) +
                                       ": epoch " + std::to_string(bestEpoch) +
                                       " valid_acc " + fixed4(bestValid) +
                                       " test_acc " + fixed4(bestTest)});
    tests.push_back(bestTest);
  }
  const double mean = (tests[0] + tests[1] + tests[2]) / 3;
  double squares = 0;
  for (double t : tests)
    squares += (t - mean) * (t - mean);
  const double std = std::sqrt(squares / 3);
  const Json &summary = lines.back();
  EXPECT_EQ(summary["folds"].get<int64_t>(), 3);
  EXPECT_NEAR(summary["test_acc_mean"].get<double>(), mean, 1e-8);
  EXPECT_NEAR(summary["test_acc_std"].get<double>(), std, 1e-8);
  EXPECT_EQ(linesStarting(run.out, "cross_validation:"),
            std::vector<std::string>{"cross_validation: 3 folds test_acc " +
                                     fixed4(mean) + " \u00b1 " + fixed4(std)});
  // Training learns: the folds' last training accuracies are well above
  // chance (about 1/2).
  double lastTrain = 0;
  for (int64_t fold = 0; fold < 3; ++fold)
    lastTrain += lines[size_t(fold * (epochs + 1) + epochs - 1)]["train_acc"]
                     .get<double>() /
                 3;
  EXPECT_GT(lastTrain, 0.7);
}

TEST_F(Folds, OneFoldTrainsAsInTheWholeRun) {
  const std::string all = tmp / "all.jsonl", one = tmp / "one.jsonl";
  ASSERT_EQ(train({"--epochs", "4", "--metrics", all}).status, 0);
  const TrainerRun run =
      train({"--epochs", "4", "--metrics", one, "--fold", "1"});
  ASSERT_EQ(run.status, 0) << run.err;
  std::vector<std::string> fromAll, alone;
  for (const Json &line : jsonLines(all))
    if (line.contains("epoch") && line["fold"].get<int64_t>() == 1)
      fromAll.push_back(withoutTimes(line));
  const std::vector<Json> lines = jsonLines(one);
  ASSERT_EQ(lines.size(), 4u + 2u);
  for (size_t e = 0; e < 4; ++e)
    alone.push_back(withoutTimes(lines[e]));
  EXPECT_EQ(alone, fromAll);
  EXPECT_EQ(lines.back()["folds"].get<int64_t>(), 1);
  EXPECT_EQ(linesStarting(run.out, "fold ").size(), 1u);
}

TEST_F(Folds, FoldOutOfRangeNamesTheRange) {
  const TrainerRun run = train({"--fold", "3"});
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.err, "pooled: --fold 3: the dataset has 3 folds (--fold 0 "
                     "to 2)\n(run 'pooled --help' for the options)\n");
}

TEST_F(Folds, OneModelsOptionsNeedAFold) {
  TrainerRun run = train({"--save", tmp / "w.safetensors"});
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(linesStarting(run.err, "pooled:"),
            std::vector<std::string>{
                "pooled: --save writes one fold's weights: give --fold K (0 "
                "to 2); without it the 3 folds of the dataset train in turn"});
  EXPECT_FALSE(std::filesystem::exists(tmp / "w.safetensors"));
  run = train({"--predict", tmp / "p.csv"});
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("--predict writes one fold's model's predictions: "
                         "give --fold K"),
            std::string::npos)
      << run.err;
}

TEST_F(Folds, ACheckpointResumesItsOwnFold) {
  const std::string straight = tmp / "straight.jsonl";
  ASSERT_EQ(
      train({"--fold", "1", "--epochs", "6", "--metrics", straight}).status, 0);
  const std::string checkpoint = tmp / "c.safetensors";
  ASSERT_EQ(train({"--fold", "1", "--epochs", "3", "--checkpoint", checkpoint})
                .status,
            0);

  TrainerRun run = train({"--resume", checkpoint, "--epochs", "6"});
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("pooled: --resume continues the run of the fold its "
                         "checkpoint was written in: give --fold K (0 to 2)"),
            std::string::npos)
      << run.err;
  run = train({"--resume", checkpoint, "--epochs", "6", "--fold", "2"});
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("pooled: --resume " + checkpoint +
                         ": the checkpoint was written training fold 1, not "
                         "fold 2 (give --fold 1)"),
            std::string::npos)
      << run.err;

  // Resumed in its fold, epochs 4 to 6 are the straight run's.
  const std::string resumed = tmp / "resumed.jsonl";
  run = train({"--resume", checkpoint, "--epochs", "6", "--fold", "1",
               "--metrics", resumed});
  ASSERT_EQ(run.status, 0) << run.err;
  const std::vector<Json> a = jsonLines(straight), b = jsonLines(resumed);
  ASSERT_EQ(b.size(), 3u + 2u);
  for (size_t e = 0; e < 3; ++e)
    EXPECT_EQ(withoutTimes(b[e]), withoutTimes(a[e + 3]));
  EXPECT_EQ(b[3].dump(), a[6].dump()); // the fold's selection
}

TEST_F(Folds, TenStratifiedFoldsWhenTheDatasetHasNone) {
  TempDir other;
  writeToyCollection(other / "TOY", 40, 7);
  const TrainerRun run = runGraphTrainer(
      pooledProgram(), {"--data", other / "TOY", "--epochs", "1"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(linesStarting(run.out, "fold ").size(), 10u);
  EXPECT_EQ(
      linesStarting(run.out, "cross_validation: 10 folds test_acc ").size(), 1u)
      << run.out;
}

TEST_F(Folds, TheSplitSettingPicksAFoldByName) {
  CompiledProgram program = pooledProgram();
  program.settings.split = "fold2";
  const TrainerRun run = train({"--epochs", "2"}, program);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(linesStarting(run.out, "fold ").size(), 1u);
  EXPECT_EQ(linesStarting(run.out, "fold 0 (fold2): epoch ").size(), 1u)
      << run.out;
  program.settings.split = "fold9";
  EXPECT_EQ(train({}, program).err,
            "pooled: error: " + data +
                ": no fold named 'fold9' (the folds are fold0, fold1, "
                "fold2)\n");
}

TEST_F(Folds, TheCollectionMustSuitTheProgram) {
  CompiledProgram program = pooledProgram();
  program.settings.source = "ogbg";
  TrainerRun run = train({}, program);
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.err, "pooled: error: " + data +
                         ": a graph collection in the tu layout, but dataset "
                         "TOY is read as ogbg(...), the ogb-graph layout\n");
  // Regression targets (TU's graph attributes) are refused, for now.
  std::filesystem::remove(data + "/TOY_graph_labels.txt");
  std::ostringstream targets;
  for (int g = 0; g < 40; ++g)
    targets << 0.5 * g << "\n";
  writeFile(data + "/TOY_graph_attributes.txt", targets.str());
  run = train({});
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.err, "pooled: error: " + data +
                         ": the graph labels are regression targets "
                         "(non-integer values); graph-level training "
                         "classifies graphs only, for now\n");
}

TEST(FoldSummary, MeanAndPopulationStd) {
  std::vector<FoldResult> folds(3);
  folds[0].test = 0.8;
  folds[1].test = 0.6;
  folds[2].test = std::nullopt; // a fold without test graphs
  const FoldSummary s = summarizeFolds(folds);
  EXPECT_EQ(s.folds, 3);
  EXPECT_DOUBLE_EQ(*s.mean, 0.7);
  EXPECT_DOUBLE_EQ(*s.std, 0.1);
  EXPECT_EQ(summaryLine(s), "cross_validation: 3 folds test_acc 0.7000 "
                            "\u00b1 0.1000");
  EXPECT_EQ(summaryLine(summarizeFolds({FoldResult()})),
            "cross_validation: 1 fold test_acc n/a");
}

TEST(FoldSummary, FoldWithoutFoldsIsAUsageError) {
  DriverOptions options;
  options.fold = 0;
  try {
    foldsToRun({}, options);
    ADD_FAILURE() << "no error";
  } catch (const UsageError &e) {
    EXPECT_STREQ(e.what(), "--fold 0: only graph-level programs (batches = "
                           "graphs(...)) train on cross-validation folds");
  }
  options.fold.reset();
  EXPECT_TRUE(foldsToRun({}, options).empty());
  EXPECT_EQ(foldsToRun({"a", "b"}, options), (std::vector<int64_t>{0, 1}));
}

TEST_F(Folds, TheOutputWidthMustBeTheClassCount) {
  CompiledProgram program = pooledProgram();
  program.outputColumns = [](const DataDims &dims) { return dims.classes + 1; };
  const TrainerRun run = train({}, program);
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.err, "pooled: error: model Pooled outputs 3 columns per graph, "
                     "but the dataset has 2 classes: the last layer's width "
                     "must be the class count\n");
}
