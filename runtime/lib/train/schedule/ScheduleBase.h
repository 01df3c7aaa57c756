//===- ScheduleBase.h - what every Schedule shares --------------*- C++ -*-===//
//
// Internal to gnnrt. The state and stages the ways of training have in
// common, so that each implementation writes only what differs: this
// process's data (loaded by the implementation's loadData, then checked
// against the program), one context per entry point on its own Workspace
// (their memory plans are separate; their buffers are shared, since they
// never run at the same time), the logits buffer, evaluation between epochs,
// and the pieces
// of --stats every schedule prints. Also the two ways to load data: the
// whole graph for one process, or this rank's partition.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_SCHEDULEBASE_H
#define GNNRT_LIB_SCHEDULEBASE_H

#include "Schedule.h"
#include "params/LearnedInputs.h"

#include "gnnrt/partition/PartitionManifest.h"

#include <memory>

namespace gnnrt {

class ScheduleBase : public Schedule {
public:
  void prepare() final;
  const TrainingData &data() const final { return trainingData; }
  /// Makes the two contexts on the data, binds them to `params` and sizes
  /// the logits. Implementations extend it with their own set-up.
  void bind(ParameterStore<float> &params) override;
  Accuracies evaluateBetweenEpochs() final;
  LearnedInputs *learnedInputs() final { return learned.get(); }
  /// Every rank's learned rows, gathered on rank 0.
  std::optional<LearnedInputsSnapshot>
  learnedInputsSnapshot(bool moments) override;

protected:
  ScheduleBase(const CompiledProgram &program, const DriverOptions &options,
               Communicator &comm)
      : program(program), options(options), comm(comm) {}

  /// This process's data: the whole graph or this rank's partition.
  virtual TrainingData loadData() = 0;

  /// Rank 0's part of --stats: parameters, both memory plans (planned
  /// Workspace bytes next to the one-buffer-per-value figure the generated
  /// code reports) and the mean epoch time.
  void printPlanStats(const TrainingResult &result) const;
  /// The last lines of this rank's traffic under several ranks: the
  /// gradient all-reduce, the split of the training time into compute and
  /// communication (`otherCommSeconds`: communication besides the
  /// all-reduce) and the peak resident set.
  void printRankStats(const TrainingResult &result,
                      double otherCommSeconds) const;

  const CompiledProgram &program;
  const DriverOptions &options;
  Communicator &comm;
  TrainingData trainingData;
  const ParameterStore<float> *params = nullptr;
  /// trainStep's context and forward's, each on its own Workspace (its own
  /// plan), drawing on the same buffers.
  Workspace<float> trainWorkspace, forwardWorkspace;
  ExecContext<float> trainCtx, forwardCtx;
  /// [nodes x classes] of this process: forward's output, what predict()
  /// returns.
  std::vector<float> logits;
  /// The featureless types' learned rows (`embed`), made by bind().
  std::unique_ptr<LearnedInputs> learned;
};

/// The train block's preprocessing (reverse edges, self loops, repeats
/// removed, the split) as the dataset readers' options; the binary cache on.
LoadOptions datasetLoadOptions(const TrainSettings &settings);

/// The dataset of --data, or the train block's generator, read with
/// `load` (a schedule may change datasetLoadOptions' choices).
Dataset readDataset(const TrainSettings &settings, const DriverOptions &options,
                    LoadOptions load);

/// The dataset of --data (or the train block's generator) with the train
/// block's preprocessing, before it is split between ranks or prepared for
/// one process.
Dataset loadPreprocessedDataset(const CompiledProgram &program,
                                const DriverOptions &options);

/// The whole dataset of --data (or the train block's generator) for one
/// process, with the train block's preprocessing.
TrainingData loadWholeGraph(const CompiledProgram &program,
                            const DriverOptions &options);

/// Throws DataError naming DIR/manifest.json when the parts were made with
/// other edge options (reverse edges, self loops) than the program's
/// dataset loads with: the trainer would train another graph.
void checkPartitionedLikeProgram(const std::string &dir,
                                 const PartitionManifest &manifest,
                                 const TrainSettings &settings);

/// A distributed run's data: this rank's part of a partition directory
/// (`partitionDirectory`), or, for a dataset directory (small graphs), a
/// start-up partitioning that every rank computes identically from the
/// whole graph. Collective.
TrainingData loadRankPartition(const CompiledProgram &program,
                               const DriverOptions &options,
                               bool partitionDirectory, Communicator &comm);

/// This rank's part of `ds` (preprocessed, whole on every rank),
/// partitioned as the train block says; every rank computes the same
/// assignment (`cacheAssignment`: through the cache beside --data, for a
/// dataset read as it is). Collective.
TrainingData partitionAtStartup(Dataset ds, const CompiledProgram &program,
                                const DriverOptions &options,
                                Communicator &comm, bool cacheAssignment);

} // namespace gnnrt

#endif // GNNRT_LIB_SCHEDULEBASE_H
