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
#include "SampledTraining.h"
#include "TrainingData.h"
#include "gnnrt/data/Dataset.h"
#include "gnnrt/comm/Communicator.h"
#include "gnnrt/partition/PartitionDirectory.h"
#include "gnnrt/partition/Partitioner.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/train/Optimizer.h"
#include "gnnrt/train/ParamInit.h"
#include "gnnrt/train/Program.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <sys/resource.h>
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

/// The process's peak resident set (getrusage: KiB on Linux).
long peakRssKiB() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
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
    normalizeRows(ds.features, ds.numFeatures);
  return ds;
}

/// A distributed run's data: this rank's part of a partition directory, or,
/// for a dataset directory (small graphs), a start-up partitioning that
/// every rank computes identically from the whole graph.
TrainingData loadPartitionedData(const CompiledProgram &program,
                                 const DriverOptions &options,
                                 bool partitionDirectory, Communicator &comm) {
  const TrainSettings &settings = program.settings;
  if (partitionDirectory)
    return preparePartition(
        readPartition(options.dataDir, comm.rank(), comm.size()), comm,
        settings.normalizeFeatures, program.needsEdgeIds);
  Dataset ds = loadTrainingData(options, settings);
  PartitionOptions partition;
  partition.numParts = comm.size();
  partition.method =
      partitionMethodFromName(settings.partition).value_or(PartitionMethod::Metis);
  if (!settings.partitionBalance.empty()) {
    partition.balance.clear();
    for (const std::string &name : settings.partitionBalance)
      if (auto c = balanceConstraintFromName(name))
        partition.balance.push_back(*c);
  }
  // Sampled training's fanouts drive frequency partitioning and the cache.
  partition.fanouts = settings.fanouts;
  partition.batchSize = std::max<int64_t>(1, settings.batchSize);
  partition.cacheRatio = settings.cacheRatio;
  PartitionPlan plan =
      buildPartitionPlan(ds, partitionNodes(ds, partition), comm.size(),
                         EdgeAssign::Dst);
  if (partition.cacheRatio > 0)
    addFeatureCache(plan, ds, partition);
  return preparePartition(extractPartition(ds, plan, comm.rank()), comm,
                          /*normalizeFeatures=*/false, program.needsEdgeIds);
}

/// Sums the gradients of all ranks, in one all-reduce.
void allReduceGradients(Communicator &comm, const std::vector<float *> &grads,
                        const std::vector<int64_t> &sizes,
                        std::vector<float> &buffer) {
  if (comm.size() == 1)
    return;
  int64_t total = 0;
  for (int64_t n : sizes)
    total += n;
  buffer.resize(size_t(total));
  int64_t at = 0;
  for (size_t i = 0; i < grads.size(); ++i) {
    std::copy(grads[i], grads[i] + sizes[i], buffer.begin() + at);
    at += sizes[i];
  }
  comm.allReduceSum(buffer.data(), total);
  at = 0;
  for (size_t i = 0; i < grads.size(); ++i) {
    std::copy(buffer.begin() + at, buffer.begin() + at + sizes[i], grads[i]);
    at += sizes[i];
  }
}

/// Runs forward into `logits` and scores the three splits.
Accuracies evaluate(const CompiledProgram &program, ExecContext<float> &ctx,
                    const TrainingData &t, std::vector<float> &logits,
                    Communicator &comm) {
  ctx.output = logits.data();
  program.forwardF32(ctx);
  const int64_t classes = t.data.numClasses;
  const int64_t *labels = t.data.labels.data();
  AccuracyCounts counts[3] = {
      accuracyCounts(logits.data(), classes, labels, t.data.trainIdx),
      accuracyCounts(logits.data(), classes, labels, t.data.validIdx),
      accuracyCounts(logits.data(), classes, labels, t.data.testIdx)};
  int64_t sums[6];
  for (int i = 0; i < 3; ++i) {
    sums[2 * i] = counts[i].correct;
    sums[2 * i + 1] = counts[i].labeled;
  }
  comm.allReduceSum(sums, 6);
  for (int i = 0; i < 3; ++i)
    counts[i] = {sums[2 * i], sums[2 * i + 1]};
  return {counts[0].fraction(), counts[1].fraction(), counts[2].fraction()};
}

/// What the epoch loop hands to the summary.
struct TrainingResult {
  EpochRecord last;        ///< always evaluated
  EpochRecord best;        ///< highest valid accuracy; eval unset if none
  double trainSeconds = 0; ///< summed over epochs, evaluation excluded
  double allReduceSeconds = 0;
  int64_t allReduceBytes = 0; ///< gradients and loss, per rank and epoch
};

TrainingResult train(const CompiledProgram &program,
                     const DriverOptions &options,
                     ParameterStore<float> &params,
                     ExecContext<float> &trainCtx,
                     ExecContext<float> &forwardCtx, const TrainingData &data,
                     std::vector<float> &logits, Communicator &comm,
                     SampledTraining *sampled) {
  OptimizerConfig config = OptimizerConfig::fromSettings(program.settings);
  config.lr = options.lr;
  Optimizer optimizer(config, params.sizes());
  const std::vector<float *> values = params.valuePointers(),
                             grads = params.gradPointers();
  const std::vector<int64_t> sizes = params.sizes();
  std::vector<float> reduceBuffer;
  // Rank 0 reports; the others train silently.
  const bool reporting = comm.rank() == 0;
  MetricsLog metrics(reporting ? options.metricsFile : std::string());
  std::optional<Progress> progress;
  if (reporting)
    progress.emplace(stderr, options.epochs, isatty(2) != 0);
  const int64_t every = std::max<int64_t>(1, program.settings.evaluateEvery);

  TrainingResult result;
  // One optimizer step on `ctx`'s gradients summed over ranks (null: this
  // rank has no rows this step and only joins the all-reduce).
  auto step = [&](ExecContext<float> *ctx) {
    params.zeroGrads();
    double loss = ctx ? program.trainStepF32(*ctx) : 0.0;
    if (comm.size() > 1) {
      // Every rank's loss is its share of the global mean; the gradients
      // add up the same way. Then all ranks take the same step.
      const auto reduceStart = std::chrono::steady_clock::now();
      allReduceGradients(comm, grads, sizes, reduceBuffer);
      comm.allReduceSum(&loss, 1);
      result.allReduceSeconds += secondsSince(reduceStart);
      result.allReduceBytes +=
          int64_t(reduceBuffer.size() * sizeof(float) + sizeof(double));
    }
    optimizer.step(values, grads);
    return loss;
  };
  for (int64_t epoch = 1; epoch <= options.epochs; ++epoch) {
    auto start = std::chrono::steady_clock::now();
    EpochRecord record;
    record.epoch = epoch;
    if (sampled) {
      record.loss = sampled->trainEpoch(epoch, trainCtx, step);
    } else {
      trainCtx.step = uint64_t(epoch - 1);
      record.loss = step(&trainCtx);
    }
    const TrainSettings &settings = program.settings;
    const int64_t saveEvery = settings.checkpointEvery;
    if (reporting && !settings.checkpointFile.empty() &&
        (epoch == options.epochs || (saveEvery > 0 && epoch % saveEvery == 0)))
      saveCheckpoint(settings.checkpointFile, program.model, params);
    record.seconds = secondsSince(start);
    result.trainSeconds += record.seconds;
    if (epoch % every == 0 || epoch == options.epochs) {
      // The train step's buffers are not needed while forward runs, nor
      // forward's after: the peak is the larger plan, not their sum.
      trainCtx.workspace->release();
      record.eval = sampled ? sampled->evaluate(forwardCtx)
                            : evaluate(program, forwardCtx, data, logits, comm);
      forwardCtx.workspace->release();
      const EpochRecord &best = result.best;
      if (record.eval->valid &&
          (!best.eval || *record.eval->valid > *best.eval->valid))
        result.best = record;
    }
    metrics.append(record);
    if (progress)
      progress->report(record);
    result.last = record;
    if (!std::isfinite(record.loss))
      throw std::runtime_error("the loss is " + std::to_string(record.loss) +
                               " at epoch " + std::to_string(epoch) +
                               "; training diverged (try a smaller --lr)");
  }
  return result;
}

/// --predict: the rows of this process's nodes, or, on ranks of a
/// partitioned graph, every rank's rows gathered to rank 0.
void writeAllPredictions(const std::string &path,
                         const std::vector<float> &logits,
                         const TrainingData &data, Communicator &comm) {
  const int64_t rows = data.data.numNodes, classes = data.data.numClasses;
  if (data.nodeIds.empty())
    writePredictions(path, logits.data(), rows, classes);
  else
    writeGatheredPredictions(path, logits.data(), rows, classes,
                             data.nodeIds.data(), data.numGlobalNodes, comm);
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

/// The communication part of --stats, per rank.
void printCommStats(const Communicator &comm, const TrainingData &data,
                    const TrainingResult &result,
                    const SampledTraining *sampled) {
  const double epochs = double(std::max<int64_t>(1, result.last.epoch));
  if (sampled)
    sampled->printStats(stdout, result.last.epoch);
  if (comm.size() == 1)
    return;
  if (sampled) {
    // Sampled steps move no halo: their traffic is the sampling's.
    std::printf("stats: rank %d all_reduce %lld bytes/epoch\n", comm.rank(),
                (long long)(result.allReduceBytes / epochs));
    std::printf("stats: rank %d seconds compute %.6f communication %.6f\n",
                comm.rank(), result.trainSeconds - result.allReduceSeconds,
                result.allReduceSeconds);
    std::printf("stats: rank %d peak RSS %lld KiB\n", comm.rank(),
                (long long)peakRssKiB());
    return;
  }
  const CommTraffic &fwd = data.halo->forwardTraffic();
  const CommTraffic &bwd = data.halo->backwardTraffic();
  const double commSeconds = fwd.seconds + bwd.seconds + result.allReduceSeconds;
  std::printf("stats: rank %d halo forward sent %lld received %lld bytes/epoch\n",
              comm.rank(), (long long)(fwd.sentBytes / epochs),
              (long long)(fwd.receivedBytes / epochs));
  std::printf("stats: rank %d halo backward sent %lld received %lld "
              "bytes/epoch\n",
              comm.rank(), (long long)(bwd.sentBytes / epochs),
              (long long)(bwd.receivedBytes / epochs));
  std::printf("stats: rank %d all_reduce %lld bytes/epoch\n", comm.rank(),
              (long long)(result.allReduceBytes / epochs));
  std::printf("stats: rank %d seconds compute %.6f communication %.6f\n",
              comm.rank(), result.trainSeconds - commSeconds, commSeconds);
  std::printf("stats: rank %d peak RSS %lld KiB\n", comm.rank(),
              (long long)peakRssKiB());
}

int run(const CompiledProgram &program, const DriverOptions &options,
        Communicator &comm) {
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
  // A gnn-partition output directory holds a manifest.
  const bool partitionDirectory =
      !options.dataDir.empty() &&
      std::ifstream(options.dataDir + "/manifest.json").good();
  const bool distributed = comm.size() > 1 || partitionDirectory;

  const TrainingData data =
      distributed ? loadPartitionedData(program, options, partitionDirectory, comm)
                  : prepareWholeGraph(loadTrainingData(options, program.settings));
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
  // Every rank starts from rank 0's parameters.
  for (auto &values : params.values)
    comm.broadcast(values.data(), int64_t(values.size()), 0);

  // One workspace per entry point: their memory plans are separate.
  Workspace<float> trainWorkspace, forwardWorkspace;
  ExecContext<float> trainCtx = makeContext(data, options.seed, trainWorkspace);
  ExecContext<float> forwardCtx =
      makeContext(data, options.seed, forwardWorkspace);
  params.bind(trainCtx);
  params.bind(forwardCtx);
  std::vector<float> logits(size_t(nodes * classes));
  const bool reporting = comm.rank() == 0;

  // Sampled programs train on batches and evaluate on the blocks of the
  // evaluated nodes' full neighbourhoods.
  std::unique_ptr<SampledTraining> sampled;
  if (program.numBlocks > 0)
    sampled = std::make_unique<SampledTraining>(program, options, data, comm);

  if (options.evalOnly) {
    Accuracies acc = sampled ? sampled->evaluate(forwardCtx)
                             : evaluate(program, forwardCtx, data, logits, comm);
    if (reporting)
      std::printf("eval: train_acc %s valid_acc %s test_acc %s\n",
                  formatAccuracy(acc.train).c_str(),
                  formatAccuracy(acc.valid).c_str(),
                  formatAccuracy(acc.test).c_str());
    if (!options.predictFile.empty()) {
      if (sampled)
        sampled->predict(forwardCtx, logits);
      writeAllPredictions(options.predictFile, logits, data, comm);
    }
    return 0;
  }

  if (data.halo)
    data.halo->resetTraffic();
  TrainingResult result = train(program, options, params, trainCtx, forwardCtx,
                                data, logits, comm, sampled.get());
  // `logits` holds the last epoch's forward, after its update (sampled
  // training evaluates only the split nodes: predict them all).
  if (reporting && !options.saveFile.empty())
    saveCheckpoint(options.saveFile, program.model, params);
  if (!options.predictFile.empty()) {
    if (sampled)
      sampled->predict(forwardCtx, logits);
    writeAllPredictions(options.predictFile, logits, data, comm);
  }
  if (reporting)
    printSummary(result);
  if (options.stats) {
    if (reporting)
      printStats(params, trainWorkspace, trainCtx, forwardWorkspace,
                 forwardCtx, result);
    printCommStats(comm, data, result, sampled.get());
  }
  return 0;
}

} // namespace

int trainMain(int argc, char **argv, const CompiledProgram &program) {
  const std::string name = programName(argc > 0 ? argv[0] : nullptr);
  std::unique_ptr<Communicator> comm;
  // Under several ranks every message names the rank it comes from.
  auto where = [&]() {
    return comm && comm->size() > 1
               ? name + ": rank " + std::to_string(comm->rank())
               : name;
  };
  int status;
  try {
    comm = launchedUnderMpi() ? makeMpiCommunicator()
                              : std::make_unique<SerialCommunicator>();
    DriverOptions options = parseCommandLine(
        std::vector<std::string>(argv + std::min(argc, 1), argv + argc),
        program.settings);
    if (options.help) {
      if (comm->rank() == 0)
        std::fputs(usageText(name, program).c_str(), stdout);
      status = 0;
    } else {
      status = run(program, options, *comm);
    }
  } catch (const UsageError &e) {
    std::fprintf(stderr, "%s: %s\n(run '%s --help' for the options)\n",
                 where().c_str(), e.what(), name.c_str());
    status = 2;
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "%s: error: out of memory\n", where().c_str());
    status = 1;
  } catch (const std::exception &e) {
    // DataError, CommError and the rest: what() is the complete message.
    std::fprintf(stderr, "%s: error: %s\n", where().c_str(), e.what());
    status = 1;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  // One rank's failure ends all of them: none waits in a collective.
  if (status != 0 && comm)
    abortAllRanks(*comm, status);
  return status;
}

} // namespace gnnrt
