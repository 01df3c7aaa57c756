//===- LinkScheduleTest.cpp - link-prediction training, hand-written model ===//
//
// The link-prediction schedule without gnnc: the CompiledProgram here is
// written by hand as the contract of Program.h asks (ExecContext::pairs, an
// output row [0, s] per pair, labels per pair). Its model embeds each node
// linearly, z = x W, and scores a pair by the inner product of its ends'
// embeddings, as GAE's decoder; its backward is written out by hand. The
// tests check what a user sees against float64 references computed here:
// the pairs trained on (every train link, k negatives that are no train link
// nor a self loop, the same for the same (seed, epoch)), the loss of a step,
// the AUC and AP of an evaluation, the metrics and summary lines, an exact
// resume, and the launches refused.
//
//===----------------------------------------------------------------------===//

#include "train/links/LinkSchedule.h"
#include "train/links/KnowledgeGraphSchedule.h"

#include "TestUtil.h"
#include "TrainerRun.h"
#include "gnnrt/data/Generator.h"
#include "gnnrt/train/ParamInit.h"
#include "train/params/OptimizerStep.h"

#include <cmath>
#include <map>
#include <set>
#include <sstream>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

constexpr int64_t kDim = 8;

std::vector<ParamInfo> encoderParams(const DataDims &dims) {
  return {{"enc.w", {dims.features, kDim}, Init::Glorot, {}}};
}

/// z = x W ([nodes, kDim]) into the workspace.
template <typename T> T *embed(ExecContext<T> &ctx) {
  const int64_t n = ctx.graph.numSrc, f = ctx.numFeatures;
  const T *w = ctx.params[0];
  T *z = ctx.workspace->get(0, n * kDim);
  for (int64_t v = 0; v < n; ++v)
    for (int64_t d = 0; d < kDim; ++d) {
      T sum = 0;
      for (int64_t j = 0; j < f; ++j)
        sum += ctx.features[v * f + j] * w[j * kDim + d];
      z[v * kDim + d] = sum;
    }
  return z;
}

template <typename T> T dot(const T *a, const T *b) {
  T sum = 0;
  for (int64_t d = 0; d < kDim; ++d)
    sum += a[d] * b[d];
  return sum;
}

template <typename T> void linkForward(ExecContext<T> &ctx) {
  const T *z = embed(ctx);
  const GraphView &p = ctx.pairs;
  for (int64_t k = 0; k < p.numEdges; ++k) {
    ctx.output[2 * k] = 0;
    ctx.output[2 * k + 1] =
        dot(z + p.edgeSrc[k] * kDim, z + p.edgeDst[k] * kDim);
  }
}

/// The mean binary cross-entropy of the scores against ctx.labels, and its
/// gradient through the inner products and the embedding.
template <typename T, bool DstGradient = true>
T linkTrainStep(ExecContext<T> &ctx) {
  const T *z = embed(ctx);
  const GraphView &p = ctx.pairs;
  const int64_t n = ctx.graph.numSrc, f = ctx.numFeatures;
  T *dz = ctx.workspace->get(1, n * kDim);
  std::fill(dz, dz + n * kDim, T(0));
  T loss = 0;
  for (int64_t k = 0; k < p.numEdges; ++k) {
    const T *zu = z + p.edgeSrc[k] * kDim, *zv = z + p.edgeDst[k] * kDim;
    const T s = dot(zu, zv), y = T(ctx.labels[k]);
    // log(1 + e^s) - y s, stably.
    loss += std::max(s, T(0)) + std::log1p(std::exp(-std::abs(s))) - y * s;
    const T g =
        (T(1) / (T(1) + std::exp(-s)) - y) / T(p.numEdges) * T(ctx.lossScale);
    for (int64_t d = 0; d < kDim; ++d) {
      dz[p.edgeSrc[k] * kDim + d] += g * zv[d];
      if (DstGradient) // false: a deliberately wrong backward
        dz[p.edgeDst[k] * kDim + d] += g * zu[d];
    }
  }
  T *dw = ctx.grads[0];
  for (int64_t v = 0; v < n; ++v)
    for (int64_t j = 0; j < f; ++j)
      for (int64_t d = 0; d < kDim; ++d)
        dw[j * kDim + d] += ctx.features[v * f + j] * dz[v * kDim + d];
  return loss / T(p.numEdges) * T(ctx.lossScale);
}

int64_t twoColumns(const DataDims &dims) { return dims.classes; }

GeneratorOptions toyGraph() {
  GeneratorOptions gen;
  gen.numNodes = 120;
  gen.numEdges = 480;
  gen.numFeatures = 6;
  gen.numClasses = 3;
  gen.seed = 3;
  gen.signal = 4.0;
  return gen;
}

CompiledProgram linkProgram() {
  CompiledProgram p;
  p.model = "Gae";
  p.sourceFile = "gae.gnn";
  TrainSettings &s = p.settings;
  s.dataset = "toy";
  s.source = "generate";
  s.generator = toyGraph();
  s.addReverseEdges = true;
  s.optimizer = "adam";
  s.lr = 0.05;
  s.epochs = 12;
  s.evaluate = {"valid", "test"};
  s.evaluateEvery = 4;
  s.seed = 7;
  s.links.enabled = true;
  s.links.valid = 0.1;
  s.links.test = 0.2;
  s.links.negatives = 2;
  p.params = encoderParams;
  p.outputColumns = twoColumns;
  p.forwardF32 = linkForward<float>;
  p.trainStepF32 = linkTrainStep<float>;
  p.forwardF64 = linkForward<double>;
  p.trainStepF64 = linkTrainStep<double>;
  return p;
}

/// A pair as a key.
using Pair = std::pair<int64_t, int64_t>;

/// The schedule of `program`, prepared and bound to freshly initialized
/// `params`.
struct Bound {
  explicit Bound(const CompiledProgram &program)
      : program(program), comm(makeCommunicator()),
        schedule(program, options, *comm, /*samplerRanks=*/false) {
    schedule.prepare();
    const TrainingData &t = schedule.data();
    params.emplace(program.params(
        {t.data.numFeatures, t.data.numClasses, 0, t.numGlobalNodes}));
    for (size_t i = 0; i < params->size(); ++i)
      initParameter(params->info[i], program.settings.seed,
                    paramInitStream(int64_t(i)), params->values[i].data());
    schedule.bind(*params);
  }
  /// The float64 score of pair (u, v) with the current parameters.
  double score(int64_t u, int64_t v) const {
    const TrainingData &t = schedule.data();
    const int64_t f = t.data.numFeatures;
    const std::vector<float> &w = params->values[0];
    double s = 0;
    for (int64_t d = 0; d < kDim; ++d) {
      double zu = 0, zv = 0;
      for (int64_t j = 0; j < f; ++j) {
        zu += double(t.data.features[size_t(u * f + j)]) *
              w[size_t(j * kDim + d)];
        zv += double(t.data.features[size_t(v * f + j)]) *
              w[size_t(j * kDim + d)];
      }
      s += zu * zv;
    }
    return s;
  }

  CompiledProgram program;
  DriverOptions options;
  std::unique_ptr<Communicator> comm;
  LinkSchedule schedule;
  std::optional<ParameterStore<float>> params;
};

/// sklearn's roc_auc_score by its definition: the share of (positive,
/// negative) pairs the positive wins, ties a half.
double pairwiseAuc(const std::vector<double> &pos,
                   const std::vector<double> &neg) {
  double wins = 0;
  for (double p : pos)
    for (double n : neg)
      wins += p > n ? 1.0 : p == n ? 0.5 : 0.0;
  return wins / double(pos.size() * neg.size());
}

/// sklearn's average_precision_score for distinct scores: the mean over
/// positives of the precision at that positive's score.
double averagePrecisionByDefinition(const std::vector<double> &pos,
                                    const std::vector<double> &neg) {
  double sum = 0;
  for (double p : pos) {
    double above = 0, positivesAbove = 0;
    for (double q : pos)
      positivesAbove += q >= p;
    for (double n : neg)
      above += n >= p;
    sum += positivesAbove / (positivesAbove + above);
  }
  return sum / double(pos.size());
}

} // namespace

TEST(LinkPairs, LabelsFollowTheirPairsIntoEdgeOrder) {
  LinkPairs pos{{0, 3, 2, 1}, {1, 2, 0, 3}};
  LinkPairs neg{{4, 0, 2}, {0, 4, 3}};
  PairBatch batch = makePairBatch(5, pos, neg);
  const GraphView g = batch.graph.view();
  ASSERT_EQ(g.numEdges, 7);
  EXPECT_EQ(batch.positives, 4);
  EXPECT_EQ(batch.negatives, 3);
  std::set<Pair> positives, negatives;
  for (size_t i = 0; i < pos.size(); ++i)
    positives.insert({pos.src[i], pos.dst[i]});
  for (size_t i = 0; i < neg.size(); ++i)
    negatives.insert({neg.src[i], neg.dst[i]});
  std::multiset<Pair> seen;
  for (int64_t k = 0; k < g.numEdges; ++k) {
    const Pair pair{g.edgeSrc[k], g.edgeDst[k]};
    seen.insert(pair);
    EXPECT_EQ(batch.labels[size_t(k)], positives.count(pair) ? 1 : 0)
        << pair.first << " -> " << pair.second;
    EXPECT_EQ(positives.count(pair) + negatives.count(pair), 1u);
  }
  EXPECT_EQ(seen.size(), 7u);
}

TEST(LinkSchedule, MessagePassingSeesTrainLinksOnly) {
  Bound run(linkProgram());
  const LinkSplitData &links = run.schedule.links();
  const EdgeSplit &split = links.split();
  EXPECT_TRUE(links.undirected());
  std::set<Pair> train;
  for (size_t i = 0; i < split.trainPos.size(); ++i) {
    train.insert({split.trainPos.src[i], split.trainPos.dst[i]});
    train.insert({split.trainPos.dst[i], split.trainPos.src[i]});
  }
  // The graph the entry points run on: exactly the train links, both ways.
  const GraphView g = run.schedule.data().graph.view();
  std::set<Pair> graph;
  for (int64_t v = 0; v < g.numDst; ++v)
    for (int64_t e = g.inOffsets[v]; e < g.inOffsets[v + 1]; ++e)
      graph.insert({g.edgeSrc[e], v});
  EXPECT_EQ(graph, train);
  EXPECT_EQ(int64_t(graph.size()), g.numEdges);
  for (const LinkPairs *held : {&split.validPos, &split.testPos})
    for (size_t i = 0; i < held->size(); ++i)
      EXPECT_FALSE(graph.count({held->src[i], held->dst[i]}));
  // Two output columns per pair.
  EXPECT_EQ(run.schedule.data().data.numClasses, 2);
}

TEST(LinkSchedule, NegativesAreAFunctionOfSeedAndEpoch) {
  const CompiledProgram program = linkProgram();
  Bound run(program);
  const LinkSplitData &links = run.schedule.links();
  const EdgeSplit &split = links.split();
  std::set<Pair> known;
  for (size_t i = 0; i < split.graph.size(); ++i)
    known.insert({split.graph.src[i], split.graph.dst[i]});
  auto pairsOf = [](const PairBatch &b) {
    std::vector<std::tuple<int64_t, int64_t, int64_t>> out;
    const GraphView g = b.graph.view();
    for (int64_t k = 0; k < g.numEdges; ++k)
      out.emplace_back(g.edgeSrc[k], g.edgeDst[k], b.labels[size_t(k)]);
    return out;
  };
  const PairBatch epoch1 = links.trainPairs(1);
  const int64_t trainLinks = int64_t(split.trainPos.size());
  EXPECT_EQ(epoch1.positives, trainLinks);
  EXPECT_EQ(epoch1.negatives, 2 * trainLinks);
  for (auto [u, v, label] : pairsOf(epoch1))
    if (label == 0) {
      EXPECT_NE(u, v);
      EXPECT_FALSE(known.count({u, v})) << u << " -> " << v;
    } else {
      EXPECT_TRUE(known.count({u, v}));
    }
  // The same epoch draws the same pairs, in another process too (a second
  // schedule on the same program); another epoch or seed draws others.
  Bound again(program);
  EXPECT_EQ(pairsOf(again.schedule.links().trainPairs(1)), pairsOf(epoch1));
  EXPECT_EQ(pairsOf(links.trainPairs(1)), pairsOf(epoch1));
  EXPECT_NE(pairsOf(links.trainPairs(2)), pairsOf(epoch1));
  CompiledProgram reseeded = program;
  reseeded.settings.seed = 8;
  EXPECT_NE(pairsOf(Bound(reseeded).schedule.links().trainPairs(1)),
            pairsOf(epoch1));
}

TEST(LinkSchedule, StepLossAndEvaluationMatchFloat64) {
  Bound run(linkProgram());
  // The loss of epoch 1's step, recomputed in float64 from the parameters
  // before the update and the epoch's pairs.
  const PairBatch pairs = run.schedule.links().trainPairs(1);
  double expected = 0;
  const GraphView g = pairs.graph.view();
  for (int64_t k = 0; k < g.numEdges; ++k) {
    const double s = run.score(g.edgeSrc[k], g.edgeDst[k]);
    const double sigmoid = 1 / (1 + std::exp(-s));
    expected -= pairs.labels[size_t(k)] == 1 ? std::log(sigmoid)
                                             : std::log(1 - sigmoid);
  }
  expected /= double(g.numEdges);
  OptimizerStep step(run.program, run.options, *run.params, *run.comm);
  const double loss = run.schedule.trainEpoch(1, step);
  EXPECT_NEAR(loss, expected, 1e-5 * std::abs(expected));

  // AUC and AP of the valid and test pairs with the updated parameters.
  const Accuracies acc = run.schedule.evaluate();
  const EdgeSplit &split = run.schedule.links().split();
  auto scores = [&](const LinkPairs &pairs) {
    std::vector<double> out;
    for (size_t i = 0; i < pairs.size(); ++i)
      out.push_back(run.score(pairs.src[i], pairs.dst[i]));
    return out;
  };
  const std::vector<double> validPos = scores(split.validPos),
                            validNeg = scores(split.validNeg),
                            testPos = scores(split.testPos),
                            testNeg = scores(split.testNeg);
  ASSERT_TRUE(acc.validAuc && acc.validAp && acc.testAuc && acc.testAp);
  EXPECT_NEAR(*acc.validAuc, pairwiseAuc(validPos, validNeg), 1e-6);
  EXPECT_NEAR(*acc.testAuc, pairwiseAuc(testPos, testNeg), 1e-6);
  EXPECT_NEAR(*acc.validAp, averagePrecisionByDefinition(validPos, validNeg),
              1e-6);
  EXPECT_NEAR(*acc.testAp, averagePrecisionByDefinition(testPos, testNeg),
              1e-6);
  // The valid loss: the mean binary cross-entropy over the valid pairs.
  double validLoss = 0;
  for (double s : validPos)
    validLoss += std::log1p(std::exp(-s));
  for (double s : validNeg)
    validLoss += std::log1p(std::exp(s));
  validLoss /= double(validPos.size() + validNeg.size());
  ASSERT_TRUE(acc.validLoss);
  EXPECT_NEAR(*acc.validLoss, validLoss, 1e-5 * validLoss);
  // A link program has no node accuracies.
  EXPECT_FALSE(acc.train || acc.valid || acc.test);
}

TEST(LinkSchedule, DenseGraphHasNoNegativesToDraw) {
  // Every pair of 5 nodes is a link: all of them train, none is left to
  // be a negative.
  Dataset ds;
  ds.numNodes = 5;
  for (int64_t u = 0; u < 5; ++u)
    for (int64_t v = 0; v < 5; ++v)
      if (u != v) {
        ds.src.push_back(u);
        ds.dst.push_back(v);
      }
  TrainSettings::Links links;
  links.enabled = true;
  links.valid = 0;
  links.test = 0;
  const std::string message =
      dataErrorOf([&] { LinkSplitData(ds, links, 1, false, "dense"); });
  EXPECT_EQ(message.rfind("dense: negatives = uniform(1): node ", 0), 0u)
      << message;
  EXPECT_NE(message.find(" has a train link to every node (itself "
                         "excluded), so no negative of its link "),
            std::string::npos)
      << message;
}

TEST(KnowledgeGraph, OneVsAllStepThatCannotFitNamesTheBatchThatDoes) {
  // WN18RR's 40,943 entities: a step of 1024 triples holds 2048 x 40943
  // logits and their gradient, 0.67 GB.
  EXPECT_EQ(oneVsAllStepBytes(1024, 40943), 2 * 2048 * 40943 * 4LL);
  EXPECT_NO_THROW(refuseOneVsAllBeyondMemory(1024, 40943, 24LL << 30, ""));
  // All 86,835 train triples in one step: 56.9 GB, beyond 24 GiB.
  try {
    refuseOneVsAllBeyondMemory(86835, 40943, 24LL << 30, "dm.gnn: ");
    FAIL() << "no error";
  } catch (const UsageError &e) {
    const int64_t fits = (12LL << 30) / oneVsAllStepBytes(1, 40943);
    EXPECT_EQ(std::string(e.what()),
              "dm.gnn: negatives = all: a step of 86835 triples scores "
              "173670 queries against 40943 entities, logits and their "
              "gradient 56.9 GB, more than half of this machine's 25.8 GB: "
              "set link_batch (or --link-batch) to at most " +
                  std::to_string(fits));
    EXPECT_LE(oneVsAllStepBytes(fits, 40943), 12LL << 30);
    EXPECT_GT(oneVsAllStepBytes(fits + 1, 40943), 12LL << 30);
  }
}

namespace {

using RunResult = TrainerRun;

RunResult runTrainer(const CompiledProgram &program,
                     std::vector<std::string> args) {
  return runTrainerMain(program, std::move(args), "/opt/bin/gae");
}

std::vector<std::string> readLines(const std::string &path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

/// The number after `"key":` in a metrics line (nan if absent).
double field(const std::string &line, const std::string &key) {
  const size_t at = line.find("\"" + key + "\":");
  return at == std::string::npos
             ? std::nan("")
             : std::strtod(line.c_str() + at + key.size() + 3, nullptr);
}

} // namespace

TEST(LinkTraining, MetricsAndSummaryCarryAucAndAp) {
  TempDir tmp;
  const std::string metrics = tmp / "metrics.jsonl";
  RunResult r = runTrainer(linkProgram(), {"--metrics", metrics});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> lines = readLines(metrics);
  ASSERT_EQ(lines.size(), 12u);
  for (size_t i = 0; i < lines.size(); ++i) {
    const bool evaluated = (i + 1) % 4 == 0;
    for (const char *key : {"valid_auc", "valid_ap", "test_auc", "test_ap"}) {
      const double value = field(lines[i], key);
      if (evaluated)
        EXPECT_TRUE(value >= 0 && value <= 1) << key << " in " << lines[i];
      else
        EXPECT_TRUE(std::isnan(value)) << key << " in " << lines[i];
    }
    EXPECT_EQ(lines[i].find("_acc"), std::string::npos) << lines[i];
  }
  // Training fits its pairs: the loss falls.
  EXPECT_LT(field(lines.back(), "loss"), field(lines.front(), "loss"));
  // The epoch lines and the summary name the link metrics.
  EXPECT_NE(r.err.find("epoch 4/12 loss"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" valid_auc "), std::string::npos) << r.err;
  std::istringstream out(r.out);
  std::string final, best;
  for (std::string line; std::getline(out, line);) {
    if (line.rfind("final:", 0) == 0)
      final = line;
    if (line.rfind("best_valid:", 0) == 0)
      best = line;
  }
  EXPECT_NE(final.find("final: epoch 12 loss"), std::string::npos) << r.out;
  char auc[32];
  std::snprintf(auc, sizeof auc, "valid_auc %.4f ",
                field(lines.back(), "valid_auc"));
  EXPECT_NE(final.find(auc), std::string::npos) << final;
  EXPECT_NE(best.find("valid_auc"), std::string::npos) << r.out;
}

TEST(LinkTraining, ResumeDrawsTheSamePairs) {
  TempDir tmp;
  const std::string straight = tmp / "straight.jsonl",
                    resumed = tmp / "resumed.jsonl", ck = tmp / "ck";
  ASSERT_EQ(runTrainer(linkProgram(), {"--metrics", straight}).status, 0);
  RunResult first = runTrainer(linkProgram(), {"--epochs", "5", "--checkpoint",
                                               ck, "--metrics", resumed});
  ASSERT_EQ(first.status, 0) << first.err;
  RunResult rest =
      runTrainer(linkProgram(), {"--resume", ck, "--metrics", resumed});
  ASSERT_EQ(rest.status, 0) << rest.err;
  const std::vector<std::string> a = readLines(straight),
                                 b = readLines(resumed);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    for (const char *key : {"loss", "valid_auc", "test_ap"}) {
      if (!std::isnan(field(a[i], key))) {
        EXPECT_EQ(field(a[i], key), field(b[i], key)) << key << " " << i;
      }
    }
  }
}

TEST(LinkTraining, EvalOnlyReportsAucOfLoadedWeights) {
  TempDir tmp;
  const std::string weights = tmp / "w.safetensors";
  RunResult trained = runTrainer(linkProgram(), {"--save", weights});
  ASSERT_EQ(trained.status, 0) << trained.err;
  RunResult eval =
      runTrainer(linkProgram(), {"--load", weights, "--eval-only"});
  ASSERT_EQ(eval.status, 0) << eval.err;
  // The same weights score the same pairs: the final line's numbers.
  const size_t at = trained.out.find("valid_auc");
  ASSERT_NE(at, std::string::npos);
  const std::string metrics =
      trained.out.substr(at, trained.out.find('\n', at) - at);
  EXPECT_NE(eval.out.find("eval: " + metrics), std::string::npos)
      << eval.out << "\nvs\n"
      << trained.out;
}

TEST(LinkTraining, RefusesWhatItDoesNotSupportYet) {
  RunResult r = runTrainer(linkProgram(), {"--steps-per-epoch", "2"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--steps-per-epoch: only a sampled program"),
            std::string::npos)
      << r.err;
  TempDir tmp;
  r = runTrainer(linkProgram(), {"--predict", tmp / "p.npy"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("gae.gnn: --predict: a link-prediction program"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::ifstream(tmp / "p.npy").good());
  r = runTrainer(linkProgram(),
                 {"--offload", tmp.path(), "--memory-budget", "1G"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("gae.gnn: --offload: link prediction"),
            std::string::npos)
      << r.err;
  CompiledProgram hetero = linkProgram();
  hetero.settings.source = "ogb";
  r = runTrainer(hetero, {"--data", aifbDir()});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("link prediction on a heterogeneous dataset"),
            std::string::npos)
      << r.err;
}

TEST(LinkTraining, GradCheckScoresPairs) {
  // --gradcheck gives a link program pairs and two output columns: the
  // hand-written backward passes, one without the destinations' gradient
  // fails.
  RunResult r = runTrainer(linkProgram(), {"--gradcheck"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("gradcheck: PASS"), std::string::npos) << r.out;
  CompiledProgram wrong = linkProgram();
  wrong.trainStepF64 = linkTrainStep<double, false>;
  r = runTrainer(wrong, {"--gradcheck"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("gradcheck: FAIL"), std::string::npos) << r.out;
}
