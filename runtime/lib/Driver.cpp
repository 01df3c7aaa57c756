//===- Driver.cpp - trainMain: the generated trainer's main ---------------===//
//
// Full-graph training of a CompiledProgram: parse the command line, load
// (or generate) the dataset, initialize or load the parameters, then per
// epoch zero the gradients, run trainStep with ctx.step = the epoch index
// (0-based; it selects the dropout masks), update with the optimizer and,
// every evaluateEvery epochs and after the last, run forward and measure
// accuracy on the three splits. Outputs (metrics, checkpoint, predictions)
// are opened only after the data loaded, so a bad dataset leaves none.
//
// Exit status: 0 on success, 1 for an error in the data, files or training
// (and a failed --gradcheck), 2 for a bad command line.
//
//===----------------------------------------------------------------------===//

#include "Checkpoint.h"
#include "CommandLine.h"
#include "GradCheck.h"
#include "Metrics.h"
#include "ParameterStore.h"
#include "Predictions.h"
#include "Progress.h"
#include "gnnrt/Dataset.h"
#include "gnnrt/Error.h"
#include "gnnrt/Optimizer.h"
#include "gnnrt/ParamInit.h"
#include "gnnrt/Program.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

extern "C" void openblas_set_num_threads(int);

namespace gnnrt {

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

std::string formatAccuracy(const std::optional<double> &acc) {
  if (!acc)
    return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", *acc);
  return text;
}

void setThreads(int threads) {
  // The kernels split GEMMs over OpenMP threads themselves; OpenBLAS's own
  // pool would only compete with OpenMP's for the same cores.
  openblas_set_num_threads(1);
  if (threads <= 0)
    return;
#ifdef _OPENMP
  omp_set_num_threads(threads);
#endif
}

/// Scales each feature row to sum 1 (PyG's NormalizeFeatures; Kipf &
/// Welling's preprocessing). All-zero rows stay zero.
void normalizeRows(Dataset &ds) {
  const int64_t f = ds.numFeatures;
  for (int64_t v = 0; v < ds.numNodes; ++v) {
    float *row = ds.features.data() + v * f;
    double sum = 0;
    for (int64_t j = 0; j < f; ++j)
      sum += row[j];
    if (sum != 0)
      for (int64_t j = 0; j < f; ++j)
        row[j] = float(row[j] / sum);
  }
}

Dataset loadTrainingData(const DriverOptions &options,
                         const TrainSettings &settings) {
  LoadOptions load;
  load.addReverseEdges = settings.addReverseEdges;
  load.addSelfLoops = settings.addSelfLoops;
  load.dedupe = true;
  load.splitName = settings.split;
  load.useCache = true;
  Dataset ds;
  if (!options.dataDir.empty()) {
    ds = loadDataset(options.dataDir, load);
  } else {
    ds = generateDataset(settings.generator);
    load.numClasses = settings.generator.numClasses;
    finalizeDataset(ds, load);
  }
  if (settings.normalizeFeatures)
    normalizeRows(ds);
  return ds;
}

/// The dataset in the form the entry points read.
struct TrainingData {
  Dataset data;
  GraphStorage graph;
  std::vector<uint8_t> trainMask;
};

TrainingData prepare(Dataset ds) {
  if (ds.numClasses <= 0)
    throw DataError("the dataset has no labeled nodes to train on");
  TrainingData t;
  t.graph = GraphStorage::build(ds.numNodes, ds.numNodes, ds.src, ds.dst);
  t.trainMask.assign(size_t(ds.numNodes), 0);
  for (int64_t v : ds.trainIdx)
    t.trainMask[size_t(v)] = 1;
  t.data = std::move(ds);
  return t;
}

ExecContext<float> makeContext(const TrainingData &t, uint64_t seed,
                               Workspace<float> &workspace) {
  ExecContext<float> ctx;
  ctx.graph = t.graph.view();
  ctx.features = t.data.features.data();
  ctx.numFeatures = t.data.numFeatures;
  ctx.numClasses = t.data.numClasses;
  ctx.labels = t.data.labels.data();
  ctx.lossMask = t.trainMask.data();
  ctx.seed = seed;
  ctx.workspace = &workspace;
  return ctx;
}

/// Runs forward into `logits` and scores the three splits.
Accuracies evaluate(const CompiledProgram &program, ExecContext<float> &ctx,
                    const TrainingData &t, std::vector<float> &logits) {
  ctx.output = logits.data();
  program.forwardF32(ctx);
  const int64_t classes = t.data.numClasses;
  const int64_t *labels = t.data.labels.data();
  return {accuracy(logits.data(), classes, labels, t.data.trainIdx),
          accuracy(logits.data(), classes, labels, t.data.validIdx),
          accuracy(logits.data(), classes, labels, t.data.testIdx)};
}

/// What the epoch loop hands to the summary.
struct TrainingResult {
  EpochRecord last;        ///< always evaluated
  EpochRecord best;        ///< highest valid accuracy; eval unset if none
  double trainSeconds = 0; ///< summed over epochs, evaluation excluded
};

TrainingResult train(const CompiledProgram &program,
                     const DriverOptions &options,
                     ParameterStore<float> &params,
                     ExecContext<float> &trainCtx,
                     ExecContext<float> &forwardCtx, const TrainingData &data,
                     std::vector<float> &logits) {
  OptimizerConfig config = OptimizerConfig::fromSettings(program.settings);
  config.lr = options.lr;
  Optimizer optimizer(config, params.sizes());
  const std::vector<float *> values = params.valuePointers(),
                             grads = params.gradPointers();
  MetricsLog metrics(options.metricsFile);
  Progress progress(stderr, options.epochs, isatty(2) != 0);
  const int64_t every = std::max<int64_t>(1, program.settings.evaluateEvery);

  TrainingResult result;
  for (int64_t epoch = 1; epoch <= options.epochs; ++epoch) {
    auto start = std::chrono::steady_clock::now();
    params.zeroGrads();
    trainCtx.step = uint64_t(epoch - 1);
    EpochRecord record;
    record.epoch = epoch;
    record.loss = program.trainStepF32(trainCtx);
    optimizer.step(values, grads);
    record.seconds = secondsSince(start);
    result.trainSeconds += record.seconds;
    if (epoch % every == 0 || epoch == options.epochs) {
      record.eval = evaluate(program, forwardCtx, data, logits);
      const EpochRecord &best = result.best;
      if (record.eval->valid &&
          (!best.eval || *record.eval->valid > *best.eval->valid))
        result.best = record;
    }
    metrics.append(record);
    progress.report(record);
    result.last = record;
    if (!std::isfinite(record.loss))
      throw std::runtime_error("the loss is " + std::to_string(record.loss) +
                               " at epoch " + std::to_string(epoch) +
                               "; training diverged (try a smaller --lr)");
  }
  return result;
}

void printSummary(const TrainingResult &result) {
  const EpochRecord &last = result.last, &best = result.best;
  std::printf("final: epoch %lld loss %.4f train_acc %s valid_acc %s "
              "test_acc %s\n",
              (long long)last.epoch, last.loss,
              formatAccuracy(last.eval->train).c_str(),
              formatAccuracy(last.eval->valid).c_str(),
              formatAccuracy(last.eval->test).c_str());
  if (best.eval)
    std::printf("best_valid: epoch %lld valid_acc %s test_acc %s\n",
                (long long)best.epoch, formatAccuracy(best.eval->valid).c_str(),
                formatAccuracy(best.eval->test).c_str());
}

/// The memory plan: planned Workspace bytes next to the one-buffer-per-value
/// figure the generated code reports.
void printStats(const ParameterStore<float> &params,
                const Workspace<float> &trainWorkspace,
                const ExecContext<float> &trainCtx,
                const Workspace<float> &forwardWorkspace,
                const ExecContext<float> &forwardCtx,
                const TrainingResult &result) {
  std::printf("stats: parameters %lld in %zu tensors\n",
              (long long)params.totalElements(), params.size());
  std::printf("stats: trainStep workspace %lld bytes (unplanned %lld)\n",
              (long long)trainWorkspace.bytes(),
              (long long)trainCtx.unplannedBytes);
  std::printf("stats: forward workspace %lld bytes (unplanned %lld)\n",
              (long long)forwardWorkspace.bytes(),
              (long long)forwardCtx.unplannedBytes);
  std::printf("stats: mean epoch %.6f s over %lld epochs\n",
              result.trainSeconds / double(result.last.epoch),
              (long long)result.last.epoch);
}

int run(const CompiledProgram &program, const DriverOptions &options) {
  if (!program.params || !program.forwardF32 || !program.trainStepF32)
    throw std::runtime_error("the CompiledProgram lacks its float32 entry "
                             "points or parameter list");
  setThreads(options.threads);
  if (options.gradcheck) {
    GradCheckOptions check;
    check.nodes = options.gradcheckNodes;
    check.seed = options.seed;
    return runGradCheck(program, check, stdout) ? 0 : 1;
  }

  const TrainingData data =
      prepare(loadTrainingData(options, program.settings));
  const int64_t nodes = data.data.numNodes, classes = data.data.numClasses;
  if (program.outputColumns) {
    const int64_t columns =
        program.outputColumns({data.data.numFeatures, classes});
    if (columns != classes)
      throw DataError("model " + program.model + " outputs " +
                      std::to_string(columns) +
                      " columns per node, but the dataset has " +
                      std::to_string(classes) +
                      " classes: the last layer's width must be the class "
                      "count");
  }
  ParameterStore<float> params(
      program.params({data.data.numFeatures, classes}));
  if (!options.loadFile.empty()) {
    loadCheckpoint(options.loadFile, program.model, params);
  } else {
    for (size_t i = 0; i < params.size(); ++i)
      initParameter(params.info[i], options.seed, paramInitStream(int64_t(i)),
                    params.values[i].data());
  }

  // One workspace per entry point: their memory plans are separate.
  Workspace<float> trainWorkspace, forwardWorkspace;
  ExecContext<float> trainCtx = makeContext(data, options.seed, trainWorkspace);
  ExecContext<float> forwardCtx =
      makeContext(data, options.seed, forwardWorkspace);
  params.bind(trainCtx);
  params.bind(forwardCtx);
  std::vector<float> logits(size_t(nodes * classes));

  if (options.evalOnly) {
    Accuracies acc = evaluate(program, forwardCtx, data, logits);
    std::printf("eval: train_acc %s valid_acc %s test_acc %s\n",
                formatAccuracy(acc.train).c_str(),
                formatAccuracy(acc.valid).c_str(),
                formatAccuracy(acc.test).c_str());
    if (!options.predictFile.empty())
      writePredictions(options.predictFile, logits.data(), nodes, classes);
    return 0;
  }

  TrainingResult result =
      train(program, options, params, trainCtx, forwardCtx, data, logits);
  // `logits` holds the last epoch's forward, after its update.
  if (!options.saveFile.empty())
    saveCheckpoint(options.saveFile, program.model, params);
  if (!options.predictFile.empty())
    writePredictions(options.predictFile, logits.data(), nodes, classes);
  printSummary(result);
  if (options.stats)
    printStats(params, trainWorkspace, trainCtx, forwardWorkspace, forwardCtx,
               result);
  return 0;
}

} // namespace

int trainMain(int argc, char **argv, const CompiledProgram &program) {
  const std::string name = programName(argc > 0 ? argv[0] : nullptr);
  int status;
  try {
    DriverOptions options = parseCommandLine(
        std::vector<std::string>(argv + std::min(argc, 1), argv + argc),
        program.settings);
    if (options.help) {
      std::fputs(usageText(name, program).c_str(), stdout);
      status = 0;
    } else {
      status = run(program, options);
    }
  } catch (const UsageError &e) {
    std::fprintf(stderr, "%s: %s\n(run '%s --help' for the options)\n",
                 name.c_str(), e.what(), name.c_str());
    status = 2;
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "%s: error: out of memory\n", name.c_str());
    status = 1;
  } catch (const std::exception &e) {
    // DataError and the rest: what() is the complete message.
    std::fprintf(stderr, "%s: error: %s\n", name.c_str(), e.what());
    status = 1;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  return status;
}

} // namespace gnnrt
