//===- DriverTest.cpp - trainMain end to end with a hand-written model ----===//
//
// gnnc is not needed to test the driver: the CompiledProgram here is written
// by hand. Its model is a linear layer over dropped-out features followed by
// one propagation step, logits[v] = h[v] + 0.1 * sum of h over v's
// in-neighbours with h = dropout(x) W + b, so it reads every part of the
// GraphView and the dropout contract (masks a function of seed and step).
// The backward is written out by hand, once correctly and once with a
// deliberately doubled bias gradient that --gradcheck must catch.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/train/Program.h"

#include "TestUtil.h"
#include "TrainerRun.h"
#include "gnnrt/data/Dataset.h"
#include "gnnrt/data/Generator.h"
#include "gnnrt/io/Json.h"
#include "gnnrt/io/Safetensors.h"
#include "gnnrt/support/Random.h"

#include <cmath>
#include <filesystem>
#include <sstream>
#include <sys/stat.h>
#include <thread>

using namespace gnnrt;
using namespace gnnrt::test;
namespace fs = std::filesystem;

namespace {

constexpr double kDropout = 0.2, kHop = 0.1;

std::vector<ParamInfo> linearParams(const DataDims &dims) {
  return {{"lin.w", {dims.features, dims.classes}, Init::Glorot, {}},
          {"lin.b", {dims.classes}, Init::Zeros, {}}};
}

/// Forward into `out` (and, when training, loss and backward with the bias
/// gradient multiplied by biasGradScale, which is 1 in a correct model).
template <typename T>
T linearModel(ExecContext<T> &ctx, bool training, T *out,
              int biasGradScale = 1) {
  const GraphView &g = ctx.graph;
  const int64_t n = g.numDst, f = ctx.numFeatures, c = ctx.numClasses;
  const T *w = ctx.params[0], *b = ctx.params[1];
  T *x = ctx.workspace->get(0, n * f), *h = ctx.workspace->get(1, n * c);
  ctx.unplannedBytes = int64_t((n * f + 4 * n * c) * sizeof(T));
  for (int64_t i = 0; i < n * f; ++i) {
    bool dropped = training && uniform(ctx.seed, ctx.step, i) < kDropout;
    x[i] = dropped ? T(0) : ctx.features[i] / T(training ? 1 - kDropout : 1);
  }
  for (int64_t v = 0; v < n; ++v)
    for (int64_t k = 0; k < c; ++k) {
      T sum = b[k];
      for (int64_t j = 0; j < f; ++j)
        sum += x[v * f + j] * w[j * c + k];
      h[v * c + k] = sum;
    }
  for (int64_t v = 0; v < n; ++v)
    for (int64_t k = 0; k < c; ++k) {
      T sum = h[v * c + k];
      for (int64_t e = g.inOffsets[v]; e < g.inOffsets[v + 1]; ++e)
        sum += T(kHop) * h[g.edgeSrc[e] * c + k];
      out[v * c + k] = sum;
    }
  if (!training)
    return T(0);

  // Mean cross-entropy over the masked labeled rows, and its gradient.
  T *dout = ctx.workspace->get(2, n * c), *dh = ctx.workspace->get(3, n * c);
  int64_t rows = 0;
  for (int64_t v = 0; v < n; ++v)
    rows += ctx.lossMask[v] && ctx.labels[v] >= 0;
  T loss = 0;
  for (int64_t v = 0; v < n; ++v) {
    const T *o = out + v * c;
    bool selected = ctx.lossMask[v] && ctx.labels[v] >= 0;
    T top = *std::max_element(o, o + c), z = 0;
    for (int64_t k = 0; k < c; ++k)
      z += std::exp(o[k] - top);
    if (selected)
      loss += (top + std::log(z) - o[ctx.labels[v]]) / T(rows);
    for (int64_t k = 0; k < c; ++k)
      dout[v * c + k] =
          selected
              ? (std::exp(o[k] - top) / z - T(k == ctx.labels[v])) / T(rows)
              : T(0);
  }
  // The propagation's adjoint runs over each node's out-edges.
  for (int64_t u = 0; u < n; ++u)
    for (int64_t k = 0; k < c; ++k) {
      T sum = dout[u * c + k];
      for (int64_t j = g.outOffsets[u]; j < g.outOffsets[u + 1]; ++j)
        sum += T(kHop) * dout[g.edgeDst[g.outEdges[j]] * c + k];
      dh[u * c + k] = sum;
    }
  T *dw = ctx.grads[0], *db = ctx.grads[1];
  for (int64_t v = 0; v < n; ++v)
    for (int64_t k = 0; k < c; ++k) {
      db[k] += T(biasGradScale) * dh[v * c + k];
      for (int64_t j = 0; j < f; ++j)
        dw[j * c + k] += x[v * f + j] * dh[v * c + k];
    }
  return loss;
}

template <typename T> void linearForward(ExecContext<T> &ctx) {
  linearModel(ctx, false, ctx.output);
}

template <typename T, int BiasGradScale>
T linearTrainStep(ExecContext<T> &ctx) {
  T *out = ctx.workspace->get(4, ctx.graph.numDst * ctx.numClasses);
  return linearModel(ctx, true, out, BiasGradScale);
}

template <int BiasGradScale = 1> CompiledProgram linearProgram() {
  CompiledProgram p;
  p.model = "Linear";
  p.sourceFile = "linear.gnn";
  TrainSettings &s = p.settings;
  s.dataset = "toy";
  s.source = "ogb";
  s.addReverseEdges = true;
  s.optimizer = "adam";
  s.lr = 0.05;
  s.weightDecay = 5e-4;
  s.epochs = 30;
  s.evaluate = {"train", "valid", "test"};
  s.evaluateEvery = 5;
  s.seed = 1;
  p.params = linearParams;
  p.forwardF32 = linearForward<float>;
  p.trainStepF32 = linearTrainStep<float, BiasGradScale>;
  p.forwardF64 = linearForward<double>;
  p.trainStepF64 = linearTrainStep<double, BiasGradScale>;
  return p;
}

GeneratorOptions toyGenerator() {
  GeneratorOptions gen;
  gen.numNodes = 90;
  gen.numEdges = 270;
  gen.numFeatures = 6;
  gen.numClasses = 3;
  gen.seed = 5;
  gen.signal = 4.0;
  return gen;
}

using RunResult = TrainerRun;

RunResult runTrainer(const CompiledProgram &program,
                     std::vector<std::string> args) {
  return runTrainerMain(program, std::move(args), "/opt/bin/linear");
}

/// The line of `text` that starts with `prefix` ("" if none).
std::string lineStarting(const std::string &text, const std::string &prefix) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(prefix, 0) == 0)
      return line;
  return "";
}

std::vector<std::string> readLines(const std::string &path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

class Driver : public testing::Test {
protected:
  void SetUp() override {
    writeOgbDataset(data, generateDataset(toyGenerator()), "random", false);
  }
  /// The train-set arguments plus `more`.
  std::vector<std::string> args(std::vector<std::string> more = {}) {
    more.insert(more.begin(), {"--data", data});
    return more;
  }

  TempDir tmp;
  std::string data = tmp / "toy";
};

} // namespace

TEST_F(Driver, TrainsAndWritesMetrics) {
  std::string metricsPath = tmp / "metrics.jsonl";
  RunResult r = runTrainer(linearProgram(), args({"--metrics", metricsPath}));
  ASSERT_EQ(r.status, 0) << r.err;

  std::vector<std::string> lines = readLines(metricsPath);
  ASSERT_EQ(lines.size(), 30u);
  std::vector<double> losses;
  for (size_t i = 0; i < lines.size(); ++i) {
    Json record = parseJson(lines[i]);
    ASSERT_TRUE(record.is_object()) << lines[i];
    EXPECT_EQ(record["epoch"].get<double>(), double(i + 1));
    ASSERT_TRUE(record.contains("loss") && record["loss"].is_number());
    losses.push_back(record["loss"].get<double>());
    EXPECT_GE(record["epoch_seconds"].get<double>(), 0.0);
    EXPECT_GE(record["epoch_cpu_seconds"].get<double>(), 0.0);
    bool evaluated = (i + 1) % 5 == 0;
    for (const char *key : {"train_acc", "valid_acc", "test_acc"})
      EXPECT_EQ(record.contains(key), evaluated)
          << key << " in " << lines[i];
  }
  EXPECT_LT(losses.back(), 0.7 * losses.front());

  // One stderr line per epoch (not a terminal), accuracies when evaluated.
  EXPECT_NE(r.err.find("epoch 1/30 loss "), std::string::npos) << r.err;
  EXPECT_NE(lineStarting(r.err, "epoch 30/30 loss ").find(" valid "),
            std::string::npos);
  std::string final = lineStarting(r.out, "final: epoch 30 loss ");
  ASSERT_FALSE(final.empty()) << r.out;
  double loss, train, valid, test;
  ASSERT_EQ(std::sscanf(final.c_str(),
                        "final: epoch 30 loss %lf train_acc %lf valid_acc %lf "
                        "test_acc %lf",
                        &loss, &train, &valid, &test),
            4)
      << final;
  EXPECT_NEAR(loss, losses.back(), 1e-4);
  EXPECT_GT(train, 0.6); // 3 classes: chance is 1/3
  EXPECT_GT(valid, 0.5);
  EXPECT_FALSE(lineStarting(r.out, "best_valid: epoch ").empty()) << r.out;
}

TEST_F(Driver, DeterministicPerSeed) {
  auto finalLine = [&](std::vector<std::string> more) {
    RunResult r = runTrainer(linearProgram(), args(more));
    EXPECT_EQ(r.status, 0) << r.err;
    return lineStarting(r.out, "final:");
  };
  std::string first = finalLine({"--epochs", "5"});
  EXPECT_EQ(finalLine({"--epochs", "5", "--threads", "1"}), first);
  EXPECT_NE(finalLine({"--epochs", "5", "--seed", "2"}), first);
}

TEST_F(Driver, SaveLoadEvalOnlyAndPredict) {
  std::string weights = tmp / "w.safetensors";
  std::string predictions = tmp / "pred.csv";
  RunResult trained = runTrainer(
      linearProgram(), args({"--save", weights, "--predict", predictions}));
  ASSERT_EQ(trained.status, 0) << trained.err;

  SafetensorsContents file = readSafetensors(weights);
  EXPECT_EQ(file.metadata.at("model"), "Linear");
  ASSERT_NE(file.find("lin.w"), nullptr);
  EXPECT_EQ(file.find("lin.w")->shape, (std::vector<int64_t>{6, 3}));
  EXPECT_EQ(file.find("lin.b")->shape, (std::vector<int64_t>{3}));

  std::vector<std::string> rows = readLines(predictions);
  ASSERT_EQ(rows.size(), 91u);
  EXPECT_EQ(rows[0], "node,prediction");
  for (size_t v = 1; v < rows.size(); ++v) {
    std::string prefix = std::to_string(v - 1) + ",";
    ASSERT_EQ(rows[v].rfind(prefix, 0), 0u) << rows[v];
    std::string cls = rows[v].substr(prefix.size());
    EXPECT_TRUE(cls == "0" || cls == "1" || cls == "2") << rows[v];
  }
  EXPECT_FALSE(fs::exists(predictions + ".tmp"));
  EXPECT_FALSE(fs::exists(weights + ".tmp"));

  // The loaded weights reproduce the final accuracies and predictions.
  std::string final = lineStarting(trained.out, "final:");
  std::string accuracies = final.substr(final.find("train_acc"));
  std::string again = tmp / "again.csv";
  RunResult eval =
      runTrainer(linearProgram(),
                 args({"--load", weights, "--eval-only", "--predict", again}));
  ASSERT_EQ(eval.status, 0) << eval.err;
  EXPECT_EQ(lineStarting(eval.out, "eval:"), "eval: " + accuracies);
  EXPECT_EQ(readBytes(again), readBytes(predictions));
  EXPECT_EQ(lineStarting(eval.out, "final:"), ""); // no training
}

TEST_F(Driver, LoadChecksNamesAndShapes) {
  std::vector<float> zeros(18, 0.0f);
  std::string wrongShape = tmp / "shape.safetensors";
  writeSafetensors(wrongShape, {{"lin.w", {3, 3}, zeros.data()},
                                {"lin.b", {3}, zeros.data()}});
  RunResult r =
      runTrainer(linearProgram(), args({"--load", wrongShape, "--eval-only"}));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "linear: error: " + wrongShape +
                       ": tensor 'lin.w' has shape [3, 3] but Linear expects "
                       "[6, 3]\n");

  std::string missing = tmp / "missing.safetensors";
  writeSafetensors(missing, {{"lin.w", {6, 3}, zeros.data()}});
  r = runTrainer(linearProgram(), args({"--load", missing}));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "linear: error: " + missing +
                       ": no tensor 'lin.b' (parameter of Linear with shape "
                       "[3])\n");

  std::string extra = tmp / "extra.safetensors";
  writeSafetensors(extra, {{"lin.w", {6, 3}, zeros.data()},
                           {"lin.b", {3}, zeros.data()},
                           {"lin.c", {3}, zeros.data()}});
  r = runTrainer(linearProgram(), args({"--load", extra}));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "linear: error: " + extra +
                       ": tensor 'lin.c' is not a parameter of Linear\n");
}

TEST_F(Driver, DataErrorsLeaveNoOutputs) {
  std::string missingDir = tmp / "nowhere";
  std::vector<std::string> outputs = {tmp / "m.jsonl", tmp / "w.safetensors",
                                      tmp / "p.csv"};
  RunResult r = runTrainer(linearProgram(),
                           {"--data", missingDir, "--metrics", outputs[0],
                            "--save", outputs[1], "--predict", outputs[2]});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "linear: error: " + missingDir + ": no such dataset directory\n");
  EXPECT_EQ(r.out, "");
  for (const std::string &path : outputs) {
    EXPECT_FALSE(fs::exists(path)) << path;
    EXPECT_FALSE(fs::exists(path + ".tmp")) << path;
  }
}

TEST_F(Driver, UsageErrorsExitWithTwo) {
  RunResult r = runTrainer(linearProgram(), args({"--epochs", "abc"}));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "linear: --epochs expects an integer, got 'abc'\n"
                   "(run 'linear --help' for the options)\n");
  r = runTrainer(linearProgram(), {"--bogus"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(lineStarting(r.err, "linear:"), "linear: unknown option '--bogus'");
}

TEST_F(Driver, Help) {
  RunResult r = runTrainer(linearProgram(), {"--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("usage: linear [options]\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("Trains model Linear (compiled from linear.gnn)"),
            std::string::npos);
}

TEST_F(Driver, Stats) {
  RunResult r = runTrainer(linearProgram(), args({"--epochs", "3", "--stats"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("stats: parameters 21 in 2 tensors\n"),
            std::string::npos)
      << r.out;
  // The model's unplanned estimate: 90 * 6 + 4 * 90 * 3 floats.
  EXPECT_NE(r.out.find("(unplanned 6480)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stats: mean epoch "), std::string::npos);
}

TEST_F(Driver, GeneratedDatasetNeedsNoData) {
  CompiledProgram program = linearProgram();
  program.settings.source = "generate";
  program.settings.generator = toyGenerator();
  RunResult r = runTrainer(program, {"--epochs", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(lineStarting(r.out, "final: epoch 2 ").empty()) << r.out;
}

TEST_F(Driver, GradcheckPassesOnTheCorrectModel) {
  RunResult r = runTrainer(linearProgram(), {"--gradcheck"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  std::string weightLine = lineStarting(r.out, "gradcheck lin.w max_rel_err ");
  EXPECT_NE(weightLine.find("(15 elements)"), std::string::npos) << r.out;
  EXPECT_FALSE(lineStarting(r.out, "gradcheck lin.b max_rel_err ").empty());
  EXPECT_FALSE(lineStarting(r.out, "gradcheck: PASS (max_rel_err ").empty())
      << r.out;
}

TEST_F(Driver, GradcheckFailsOnAWrongGradient) {
  RunResult r = runTrainer(linearProgram<2>(), {"--gradcheck"});
  EXPECT_EQ(r.status, 1);
  // A doubled gradient: |2a - a| / (|2a| + |a|) = 1/3.
  EXPECT_FALSE(
      lineStarting(r.out, "gradcheck lin.b max_rel_err 3.3e-01 (3 elements)")
          .empty())
      << r.out;
  EXPECT_FALSE(
      lineStarting(r.out, "gradcheck: FAIL (max_rel_err 3.3e-01 at lin.b[")
          .empty())
      << r.out;
}

namespace {
/// loss = sum(p^2) / 2 over one [10, 10] parameter: the gradient is p.
double quadraticStep(ExecContext<double> &ctx) {
  double loss = 0;
  for (int i = 0; i < 100; ++i) {
    loss += 0.5 * ctx.params[0][i] * ctx.params[0][i];
    ctx.grads[0][i] += ctx.params[0][i];
  }
  return loss;
}
} // namespace

TEST_F(Driver, GradcheckCapsElementsPerParameter) {
  CompiledProgram program = linearProgram();
  program.params = [](const DataDims &) {
    return std::vector<ParamInfo>{{"big", {10, 10}, Init::Glorot, {}}};
  };
  program.trainStepF64 = quadraticStep;
  RunResult r = runTrainer(program, {"--gradcheck"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("(64 elements)\n"), std::string::npos) << r.out;
}

TEST_F(Driver, OutputPathsAreCheckedBeforeLoading) {
  // The dataset directory is missing too: the output's error comes first,
  // before any data is read.
  std::string typo = tmp / "no-such-dir/p.csv";
  RunResult r = runTrainer(linearProgram(), {"--data", tmp / "nowhere",
                                             "--predict", typo});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "linear: error: --predict " + typo +
                       ": cannot write: directory '" + tmp / "no-such-dir" +
                       "' does not exist\n");
  r = runTrainer(linearProgram(), args({"--metrics", tmp.path()}));
  EXPECT_EQ(r.err, "linear: error: --metrics " + tmp.path() +
                       ": cannot write: it is a directory\n");
  // Two outputs, one file (spelled differently): one would destroy the other.
  std::string metrics = tmp / "m.jsonl";
  r = runTrainer(linearProgram(), args({"--metrics", metrics, "--predict",
                                        tmp / "./m.jsonl"}));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "linear: error: --predict " + tmp / "./m.jsonl" +
                       ": cannot write: it is also the --metrics file\n");
  // An output over a dataset file or the --load file.
  std::string edges = data + "/raw/edge.csv";
  r = runTrainer(linearProgram(), args({"--predict", edges}));
  EXPECT_EQ(r.err, "linear: error: --predict " + edges +
                       ": cannot write: it is the dataset file " + edges +
                       "\n");
  std::string weights = tmp / "w.safetensors";
  ASSERT_EQ(runTrainer(linearProgram(), args({"--save", weights})).status, 0);
  r = runTrainer(linearProgram(),
                 args({"--load", weights, "--eval-only", "--predict", weights}));
  EXPECT_EQ(r.err, "linear: error: --predict " + weights +
                       ": cannot write: it is the --load file\n");
  EXPECT_FALSE(fs::exists(metrics));
  EXPECT_TRUE(fs::exists(weights));
}

TEST_F(Driver, OutputsIntoFifosAreWrittenInPlace) {
  // A FIFO stands for /dev/stdout or a pipe: renaming a regular file over
  // it would replace it. One FIFO per output, each with its reader.
  std::string fifos[2] = {tmp / "metrics.fifo", tmp / "predict.fifo"};
  std::string received[2];
  std::vector<std::thread> readers;
  for (int k = 0; k < 2; ++k) {
    ASSERT_EQ(::mkfifo(fifos[k].c_str(), 0600), 0);
    readers.emplace_back([&, k] {
      std::ifstream in(fifos[k], std::ios::binary);
      received[k] = std::string(std::istreambuf_iterator<char>(in), {});
    });
  }
  RunResult r = runTrainer(linearProgram(),
                           args({"--epochs", "2", "--metrics", fifos[0],
                                 "--predict", fifos[1]}));
  // A failed run would leave the readers waiting: open the FIFOs to end it.
  if (r.status != 0)
    for (const std::string &fifo : fifos)
      std::ofstream(fifo).put('\n');
  for (std::thread &reader : readers)
    reader.join();
  ASSERT_EQ(r.status, 0) << r.err;
  for (const std::string &fifo : fifos) {
    struct stat info;
    ASSERT_EQ(::stat(fifo.c_str(), &info), 0);
    EXPECT_TRUE(S_ISFIFO(info.st_mode)) << fifo;
    EXPECT_FALSE(fs::exists(fifo + ".tmp")) << fifo;
  }
  EXPECT_EQ(received[0].rfind("{\"epoch\":1,", 0), 0u) << received[0];
  EXPECT_EQ(received[1].rfind("node,prediction\n0,", 0), 0u) << received[1];
}

TEST_F(Driver, EmptyTrainSplitIsAnError) {
  writeFile(data + "/split/random/train.csv", "");
  std::string metrics = tmp / "m.jsonl";
  RunResult r = runTrainer(linearProgram(), args({"--metrics", metrics}));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "linear: error: " + data +
                       ": the train split is empty (no node ids in "
                       "split/<name>/train.csv[.gz] or train_idx.npy)\n");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(metrics));
}

TEST_F(Driver, UnlabeledTrainNodesAreAnError) {
  // The same dataset with every train node's label -1 (others kept): the
  // loss would be 0 every epoch.
  Dataset ds = generateDataset(toyGenerator());
  for (int64_t v : ds.trainIdx)
    ds.labels[size_t(v)] = -1;
  fs::remove_all(data);
  writeOgbDataset(data, ds, "random", false);
  std::string metrics = tmp / "m.jsonl";
  RunResult r = runTrainer(linearProgram(), args({"--metrics", metrics}));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "linear: error: " + data + ": none of the " +
                       std::to_string(ds.trainIdx.size()) +
                       " train nodes has a label (-1 or nan in the label "
                       "table): nothing to train on\n");
  EXPECT_FALSE(fs::exists(metrics));
}
