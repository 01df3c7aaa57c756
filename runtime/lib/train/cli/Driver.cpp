//===- Driver.cpp - trainMain: the generated trainer's main ---------------===//
//
// The generated trainer's main, as a table of contents: parse the command
// line, pick the Schedule (the way of training: full graph or sampled, in
// one process or distributed) once from the program and the launch, let it
// load this process's data, initialize or load the parameters, then either
// evaluate them (--eval-only) or run the epoch loop, and write the outputs:
// the trained weights, the predictions, the summary and --stats. Data with
// cross-validation folds (graph collections) repeats the part from the
// parameters on per fold, each from fresh parameters, and ends with the
// folds' mean test accuracy (graphs/CrossValidation.h). Outputs
// (metrics, checkpoint, predictions) are checked before the data loads and
// opened only after it loaded, so a bad dataset leaves none.
//
// Exit status: 0 on success, 1 for an error in the data, files or training
// (and a failed --gradcheck), 2 for a bad command line.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "CommandLine.h"
#include "GradCheck.h"
#include "batch/SamplerRanks.h"
#include "batch/TrainingData.h"
#include "gnnrt/comm/Communicator.h"
#include "gnnrt/kernels/GatherStorage.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/train/ParamInit.h"
#include "gnnrt/train/Program.h"
#include "graphs/CrossValidation.h"
#include "offload/FileArena.h"
#include "output/Checkpoint.h"
#include "output/Metrics.h"
#include "output/OutputPaths.h"
#include "params/ParameterStore.h"
#include "schedule/Schedule.h"
#include "schedule/TrainLoop.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#ifdef _OPENMP
#include <omp.h>
#endif

extern "C" void openblas_set_num_threads(int);

namespace gnnrt {

namespace {

std::string formatAccuracy(const std::optional<double> &acc) {
  if (!acc)
    return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", *acc);
  return text;
}

/// The evaluation's fields of the eval: and final: lines: the accuracies,
/// or a link program's AUC and AP of the valid and test pairs.
std::string evaluationFields(const Accuracies &acc) {
  if (acc.isRanking())
    return "valid_mrr " + formatAccuracy(acc.validMrr) + " test_mrr " +
           formatAccuracy(acc.testMrr) + " test_hits@1 " +
           formatAccuracy(acc.testHits1) + " test_hits@3 " +
           formatAccuracy(acc.testHits3) + " test_hits@10 " +
           formatAccuracy(acc.testHits10);
  if (acc.isLink())
    return "valid_auc " + formatAccuracy(acc.validAuc) + " valid_ap " +
           formatAccuracy(acc.validAp) + " test_auc " +
           formatAccuracy(acc.testAuc) + " test_ap " +
           formatAccuracy(acc.testAp);
  return "train_acc " + formatAccuracy(acc.train) + " valid_acc " +
         formatAccuracy(acc.valid) + " test_acc " + formatAccuracy(acc.test);
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

/// --resume's or --load's weights, or the program's initializers; then every
/// rank takes rank 0's (collective). Returns the --load file's contents when
/// the model has learned input rows, which bind() makes later.
std::optional<SafetensorsContents>
loadOrInitParameters(const CompiledProgram &program,
                     const DriverOptions &options,
                     ParameterStore<float> &params, Communicator &comm,
                     const ResumableCheckpoint *resume) {
  const bool learnedInputs = program.settings.embedDim > 0;
  std::optional<SafetensorsContents> loaded;
  if (resume) {
    resume->restoreParameters(params, learnedInputs);
  } else if (!options.loadFile.empty()) {
    loaded = loadCheckpoint(options.loadFile, program.model, params,
                            learnedInputs);
  } else {
    for (size_t i = 0; i < params.size(); ++i)
      initParameter(params.info[i], program.settings.seed,
                    paramInitStream(int64_t(i)), params.values[i].data());
  }
  for (auto &values : params.values)
    comm.broadcast(values.data(), int64_t(values.size()), 0);
  if (!learnedInputs)
    loaded.reset();
  return loaded;
}

/// The learned input rows of a checkpoint, once bind() made them: each rank
/// takes its own rows from the file it read.
void restoreLearnedRows(const DriverOptions &options, Schedule &schedule,
                        const std::optional<SafetensorsContents> &loaded,
                        const ResumableCheckpoint *resume) {
  if (resume)
    schedule.restoreLearnedInputs(
        [&](LearnedInputs &learned) { resume->restoreLearnedInputs(learned); });
  else if (loaded)
    schedule.restoreLearnedInputs([&](LearnedInputs &learned) {
      restoreLearnedInputs(options.loadFile, *loaded, learned,
                           /*moments=*/false);
    });
}

/// --eval-only: the accuracies of the loaded weights, and their predictions.
void evaluateOnly(const DriverOptions &options, Schedule &schedule,
                  Communicator &comm) {
  const Accuracies acc = schedule.evaluate();
  if (comm.rank() == 0)
    std::printf("eval: %s\n", evaluationFields(acc).c_str());
  if (!options.predictFile.empty())
    schedule.writePredictions(options.predictFile, comm);
  if (!options.embeddingsFile.empty())
    schedule.writeEmbeddings(options.embeddingsFile);
}

/// `restored`: early stopping's best weights, evaluated again after
/// training; the final line reports them.
void printSummary(const TrainingResult &result,
                  const std::optional<Accuracies> &restored) {
  const EpochRecord &last = result.last, &best = result.best;
  if (restored)
    std::printf("early_stopping: %s after epoch %lld; restored the weights "
                "of epoch %lld\n",
                result.stoppedEarly ? "stopped" : "trained every epoch",
                (long long)last.epoch, (long long)best.epoch);
  const EpochRecord &reported = restored ? best : last;
  const Accuracies &acc = restored ? *restored : *last.eval;
  std::printf("final: epoch %lld loss %.4f %s\n", (long long)reported.epoch,
              reported.loss, evaluationFields(acc).c_str());
  if (best.eval && best.eval->isRanking())
    std::printf("best_valid: epoch %lld valid_mrr %s test_mrr %s "
                "test_hits@10 %s\n",
                (long long)best.epoch,
                formatAccuracy(best.eval->validMrr).c_str(),
                formatAccuracy(best.eval->testMrr).c_str(),
                formatAccuracy(best.eval->testHits10).c_str());
  else if (best.eval && best.eval->isLink())
    std::printf("best_valid: epoch %lld valid_auc %s test_auc %s test_ap %s\n",
                (long long)best.epoch,
                formatAccuracy(best.eval->validAuc).c_str(),
                formatAccuracy(best.eval->testAuc).c_str(),
                formatAccuracy(best.eval->testAp).c_str());
  else if (best.eval)
    std::printf("best_valid: epoch %lld valid_acc %s test_acc %s\n",
                (long long)best.epoch, formatAccuracy(best.eval->valid).c_str(),
                formatAccuracy(best.eval->test).c_str());
}

/// What one training of a model (or one fold's) works on.
struct TrainingJob {
  const CompiledProgram &program;
  const DriverOptions &options;
  Schedule &schedule;
  ParameterStore<float> &params;
  Communicator &comm;
  const ResumableCheckpoint *resume;
};

/// Trains one model on the schedule's data (under cross-validation: on
/// fold `fold`, which the schedule has selected) from the initial or
/// loaded parameters, or with --eval-only evaluates those, and writes its
/// outputs: --save, --predict and, without folds, the summary. Returns
/// the training's result; none for --eval-only.
std::optional<TrainingResult> trainOrEvaluate(const TrainingJob &job,
                                              MetricsLog *metrics,
                                              std::optional<int64_t> fold) {
  const DriverOptions &options = job.options;
  Schedule &schedule = job.schedule;
  Communicator &comm = job.comm;
  // Every fold starts from the same initial parameters (and a fresh
  // optimizer, trainEpochs' own), so that --fold K trains fold K alike.
  const std::optional<SafetensorsContents> loaded =
      loadOrInitParameters(job.program, options, job.params, comm, job.resume);
  schedule.bind(job.params);
  restoreLearnedRows(options, schedule, loaded, job.resume);

  if (options.evalOnly) {
    evaluateOnly(options, schedule, comm);
    return std::nullopt;
  }
  const TrainingResult result =
      trainEpochs(job.program, options, schedule, job.params, comm, *metrics,
                  job.resume, fold);
  // The last epoch was evaluated after its update: its parameters are the
  // ones saved and predicted with; with early stopping, the best epoch's,
  // evaluated again here for the summary.
  std::optional<Accuracies> restored;
  if (result.restoredBest && !fold)
    restored = schedule.evaluate();
  const bool reporting = comm.rank() == 0;
  if (!options.saveFile.empty()) {
    // The learned rows are gathered from every rank; rank 0 writes.
    const std::optional<LearnedInputsSnapshot> inputs =
        schedule.learnedInputsSnapshot(/*moments=*/false);
    if (reporting)
      saveCheckpoint(options.saveFile, job.program.model, job.params,
                     inputs ? &*inputs : nullptr);
  }
  if (!options.predictFile.empty())
    schedule.writePredictions(options.predictFile, comm);
  if (!options.embeddingsFile.empty())
    schedule.writeEmbeddings(options.embeddingsFile);
  if (reporting && !fold)
    printSummary(result, restored);
  return result;
}

/// `program` carries the effective settings (a copy: --resume sets the
/// seed).
int run(CompiledProgram program, const DriverOptions &options,
        Communicator &hostComm, const SamplerRanks *samplerRanks = nullptr) {
  if (!program.params || !program.forwardF32 || !program.trainStepF32)
    throw std::runtime_error("the CompiledProgram lacks its float32 entry "
                             "points or parameter list");
  setThreads(options.threads);
  // A device trainer's ranks talk between their devices (NCCL) over a
  // communicator bootstrapped from the MPI one.
  std::unique_ptr<Communicator> deviceComm;
  if (program.useDevice)
    deviceComm = program.useDevice(options.device, hostComm);
  else if (options.device >= 0)
    throw UsageError("--device: this trainer runs on the CPU; build it with "
                     "gnnc --target=cuda to train on a CUDA device");
  Communicator &comm = deviceComm ? *deviceComm : hostComm;
  if (options.gradcheck) {
    GradCheckOptions check;
    check.nodes = options.gradcheckNodes;
    check.seed = program.settings.seed;
    return runGradCheck(program, check, stdout) ? 0 : 1;
  }

  // Mixed precision: every float gather of the run reads bf16 rows and
  // every float GEMM multiplies bf16 operands, on the CPU and on a device.
  const bool bf16 = program.settings.precision == "bf16";
  kernels::setGatherStorage(bf16 ? kernels::GatherStorage::BFloat16
                                 : kernels::GatherStorage::Float32);

  // Before the data loads: a typo in an output's directory fails now.
  checkOutputPaths(options, program.settings);
  // A resumed run continues the checkpoint's: same seed (dropout masks,
  // shuffles and samples depend on it), next epoch.
  std::optional<ResumableCheckpoint> resume;
  if (!options.resumeFile.empty()) {
    resume.emplace(options.resumeFile, program.model);
    program.settings.seed = resume->point().seed;
    if (resume->point().epoch >= program.settings.epochs)
      throw UsageError("the checkpoint " + options.resumeFile +
                       " is at epoch " + std::to_string(resume->point().epoch) +
                       "; --epochs " + std::to_string(program.settings.epochs) +
                       " leaves nothing to train (give the total epoch count)");
  }
  const std::unique_ptr<Schedule> schedule =
      makeSchedule(program, options, comm, samplerRanks);
  schedule->prepare();
  // Cross-validated data (graph collections) trains a model per fold.
  const std::vector<std::string> foldNames = schedule->folds();
  const std::vector<int64_t> folds = foldsToRun(foldNames, options);
  if (resume && !folds.empty())
    checkResumedFold(*resume, options.resumeFile, folds.front());
  const TrainingData &data = schedule->data();
  ParameterStore<float> params(
      program.params({data.data.numFeatures, data.data.numClasses,
                      int64_t(data.data.relations.size()),
                      data.numGlobalNodes}));
  // A weight sized by the features of a dataset without any is empty: say
  // why rather than train a model that ignores its input.
  for (const ParamInfo &info : params.info)
    for (int64_t d : info.shape)
      if (d <= 0)
        throw DataError(
            "parameter " + info.name + " of model " + program.model +
            " has an empty dimension" +
            (data.data.numFeatures == 0
                 ? ": the dataset has no node features (give featureless "
                   "node types learned inputs with embed = D in the "
                   "dataset's ogb(...), or use R-GCN's one-hot input layer, "
                   "RGCNInputConv)"
                 : ""));
  const bool reporting = comm.rank() == 0;
  // Opened once the data loaded; the folds of a cross-validation share it.
  std::optional<MetricsLog> metrics;
  if (!options.evalOnly)
    metrics.emplace(reporting ? options.metricsFile : std::string(),
                    resume ? std::optional<int64_t>(resume->point().epoch)
                           : std::nullopt);
  const ResumableCheckpoint *resumed = resume ? &*resume : nullptr;
  const TrainingJob job{program, options, *schedule, params, comm, resumed};
  if (folds.empty()) {
    const std::optional<TrainingResult> result =
        trainOrEvaluate(job, metrics ? &*metrics : nullptr, std::nullopt);
    if (result && options.stats)
      schedule->printStats(*result);
    return 0;
  }
  std::vector<FoldResult> results;
  std::optional<TrainingResult> last;
  for (int64_t fold : folds) {
    schedule->selectFold(size_t(fold));
    last = trainOrEvaluate(job, metrics ? &*metrics : nullptr, fold);
    if (!last)
      continue; // --eval-only printed its line
    results.push_back(foldResult(fold, foldNames[size_t(fold)], *last));
    if (reporting) {
      std::printf("%s\n", foldLine(results.back()).c_str());
      metrics->appendLine(foldJson(results.back()));
    }
  }
  if (!results.empty() && reporting) {
    const FoldSummary summary = summarizeFolds(results);
    std::printf("%s\n", summaryLine(summary).c_str());
    metrics->appendLine(summaryJson(summary));
  }
  if (last && options.stats)
    schedule->printStats(*last);
  return 0;
}

/// --samplers S: the last S ranks serve batches until trainer 0 stops
/// them; the others train on their own communicator.
int runWithSamplerRanks(const CompiledProgram &program,
                        const DriverOptions &options, Communicator &world) {
  const SamplerRanks ranks = SamplerRanks::of(program, options, world);
  const bool sampler = ranks.isSampler(world.rank());
  const std::unique_ptr<Communicator> group =
      world.split(sampler ? 1 : 0, world.rank());
  if (sampler) {
    serveBatches(program, options, ranks, *group);
    return 0;
  }
  const int status = run(program, options, *group, &ranks);
  if (group->rank() == 0)
    stopSamplerRanks(ranks);
  return status;
}

} // namespace

namespace {

/// The exit status of `body`, or of the error it threw, printed with
/// `where()` (the program, and the rank under several): 2 for a bad
/// command line, 1 for the others.
int exitStatusOf(const std::string &name,
                 const std::function<std::string()> &where,
                 const std::function<int()> &body) {
  try {
    return body();
  } catch (const UsageError &e) {
    std::fprintf(stderr, "%s: %s\n(run '%s --help' for the options)\n",
                 where().c_str(), e.what(), name.c_str());
    return 2;
  } catch (const ArenaExhausted &e) {
    // --offload's disk or address range, with what to change.
    std::fprintf(stderr, "%s: error: %s\n", where().c_str(), e.what());
    return 1;
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "%s: error: out of memory\n", where().c_str());
    return 1;
  } catch (const std::exception &e) {
    // DataError, CommError and the rest: what() is the complete message.
    std::fprintf(stderr, "%s: error: %s\n", where().c_str(), e.what());
    return 1;
  }
}

} // namespace

int trainOnCommunicator(const CompiledProgram &program, const std::string &name,
                        const std::vector<std::string> &args,
                        Communicator &comm) {
  // Under several ranks every message names the rank it comes from.
  auto where = [&]() {
    return comm.size() > 1 ? name + ": rank " + std::to_string(comm.rank())
                           : name;
  };
  const int status = exitStatusOf(name, where, [&] {
    // The train block's settings with the command line's overrides: what
    // the whole run reads.
    CompiledProgram effective = program;
    DriverOptions options = parseCommandLine(args, effective.settings);
    comm.setTimeout(effective.settings.commTimeout);
    if (options.help) {
      if (comm.rank() == 0)
        std::fputs(usageText(name, program).c_str(), stdout);
      return 0;
    }
    const int status = effective.settings.samplers > 0 && !options.gradcheck
                           ? runWithSamplerRanks(effective, options, comm)
                           : run(effective, options, comm);
    // MPI_Finalize waits for every rank without a deadline: meet first
    // under the timeout, so a rank that stops at the end is named too.
    if (status == 0)
      comm.barrier();
    return status;
  });
  std::fflush(stdout);
  std::fflush(stderr);
  return status;
}

int trainMain(int argc, char **argv, const CompiledProgram &program) {
  const std::string name = programName(argc > 0 ? argv[0] : nullptr);
  std::unique_ptr<Communicator> comm;
  int status = exitStatusOf(
      name, [&] { return name; },
      [&] {
        comm = makeCommunicator();
        return 0;
      });
  if (status == 0)
    status = trainOnCommunicator(
        program, name,
        std::vector<std::string>(argv + std::min(argc, 1), argv + argc), *comm);
  std::fflush(stdout);
  std::fflush(stderr);
  // One rank's failure ends all of them: none waits in a collective.
  if (status != 0 && comm)
    abortAllRanks(*comm, status);
  return status;
}

} // namespace gnnrt
