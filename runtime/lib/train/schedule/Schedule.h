//===- Schedule.h - one way of training a program ---------------*- C++ -*-===//
//
// Internal to gnnrt (it may become public with the trainer roles). A
// Schedule is how the trainer runs a CompiledProgram: where its data comes
// from, what one epoch of training steps is, and how the model is evaluated
// and predicts. trainMain picks one implementation once at start-up
// (makeSchedule) and then only calls the stages below, in this order:
//
//   prepare()            this process's data, checked against the program
//   selectFold(k)        cross-validated data only (folds() not empty): the
//                        fold the stages below train and evaluate on; the
//                        trainer repeats the stages from here per fold
//   bind(params)         contexts on the loaded parameters; the rest of the
//                        set-up (sampling tables, collective checks)
//   trainEpoch(e, step)  per epoch: the loss; `step` is the shared optimizer
//                        step (zero gradients, trainStep, all-reduce,
//                        update)
//   evaluate...()        accuracies on the train, valid and test splits
//   predict()            the logits of this process's nodes
//   printStats(result)   the --stats lines, communication included
//
// The implementations (one per way of training, each a class of its own):
//   FullGraphSchedule             one process, the whole graph per step
//   DistributedFullGraphSchedule  a partition per rank, halo exchanges
//   SampledSchedule               one process, mini-batches sampled on
//                                 background threads (BatchPipeline)
//   DistributedSampledSchedule    a partition per rank, sampling and the
//                                 feature fetch as collectives
//   RemoteSampledSchedule         a trainer rank: batches from sampler
//                                 ranks (SamplerRanks.h)
//   OffloadSchedule               out of core: partitions that take turns
//                                 in one process, their memory in files
//   LinkSchedule                  link prediction (links/): one process,
//                                 the train links' graph, scored pairs
//   GraphBatchSchedule            graph-level programs: batches of small
//                                 graphs of a collection, packed block-
//                                 diagonally, a share of each per rank;
//                                 cross-validated over the collection's folds
// The coming ways of training -- on a GPU -- are each one more
// implementation chosen in makeSchedule, not branches in the trainer.
//
// Every stage with "collective" in its comment is called by every rank, in
// the same order: a rank that skipped one would hang the others.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_SCHEDULE_H
#define GNNRT_LIB_SCHEDULE_H

#include "batch/TrainingData.h"
#include "cli/CommandLine.h"
#include "gnnrt/comm/Communicator.h"
#include "gnnrt/train/Program.h"
#include "output/Checkpoint.h"
#include "output/Metrics.h"
#include "params/ParameterStore.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gnnrt {

class OptimizerStep;
class LearnedInputs;
struct SamplerRanks;

/// What the epoch loop measured, for the summary and --stats.
struct TrainingResult {
  EpochRecord last;        ///< always evaluated
  /// Highest valid accuracy, or early stopping's best; eval unset if none.
  EpochRecord best;
  /// Early stopping: the parameters are the best epoch's, and whether
  /// patience ran out before the last epoch.
  bool restoredBest = false, stoppedEarly = false;
  double trainSeconds = 0; ///< summed over epochs, evaluation excluded
  double allReduceSeconds = 0;
  int64_t allReduceBytes = 0; ///< gradients and loss, per rank and epoch
};

class Schedule {
public:
  virtual ~Schedule() = default;

  /// A short name of the way of training ("full_graph", "sampled",
  /// "distributed_full_graph", "distributed_sampled", "offload",
  /// "graph_batches"); printed nowhere, for tests and debugging.
  virtual const char *name() const = 0;

  /// Loads (or partitions) this process's data and checks the program's
  /// output width against its classes. Collective in a distributed run.
  virtual void prepare() = 0;
  /// The data prepare() loaded: this process's nodes and the graph's
  /// dimensions (the parameter shapes depend on them).
  virtual const TrainingData &data() const = 0;
  /// The names of the data's cross-validation folds (after prepare), each
  /// a train/valid/test split of its own on which the trainer trains a
  /// model afresh; empty: the data has one split.
  virtual std::vector<std::string> folds() const { return {}; }
  /// Trains and evaluates on fold `k` of folds() from now on; called before
  /// bind, once per fold trained.
  virtual void selectFold(size_t k) { (void)k; }
  /// Points the entry points' contexts at `params`, which outlive the
  /// schedule's use, and sets up what training needs beyond the data.
  /// Called after the parameters are loaded or initialized and broadcast.
  /// Collective.
  virtual void bind(ParameterStore<float> &params) = 0;

  /// Trains epoch `epoch` (1-based) and returns its loss: the mean over
  /// all ranks' loss rows, averaged over the epoch's steps. Collective.
  virtual double trainEpoch(int64_t epoch, OptimizerStep &step) = 0;
  /// Optimizer steps per epoch (after bind): one for a full graph, one per
  /// batch when sampled; the progress report counts them.
  virtual int64_t stepsPerEpoch() const { return 1; }
  /// The learned input rows (`embed`) the steps update, or null.
  virtual LearnedInputs *learnedInputs() { return nullptr; }
  /// The learned input rows as a checkpoint keeps them (with `moments`,
  /// their Adam state and steps too), gathered on rank 0 from wherever they
  /// live (ranks, sampler ranks, offloaded parts); none when the model has
  /// none. Collective.
  virtual std::optional<LearnedInputsSnapshot>
  learnedInputsSnapshot(bool moments) {
    (void)moments;
    return std::nullopt;
  }
  /// Applies `restore` (a --load or --resume file's rows) to every set of
  /// learned rows this process holds; none: nothing to do (sampler ranks
  /// restore theirs themselves).
  virtual void
  restoreLearnedInputs(const std::function<void(LearnedInputs &)> &restore) {
    if (LearnedInputs *learned = learnedInputs())
      restore(*learned);
  }
  /// Accuracies on the three splits with the current parameters, over
  /// all ranks. Collective.
  virtual Accuracies evaluate() = 0;
  /// evaluate() between epochs of training. The two entry points share
  /// their buffers (ScheduleBase::bind), so the process peaks at about the
  /// larger of the two memory plans rather than their sum, and neither
  /// faults its buffers in again after the other ran.
  virtual Accuracies evaluateBetweenEpochs() = 0;
  /// The logits [data().data.numNodes x classes] of this process's nodes
  /// with the current parameters. A schedule may return the latest
  /// evaluation's (training evaluates after its last update). Collective.
  virtual const std::vector<float> &predict() = 0;
  /// --predict: writes predict()'s rows to `path`, a row per node in the
  /// dataset's ids; on ranks of a partitioned graph gathered to rank 0.
  /// Collective over `comm`. A schedule whose rows are computed by other
  /// ranks (sampler ranks) has them written there.
  virtual void writePredictions(const std::string &path, Communicator &comm);
  /// --embeddings: writes every node's representation to `path` (.npy).
  /// Only link schedules write them; the others refuse the option when
  /// made (makeSchedule).
  virtual void writeEmbeddings(const std::string &path) { (void)path; }

  /// The --stats lines: rank 0 prints the parameters, the memory plans
  /// and the epoch time; every rank its own traffic. Not collective, but
  /// called on every rank.
  virtual void printStats(const TrainingResult &result) const = 0;
};

/// The schedule for `program` as launched: graph batches for a graph-level
/// program (TrainSettings::graphBatches), sampled when the program was
/// compiled with mini-batches (numBlocks > 0), distributed when it runs on
/// several ranks or --data names a partition directory (gnn-partition's
/// output, with a manifest.json), out of core with --offload. Does no
/// work: prepare() does. A link-prediction program (TrainSettings::links)
/// gets a LinkSchedule. With `samplerRanks` (a trainer rank of a run with
/// sampler ranks, `comm` the trainers' communicator): RemoteSampledSchedule.
std::unique_ptr<Schedule>
makeSchedule(const CompiledProgram &program, const DriverOptions &options,
             Communicator &comm, const SamplerRanks *samplerRanks = nullptr);

} // namespace gnnrt

#endif // GNNRT_LIB_SCHEDULE_H
