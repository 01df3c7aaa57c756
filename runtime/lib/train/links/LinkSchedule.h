//===- LinkSchedule.h - link-prediction training on the whole graph -*- C++
//-*-//
//
// Internal to gnnrt. The Schedule of a link-prediction program
// (TrainSettings::links): one process, the whole graph. prepare() splits
// the dataset's edges (LinkTraining.h) and keeps the train links alone as
// the graph message passing runs on, the same arrays for the whole run (the
// generated code may hoist what depends on the graph and the features
// alone). Each epoch is one full-batch train step, as PyG's GAE example
// takes, on ctx.pairs = every train link and its epoch's negatives, with
// the labels of those pairs and no loss mask; evaluation runs forward on
// the valid and the test split's pairs and scores each pair by s = out[:, 1]
// - out[:, 0] (the logits are [0, s]): their ROC AUC, average precision
// and mean binary cross-entropy.
//
// Under mpirun every rank makes the same split; the message-passing graph
// is partitioned at start-up, the ranks draw each epoch's negatives in
// shares, and a rank scores the pairs whose destination it owns
// (RankPairs.h: their sources' rows come through the pairs' own halo
// exchange), so P ranks train what one process trains, the sums in
// another order. Evaluation gathers every rank's scores.
//
// Not yet: sampler ranks, --offload, a partition directory and
// heterogeneous data are refused before anything loads.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_LINKSCHEDULE_H
#define GNNRT_LIB_TRAIN_LINKSCHEDULE_H

#include "LinkTraining.h"
#include "RankPairs.h"
#include "schedule/ScheduleBase.h"

#include <array>
#include <memory>
#include <optional>

namespace gnnrt {

/// What one split's pairs scored: AUC, AP and the mean loss.
struct LinkScores {
  double auc = 0, ap = 0, loss = 0;
};

/// Throws UsageError, naming the program's source, if a link program
/// cannot train under `options` yet (several ranks, sampler ranks, sampled
/// batches, a partition directory, --offload, --predict without --pairs).
void refuseUnsupportedLinkLaunch(const CompiledProgram &program,
                                 const DriverOptions &options,
                                 Communicator &comm, bool samplerRanks);

/// The rows of the first factor of a score that multiplies node rows, for
/// the nodes `ctx` computes (CompiledProgram::rankFactorsF32).
std::vector<float> factorRows(const CompiledProgram &program,
                              ExecContext<float> &ctx);

/// `rows` (float32 [numNodes, width]) as an .npy at `path`, whole or not at
/// all.
void writeEmbeddingRows(const std::string &path, const std::vector<float> &rows,
                        int64_t numNodes);

/// The scores of `batch` from forward's output [pairs, 2] (logits [0, s]).
LinkScores scorePairs(const PairBatch &batch, const float *output);

/// Each pair's score s = logit 1 - logit 0 from forward's output [pairs, 2]
/// of `batch`, in the order its pairs were given (positives, then
/// negatives: PairBatch::byDestination).
std::vector<float> scoresInGivenOrder(const PairBatch &batch,
                                      const float *output);

class LinkSchedule : public ScheduleBase {
public:
  /// Throws UsageError for a launch or program it does not support yet.
  LinkSchedule(const CompiledProgram &program, const DriverOptions &options,
               Communicator &comm, bool samplerRanks);

  const char *name() const override {
    return comm.size() > 1 ? "link_distributed_full_graph" : "link_full_graph";
  }
  void bind(ParameterStore<float> &params) override;
  double trainEpoch(int64_t epoch, OptimizerStep &step) override;
  /// AUC, AP (and loss) of the valid and test pairs the train block
  /// evaluates; the accuracies stay unset.
  Accuracies evaluate() override;
  /// Link programs predict no node rows: --predict scores --pairs.
  const std::vector<float> &predict() override { return logits; }
  /// Scores the pairs of --pairs (every pair in one forward) and writes
  /// `src,dst,score,probability` per pair, in the file's order.
  void writePredictions(const std::string &path, Communicator &comm) override;
  void writeEmbeddings(const std::string &path) override;
  void printStats(const TrainingResult &result) const override;

  /// The split (after prepare), for tests.
  const LinkSplitData &links() const { return *linkData; }

protected:
  /// The message-passing graph: whole in one process; under mpirun this
  /// rank's partition of it (`owners` says where every node lives).
  TrainingData loadData() override;
  /// The dataset as message passing sees it (the train links, both
  /// directions when undirected, and self loops if asked), with the split
  /// made (linkData) and no node labels or splits.
  Dataset linkDataset();
  /// The output rows [pairs, 2] (the logits [0, s]) of `pairs` (global
  /// ids, in its edge order): one forward on the whole graph. Collective
  /// where a schedule's is.
  virtual std::vector<float> outputRows(const PairBatch &pairs);

  /// Whether this process computes node v's rows (all of them in one
  /// process; under mpirun the rank's owned nodes).
  bool owns(int64_t v) const { return !owners || owners->mine(v); }
  /// This process's nodes (global ids, ascending).
  std::vector<int64_t> ownNodes() const;

  std::unique_ptr<LinkSplitData> linkData;
  /// Under mpirun: every node's owner and row there (null in one process).
  std::unique_ptr<NodeOwners> owners;
  /// The current epoch's train pairs, and the evaluated splits' (made once).
  PairBatch trainBatch;
  LinkPairs trainNegatives;
  std::optional<PairBatch> validBatch, testBatch;

private:
  /// Under mpirun, full graph: `ctx` scores this rank's share of a batch.
  void bindRankPairs(ExecContext<float> &ctx, const RankPairs &share);
  RankPairs trainShare, evaluationShare;
};

/// makeSchedule's choice for a program with TrainSettings::links
/// (`samplerRanks`: the launch has sampler ranks).
std::unique_ptr<Schedule> makeLinkSchedule(const CompiledProgram &program,
                                           const DriverOptions &options,
                                           Communicator &comm,
                                           bool samplerRanks);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_LINKSCHEDULE_H
