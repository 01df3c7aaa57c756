//===- SampledLinkSchedule.h - link prediction on sampled batches -*- C++ -*-//
//
// Internal to gnnrt. The Schedule of a link-prediction program compiled
// with `batches = neighbor(fanout = [...], batch = B)` (PyG's
// LinkNeighborLoader, DGL's as_edge_prediction_sampler): each epoch
// shuffles the train links by (seed, epoch) (an IndexPermutation, so a
// batch's links cost what it holds) and cuts them into batches of B links; a step scores its links and their epoch's negatives (drawn as
// the full-graph schedule draws them: negative j of link e is a function
// of (seed, epoch, e, j)) on blocks sampled around the pairs' endpoints,
// which are the last level's nodes (the seeds, ascending). The batch's own
// links, both directions, are excluded from every hop's draws, so message
// passing never sees an edge the step scores.
//
// Under mpirun each rank holds a partition of the message-passing graph
// (partitioned at start-up, as the node schedules do for a dataset
// directory) and the same split; a step's links are the batch's whose
// destination the rank owns, with their negatives; the ranks sample
// together (MiniBatchAssembler's collectives) with the whole batch's links
// excluded on every rank, so each node's neighbourhood is the one a single
// process draws and P ranks train what one process trains (the losses
// within float rounding: sums run in another order).
//
// Evaluation scores the valid and test pairs by full-neighbourhood
// inference (fanout -1 on every layer over the train links), each rank its
// share, the scores gathered so every rank computes the same AUC and AP.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_SAMPLEDLINKSCHEDULE_H
#define GNNRT_LIB_TRAIN_SAMPLEDLINKSCHEDULE_H

#include "LinkSchedule.h"
#include "batch/MiniBatch.h"
#include "gnnrt/support/IndexPermutation.h"

#include <array>
#include <memory>

namespace gnnrt {

class SampledLinkSchedule : public LinkSchedule {
public:
  SampledLinkSchedule(const CompiledProgram &program,
                      const DriverOptions &options, Communicator &comm,
                      bool samplerRanks);
  ~SampledLinkSchedule() override;

  const char *name() const override {
    return comm.size() > 1 ? "link_distributed_sampled" : "link_sampled";
  }
  /// Also sets up the sampler (collective).
  void bind(ParameterStore<float> &params) override;
  double trainEpoch(int64_t epoch, OptimizerStep &step) override;
  int64_t stepsPerEpoch() const override { return steps; }
  void writeEmbeddings(const std::string &path) override;
  void printStats(const TrainingResult &result) const override;

protected:
  /// By full-neighbourhood inference, this rank scoring the pairs whose
  /// destination it owns; every rank gets all of them. Collective. (So
  /// evaluation and --predict --pairs are LinkSchedule's.)
  std::vector<float> outputRows(const PairBatch &pairs) override;

private:
  /// Samples (fanouts: the program's, or -1 each for inference) around the
  /// endpoints of the pairs `positive` and `negative` (global ids) into
  /// `out` with `builder`, and sets `local` to those pairs over the seeds
  /// (the last level's rows, ascending ids), as makePairBatch orders them.
  /// Collective.
  void samplePairs(const LinkPairs &positive, const LinkPairs &negative,
                   const std::vector<int64_t> &fanouts, const SampleKey &key,
                   BlockBuilder &builder, SampledBatch &out, PairBatch &local,
                   SamplingTraffic &traffic);
  /// Points `ctx` at a sampled batch and its pairs.
  static void bindPairs(ExecContext<float> &ctx, const SampledBatch &batch,
                        const PairBatch &local);
  /// Batch b of the epoch whose links are batched in `order`: this rank's
  /// links of it and their negatives, sampled with the whole batch's links
  /// excluded. A function of (seed, epoch, b); thread-safe with a builder
  /// per thread in one process, collective under mpirun.
  void sampleStep(int64_t epoch, const IndexPermutation &order, int64_t b,
                  BlockBuilder &builder, SampledBatch &out, PairBatch &local,
                  SamplingTraffic &traffic);

  std::unique_ptr<MiniBatchAssembler> assembler;
  /// One per sampling thread; the training thread uses the first.
  std::vector<std::unique_ptr<BlockBuilder>> builders;
  int samplerThreads = 0;
  /// The pipeline's ring (kept across epochs) and each slot's pairs.
  std::vector<SampledBatch> slots;
  std::vector<PairBatch> slotPairs;
  /// The training thread's batch and pairs (mpirun, inference).
  SampledBatch sampled;
  PairBatch stepPairs;
  /// What training's batches and inference's sampled (apart, so that
  /// --stats' per-epoch sampling time is training's).
  SamplingTraffic traffic, inferenceTraffic;
  double pipelineWait = 0;
  int64_t steps = 1;
  /// Sums over the trained batches (--stats): pairs, and each block's
  /// sources, destinations and edges.
  int64_t batchesTrained = 0, pairsTrained = 0;
  std::vector<std::array<int64_t, 3>> blockTotals;
};

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_SAMPLEDLINKSCHEDULE_H
