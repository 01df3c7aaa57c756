//===- SampledTraining.h - the epoch schedule of sampled batches -*- C++
//-*-===//
//
// Internal to gnnrt; the engine of the sampled Schedules (SampledSchedule.h).
// For programs compiled with `batches = neighbor(...)`
// (CompiledProgram::numBlocks > 0): each epoch shuffles the training nodes
// of the whole graph, cuts them into batches of the program's size, and
// runs one optimizer step per batch on its sampled blocks. Under mpirun the
// batch is still the whole graph's: each rank trains the seeds of the step
// it owns (its share of the loss is its seeds over the batch's), and the
// draws are keyed by node, so P ranks train exactly what one process does
// (the same steps, the same sampled neighbourhoods, the same mean loss).
// A single process samples the next batches on background threads
// (BatchPipeline) while the current one trains; ranks sample collectively,
// in lockstep (a rank with no seeds in a step takes an empty one), in the
// training thread or (--sampler-threads 1) on one background thread each
// with a communicator of its own.
//
// Evaluation after sampled training is exact full-graph inference computed
// only where it is needed (SAR): the blocks of the evaluated nodes with all
// their in-neighbours (fanout -1 per layer), layer by layer, so each layer
// computes only the nodes the next one reads.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_SAMPLEDTRAINING_H
#define GNNRT_LIB_SAMPLEDTRAINING_H

#include "MiniBatch.h"
#include "TrainingData.h"
#include "cli/CommandLine.h"
#include "gnnrt/kernels/GatherStorage.h"
#include "gnnrt/train/Program.h"
#include "output/Metrics.h"
#include "params/LearnedInputs.h"

#include <array>
#include <cstdio>
#include <functional>
#include <memory>

namespace gnnrt {

/// Points `ctx` at a sampled batch: its blocks, features, labels and node
/// ids (level 0's global ids name the rows of every level).
void bindBatch(ExecContext<float> &ctx, const SampledBatch &batch);

/// Whether a sampled program's batches may read their input rows in the
/// dataset's table (CompiledProgram::inputRowsInPlace) rather than copy
/// them: not learned rows, not on a device, not for sampler ranks;
/// $GNNRT_INPUT_ROWS=copy keeps the copy (to compare the two).
bool readsInputRowsInPlace(const CompiledProgram &program, bool inputsLearned);

class SampledTraining {
public:
  /// Checks the sampling settings against the data and learns every rank's
  /// training nodes. Collective in a distributed run. `inputsLearned`: the
  /// steps update input rows (`embed`), so a batch's inputs are gathered at
  /// its turn, after the previous step (its blocks may be sampled ahead),
  /// and never from the feature cache.
  SampledTraining(const CompiledProgram &program, const DriverOptions &options,
                  const TrainingData &data, Communicator &comm,
                  bool inputsLearned = false);
  ~SampledTraining();

  /// Under mpirun a batch reads input rows of other ranks: `learned` then
  /// sends each step's gradient rows to their owners, who update them.
  void routeGradients(LearnedInputs &learned);

  /// One epoch (1-based): `step` runs once per batch, on every rank the
  /// same number of times, with the batch's context, or with null where
  /// this rank has no batch left (it only joins the collectives). Returns
  /// the mean of the steps' losses.
  double trainEpoch(int64_t epoch, ExecContext<float> &ctx,
                    const std::function<double(ExecContext<float> *)> &step);

  /// Accuracy on the three splits by full-neighbourhood inference.
  Accuracies evaluate(ExecContext<float> &ctx);
  /// The logits of every node of this rank [nodes x classes], the same way.
  void predict(ExecContext<float> &ctx, std::vector<float> &logits);

  /// Steps (batches) per epoch, the same on every rank.
  int64_t batchesPerEpoch() const { return stepsPerEpoch; }

  /// What every rank's batches of an epoch are: the whole graph's training
  /// nodes shuffled and cut into batches; per step this rank's seeds (the
  /// batch's nodes it owns, in batch order) and the batch's size.
  struct EpochPlan {
    int64_t epoch = 0;
    /// This rank's seeds of every step, step after step; step b's are
    /// order[stepBegin[b] .. stepBegin[b + 1]).
    std::vector<int64_t> order, stepBegin;
    /// Per step: this rank's seed count and the whole batch's.
    std::vector<int64_t> stepSeeds, globalSeeds;
    /// This rank's seeds of step b (empty when it owns none of them).
    std::vector<int64_t> seedsOf(int64_t b) const;
  };
  /// The plan of epoch `epoch` (1-based). Collective.
  EpochPlan planEpoch(int64_t epoch) const;
  /// Samples and gathers the batch of `seeds` with step b's draws (seeds
  /// may be a part of the rank's step-b seeds: each seed's sampled
  /// neighbourhood is the same either way); with Inputs::Defer, its input
  /// rows are left to gatherStepInputs. Collective.
  void assembleStep(
      const EpochPlan &plan, int64_t b, const std::vector<int64_t> &seeds,
      SampledBatch &out,
      MiniBatchAssembler::Inputs inputs = MiniBatchAssembler::Inputs::Gather);
  /// The input rows and labels of a batch assembled with Inputs::Defer.
  /// Collective.
  void gatherStepInputs(SampledBatch &batch) {
    assembler.gatherInputs(batch, trainTraffic);
  }
  /// The sampled traffic and time so far (sampler ranks' --stats).
  const SamplingTraffic &traffic() const { return trainTraffic; }

  /// Per rank and epoch: sampled edges, bytes of each collective, remote
  /// rows fetched and the cache hit rate.
  void printStats(std::FILE *out, int64_t epochs) const;

private:
  /// printStats' lines on the all_to_all traffic of distributed sampling.
  void printRemoteStats(std::FILE *out, double epochs) const;
  /// A CUDA trainer's draws and input rows on its device, unless
  /// --sample-on host, sampler ranks (--samplers) or a typed graph keep
  /// them on the host; `devicePlacement` says which, for --stats.
  void sampleOnDevice();
  /// Batches of a program that reads its input rows in place
  /// (CompiledProgram::inputRowsInPlace) point at the dataset's rows instead
  /// of copying every source's, where the assembler can;
  /// $GNNRT_INPUT_ROWS=copy keeps the copy (to compare the two).
  void readInputRowsInPlace();

  /// Full-neighbourhood inference of this rank's nodes `local`, in
  /// chunks: visit(first, count, logits) gets the logits of
  /// local[first .. first + count). Collective.
  void infer(ExecContext<float> &ctx, const std::vector<int64_t> &local,
             const std::function<void(size_t, size_t, const float *)> &visit);

  const CompiledProgram &program;
  const DriverOptions &options;
  const TrainingData &data;
  Communicator &comm;
  MiniBatchAssembler assembler;
  /// A CUDA trainer's device side of the batches (null: the host's).
  std::unique_ptr<DeviceBatchSource> deviceBatches;
  std::string devicePlacement;
  /// `--sampler-threads 1` under mpirun: the sampling thread's communicator
  /// (split from `comm`) and the assembler that samples over it.
  std::unique_ptr<Communicator> samplingComm;
  std::unique_ptr<MiniBatchAssembler> samplingAssembler;
  /// With bf16 gathers and input rows read in place: the dataset's feature
  /// table rounded once (kernels/GatherStorage.h).
  kernels::BFloat16Buffer bfloat16Features;
  /// The training nodes of the whole graph (global ids, ascending), and
  /// which of them this rank owns.
  std::vector<int64_t> allTrainNodes;
  std::vector<uint8_t> ownsTrainNode;
  int64_t stepsPerEpoch = 0;
  /// Background sampler threads (0: the training thread samples).
  int samplerThreads = 0;
  /// Learned input rows: a batch sampled ahead gathers its inputs in the
  /// training thread, just before its step (after the steps before it
  /// updated the rows).
  bool inputsLearned = false;
  /// One per sampling thread (BatchPipeline's worker index); the training
  /// thread uses the first.
  std::vector<std::unique_ptr<BlockBuilder>> builders;
  /// The batch pipeline's ring, kept across epochs: its buffers stay the
  /// size of a batch instead of being faulted in again every epoch.
  std::vector<SampledBatch> pipelineSlots;
  SamplingTraffic trainTraffic;
  double pipelineWait = 0;
  /// Sums over the trained batches of each block's sources, destinations
  /// and edges (--stats: the sizes a batch's floor is computed from).
  std::vector<std::array<int64_t, 3>> blockTotals;
  int64_t batchesTrained = 0;
};

} // namespace gnnrt

#endif // GNNRT_LIB_SAMPLEDTRAINING_H
