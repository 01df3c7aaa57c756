//===- GraphBatchScheduleTest.cpp - Graph-level training's batches --------===//
//
// The graph-level schedule end to end through trainMain, with hand-written
// programs (GraphLevelTestUtil.h): a spy whose train step records and checks
// every context it is given, against the collection as loaded (batches
// partition the fold's shuffled training graphs, each packed whole with its
// features, edges and label); the pooled model's loss, accuracies and
// predictions against a float64 computation over the collection; and two
// ranks (threads taking turns, gnnrt/comm/TurnCommunicator.h) that split
// every batch between them and train as one process does.
//
//===----------------------------------------------------------------------===//

#include "GraphLevelTestUtil.h"
#include "cli/Driver.h"

#include "gnnrt/comm/TurnCommunicator.h"
#include "gnnrt/data/GraphCollection.h"
#include "gnnrt/io/Json.h"
#include "gnnrt/io/Safetensors.h"

#include <algorithm>
#include <map>
#include <mutex>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

/// What the spy's train step saw.
struct StepRecord {
  int rank = 0;
  uint64_t step = 0;
  double lossScale = 0;
  std::vector<int64_t> graphIds;
  std::string problem; ///< "" when the context matched the collection
};

std::mutex spyMutex;
std::vector<StepRecord> spyRecords;
const GraphCollection *spyGraphs = nullptr;
thread_local int spyRank = 0;

/// The graphs of ctx's batch (in batch order) into `ids`; a description of
/// the first way the context differs from the collection, or "".
std::string checkBatch(const ExecContext<float> &ctx, const GraphCollection &c,
                       std::vector<int64_t> &ids) {
  const GraphView &g = ctx.graph, &r = ctx.readout;
  if (ctx.lossMask || r.numSrc != g.numDst || r.numEdges != r.numSrc ||
      ctx.numGlobalNodes != c.numNodes())
    return "readout or loss mask";
  std::vector<std::pair<int64_t, int64_t>> expectedEdges, packedEdges;
  for (int64_t b = 0; b < r.numDst; ++b) {
    const int64_t first = r.inOffsets[b], last = r.inOffsets[b + 1];
    const int64_t id =
        std::upper_bound(c.nodeOffsets.begin(), c.nodeOffsets.end(),
                         ctx.nodeIds[r.edgeSrc[first]]) -
        c.nodeOffsets.begin() - 1;
    ids.push_back(id);
    if (last - first != c.nodeCount(id) || ctx.labels[b] != c.classes[id] ||
        ctx.graphIds[b] != id)
      return "graph " + std::to_string(id) + ": node count, label or id";
    for (int64_t e = first; e < last; ++e) {
      const int64_t v = r.edgeSrc[e], global = ctx.nodeIds[v];
      if (v != r.edgeSrc[first] + (e - first) ||
          global != c.nodeOffsets[id] + (e - first))
        return "graph " + std::to_string(id) + ": its nodes";
      for (int64_t j = 0; j < c.numFeatures; ++j)
        if (ctx.features[v * c.numFeatures + j] !=
            c.features[size_t(global * c.numFeatures + j)])
          return "graph " + std::to_string(id) + ": features";
    }
    for (int64_t e = c.edgeOffsets[id]; e < c.edgeOffsets[id + 1]; ++e)
      expectedEdges.push_back({c.src[e], c.dst[e]});
  }
  for (int64_t v = 0; v < g.numDst; ++v)
    for (int64_t e = g.inOffsets[v]; e < g.inOffsets[v + 1]; ++e)
      packedEdges.push_back({ctx.nodeIds[g.edgeSrc[e]], ctx.nodeIds[v]});
  std::sort(expectedEdges.begin(), expectedEdges.end());
  std::sort(packedEdges.begin(), packedEdges.end());
  return expectedEdges == packedEdges ? "" : "edges";
}

float spyTrainStep(ExecContext<float> &ctx) {
  StepRecord record{spyRank, ctx.step, ctx.lossScale, {}, ""};
  record.problem = checkBatch(ctx, *spyGraphs, record.graphIds);
  std::lock_guard<std::mutex> lock(spyMutex);
  spyRecords.push_back(record);
  return 1.0f;
}

void spyForward(ExecContext<float> &ctx) {
  std::fill(ctx.output, ctx.output + ctx.readout.numDst * ctx.numClasses, 0.f);
}

CompiledProgram spyProgram(int64_t batchSize, bool shuffle = true) {
  CompiledProgram p = pooledProgram(batchSize);
  p.settings.graphBatches.shuffle = shuffle;
  p.forwardF32 = spyForward;
  p.trainStepF32 = spyTrainStep;
  return p;
}

/// trainOnCommunicator on each of `ranks` ranks as threads taking turns;
/// rank 0's output is captured.
TrainerRun runOnRanks(const CompiledProgram &program, int ranks,
                      const std::vector<std::string> &args) {
  TurnTaking turns(ranks, [](int, int) {});
  std::vector<int> status(size_t(ranks), -1);
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  turns.run([&](int rank) {
    spyRank = rank;
    status[size_t(rank)] =
        trainOnCommunicator(program, "pooled", args, turns.communicator(rank));
    // A failed rank must not leave the others waiting in a collective.
    if (status[size_t(rank)] != 0)
      throw std::runtime_error("rank " + std::to_string(rank) + " failed");
  });
  std::string out = testing::internal::GetCapturedStdout();
  std::string err = testing::internal::GetCapturedStderr();
  return {*std::max_element(status.begin(), status.end()), out, err};
}

class GraphBatches : public testing::Test {
protected:
  void SetUp() override {
    writeToyCollection(data, 40, 7, /*folds=*/3);
    graphs = loadGraphCollection(data);
    spyGraphs = &graphs;
    spyRecords.clear();
  }
  /// The spy's records of a run with `args` after --data.
  std::vector<StepRecord> spy(const CompiledProgram &program,
                              std::vector<std::string> args, int ranks = 0) {
    spyRecords.clear();
    args.insert(args.begin(), {"--data", data});
    TrainerRun run = ranks > 0 ? runOnRanks(program, ranks, args)
                               : runGraphTrainer(program, args);
    EXPECT_EQ(run.status, 0) << run.err;
    return spyRecords;
  }

  TempDir tmp;
  std::string data = tmp / "TOY";
  GraphCollection graphs;
};

/// Each epoch's graphs in batch order.
std::vector<std::vector<int64_t>> epochOrders(const std::vector<StepRecord> &r,
                                              size_t stepsPerEpoch) {
  std::vector<std::vector<int64_t>> orders;
  for (size_t s = 0; s < r.size(); ++s) {
    if (s % stepsPerEpoch == 0)
      orders.emplace_back();
    orders.back().insert(orders.back().end(), r[s].graphIds.begin(),
                         r[s].graphIds.end());
  }
  return orders;
}

} // namespace

TEST_F(GraphBatches, BatchesPartitionTheShuffledTrainingGraphs) {
  const std::vector<int64_t> &train = graphs.folds[1].train;
  ASSERT_EQ(train.size(), 25u); // 40 graphs: 13 tested, 2 validated
  const std::vector<StepRecord> records =
      spy(spyProgram(6), {"--fold", "1", "--epochs", "3"});
  const size_t steps = 5; // 6, 6, 6, 6, 1
  ASSERT_EQ(records.size(), 3 * steps);
  for (size_t s = 0; s < records.size(); ++s) {
    EXPECT_EQ(records[s].problem, "") << "step " << s;
    EXPECT_EQ(records[s].step, s);
    EXPECT_EQ(records[s].lossScale, 1.0);
    EXPECT_EQ(records[s].graphIds.size(), s % steps == 4 ? 1u : 6u);
  }
  const auto orders = epochOrders(records, steps);
  for (const std::vector<int64_t> &order : orders) {
    std::vector<int64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, train);
  }
  EXPECT_NE(orders[0], orders[1]);
  EXPECT_NE(orders[1], orders[2]);
  EXPECT_NE(orders[0], train);

  // A function of (seed, epoch): the same again, another with another seed.
  EXPECT_EQ(
      epochOrders(spy(spyProgram(6), {"--fold", "1", "--epochs", "3"}), steps),
      orders);
  const auto reseeded = epochOrders(
      spy(spyProgram(6), {"--fold", "1", "--epochs", "1", "--seed", "4"}),
      steps);
  EXPECT_NE(reseeded[0], orders[0]);
  // shuffle = false: the fold's order, every epoch.
  const auto unshuffled = epochOrders(
      spy(spyProgram(6, false), {"--fold", "1", "--epochs", "2"}), steps);
  EXPECT_EQ(unshuffled[0], train);
  EXPECT_EQ(unshuffled[1], train);
}

TEST_F(GraphBatches, TwoRanksEachPackAShareOfEveryBatch) {
  // 25 training graphs in batches of 12: 12, 12, 1; the last leaves rank 0
  // without graphs.
  const CompiledProgram program = spyProgram(12);
  const std::vector<std::string> args = {"--fold", "1", "--epochs", "2"};
  const std::vector<StepRecord> single = spy(program, args);
  const std::vector<StepRecord> shared = spy(program, args, 2);
  ASSERT_EQ(single.size(), 6u);
  std::map<uint64_t, std::vector<const StepRecord *>> byStep;
  for (const StepRecord &r : shared) {
    EXPECT_EQ(r.problem, "") << "rank " << r.rank << " step " << r.step;
    byStep[r.step].push_back(&r);
  }
  for (const StepRecord &whole : single) {
    // The ranks take turns in any order; rank 0's share comes first.
    std::vector<const StepRecord *> &parts = byStep[whole.step];
    std::sort(parts.begin(), parts.end(),
              [](auto *a, auto *b) { return a->rank < b->rank; });
    std::vector<int64_t> joined;
    double scales = 0;
    for (const StepRecord *part : parts) {
      joined.insert(joined.end(), part->graphIds.begin(), part->graphIds.end());
      EXPECT_DOUBLE_EQ(part->lossScale, double(part->graphIds.size()) /
                                            double(whole.graphIds.size()));
      scales += part->lossScale;
    }
    EXPECT_EQ(joined, whole.graphIds) << "step " << whole.step;
    EXPECT_DOUBLE_EQ(scales, 1.0);
    EXPECT_EQ(parts.size(), whole.graphIds.size() == 1 ? 1u : 2u);
  }
}

namespace {

/// The pooled model in float64 on graph `g` of `c` (dropout as at `step`
/// when `training`): its logits.
std::vector<double> referenceLogits(const GraphCollection &c, int64_t g,
                                    const std::vector<float> &w,
                                    const std::vector<float> &b, uint64_t seed,
                                    bool training, uint64_t step) {
  const int64_t f = c.numFeatures, classes = c.numClasses;
  auto x = [&](int64_t v, int64_t j) {
    const double value = c.features[size_t(v * f + j)];
    if (!training)
      return value;
    return uniform(seed, step, uint64_t(v * f + j)) < kGraphDropout
               ? 0.0
               : value / (1 - kGraphDropout);
  };
  // Sum over the graph's nodes of (own row + in-neighbours' rows).
  std::vector<double> pooled(static_cast<size_t>(f), 0.0);
  for (int64_t v = c.nodeOffsets[g]; v < c.nodeOffsets[g + 1]; ++v)
    for (int64_t j = 0; j < f; ++j)
      pooled[size_t(j)] += x(v, j);
  for (int64_t e = c.edgeOffsets[g]; e < c.edgeOffsets[g + 1]; ++e)
    for (int64_t j = 0; j < f; ++j)
      pooled[size_t(j)] += x(c.src[e], j);
  std::vector<double> logits(static_cast<size_t>(classes));
  for (int64_t k = 0; k < classes; ++k) {
    logits[size_t(k)] = b[size_t(k)];
    for (int64_t j = 0; j < f; ++j)
      logits[size_t(k)] += pooled[size_t(j)] * w[size_t(j * classes + k)];
  }
  return logits;
}

double crossEntropy(const std::vector<double> &logits, int64_t label) {
  double top = *std::max_element(logits.begin(), logits.end()), sum = 0;
  for (double l : logits)
    sum += std::exp(l - top);
  return top + std::log(sum) - logits[size_t(label)];
}

int64_t argmax(const std::vector<double> &logits) {
  return std::max_element(logits.begin(), logits.end()) - logits.begin();
}

std::string fixed4(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", value);
  return text;
}

} // namespace

TEST_F(GraphBatches, PooledModelMatchesAFloat64Reference) {
  const std::vector<float> w = {0.8f, -0.5f, -0.7f, 0.9f, 0.1f, 0.05f};
  const std::vector<float> b = {0.02f, -0.03f};
  const std::string weights = tmp / "w.safetensors";
  writeSafetensors(weights,
                   {{"lin.w", {3, 2}, w.data()}, {"lin.b", {2}, b.data()}});
  const GraphFold &fold = graphs.folds[2];

  // One step per epoch (a batch of 64 holds all 25 training graphs): the
  // epoch's loss is the loaded weights' at step 0.
  const std::string metrics = tmp / "m.jsonl";
  TrainerRun run = runGraphTrainer(
      pooledProgram(64), {"--data", data, "--load", weights, "--fold", "2",
                          "--epochs", "1", "--metrics", metrics});
  ASSERT_EQ(run.status, 0) << run.err;
  double expected = 0;
  for (int64_t g : fold.train)
    expected += crossEntropy(referenceLogits(graphs, g, w, b, 3, true, 0),
                             graphs.classes[size_t(g)]);
  expected /= double(fold.train.size());
  const Json first = parseJson(fileLines(metrics).at(0));
  EXPECT_EQ(first["fold"].get<int64_t>(), 2);
  EXPECT_NEAR(first["loss"].get<double>(), expected, 1e-5 * expected);

  // Evaluation and predictions of the same weights, in batches of 4.
  const std::string predictions = tmp / "p.csv";
  run = runGraphTrainer(pooledProgram(4),
                        {"--data", data, "--load", weights, "--fold", "2",
                         "--eval-only", "--predict", predictions});
  ASSERT_EQ(run.status, 0) << run.err;
  auto accuracy = [&](const std::vector<int64_t> &ids) {
    int64_t correct = 0;
    for (int64_t g : ids)
      correct += argmax(referenceLogits(graphs, g, w, b, 3, false, 0)) ==
                 graphs.classes[size_t(g)];
    return double(correct) / double(ids.size());
  };
  EXPECT_EQ(linesStarting(run.out, "eval:"),
            std::vector<std::string>{
                "eval: train_acc " + fixed4(accuracy(fold.train)) +
                " valid_acc " + fixed4(accuracy(fold.valid)) + " test_acc " +
                fixed4(accuracy(fold.test))});
  const std::vector<std::string> rows = fileLines(predictions);
  ASSERT_EQ(rows.size(), 41u);
  EXPECT_EQ(rows[0], "graph,prediction");
  for (int64_t g = 0; g < 40; ++g)
    EXPECT_EQ(rows[size_t(g + 1)], std::to_string(g) + "," +
                                       std::to_string(argmax(referenceLogits(
                                           graphs, g, w, b, 3, false, 0))));
}

TEST_F(GraphBatches, TwoRanksTrainAsOneProcess) {
  // Batches of 5 of the 24 training graphs: shares of 2 and 3, then 2 and 2.
  const CompiledProgram program = pooledProgram(5);
  auto args = [&](const std::string &tag) {
    return std::vector<std::string>{"--data",    data,
                                    "--fold",    "0",
                                    "--epochs",  "6",
                                    "--metrics", tmp / (tag + ".jsonl"),
                                    "--predict", tmp / (tag + ".csv")};
  };
  const TrainerRun single = runGraphTrainer(program, args("single"));
  ASSERT_EQ(single.status, 0) << single.err;
  const TrainerRun shared = runOnRanks(program, 2, args("shared"));
  ASSERT_EQ(shared.status, 0) << shared.err;
  const std::vector<std::string> one = fileLines(tmp / "single.jsonl");
  const std::vector<std::string> two = fileLines(tmp / "shared.jsonl");
  ASSERT_EQ(one.size(), two.size());
  ASSERT_GE(one.size(), 6u);
  for (size_t e = 0; e < 6; ++e) {
    const Json a = parseJson(one[e]), b = parseJson(two[e]);
    const double loss = a["loss"].get<double>();
    EXPECT_NEAR(b["loss"].get<double>(), loss, 1e-5 * std::abs(loss))
        << "epoch " << e + 1;
    for (const char *key : {"train_acc", "valid_acc", "test_acc"})
      EXPECT_EQ(a[key].get<double>(), b[key].get<double>()) << key;
  }
  EXPECT_EQ(linesStarting(single.out, "fold 0:"),
            linesStarting(shared.out, "fold 0:"));
  EXPECT_EQ(readBytes(tmp / "single.csv"), readBytes(tmp / "shared.csv"));
}

namespace {
/// The pooled model with a doubled bias gradient.
double wrongBiasStep(ExecContext<double> &ctx) {
  const double loss = pooledTrainStep<double>(ctx);
  for (int64_t k = 0; k < ctx.numClasses; ++k)
    ctx.grads[1][k] *= 2;
  return loss;
}
} // namespace

TEST(GraphGradcheck, ChecksTheBackwardOnABatchOfGraphs) {
  TrainerRun run = runGraphTrainer(pooledProgram(), {"--gradcheck"});
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_EQ(linesStarting(run.out, "gradcheck: PASS").size(), 1u) << run.out;
  CompiledProgram wrong = pooledProgram();
  wrong.trainStepF64 = wrongBiasStep;
  run = runGraphTrainer(wrong, {"--gradcheck"});
  EXPECT_EQ(run.status, 1);
  // A doubled gradient: |2a - a| / (|2a| + |a|) = 1/3.
  EXPECT_EQ(
      linesStarting(run.out, "gradcheck lin.b max_rel_err 3.3e-01").size(), 1u)
      << run.out;
}

TEST(GraphGradcheck, AGradientOfRoundingNoiseIsZero) {
  // A shift of every logit leaves the softmax cross-entropy unchanged: its
  // gradient is 0, its central difference rounding noise (as a bias before
  // a batch normalization).
  CompiledProgram shifted = pooledProgram();
  shifted.params = [](const DataDims &dims) {
    std::vector<ParamInfo> params = pooledParams(dims);
    params.push_back({"shift", {1}, Init::Zeros, {}});
    return params;
  };
  const TrainerRun run = runGraphTrainer(shifted, {"--gradcheck"});
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(linesStarting(run.out, "gradcheck shift max_rel_err 0.0e+00"),
            std::vector<std::string>{
                "gradcheck shift max_rel_err 0.0e+00 (1 elements)"})
      << run.out;
}
