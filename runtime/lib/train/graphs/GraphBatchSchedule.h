//===- GraphBatchSchedule.h - training on batches of small graphs -*- C++ -*-=//
//
// Internal to gnnrt. The schedule of graph-level programs (`batches =
// graphs(batch = B, shuffle?)`, TrainSettings::graphBatches): the data is a
// collection of many small graphs (TU or OGB graph property, source "tu" or
// "ogbg"), one class each. An epoch takes the current fold's training
// graphs, shuffled by (seed, epoch) when `shuffle`, in batches of B (the
// last one smaller); a step packs its batch into one block-diagonal graph
// (GraphBatch.h) and gives the entry points the graph, its node features,
// the readout graph (each node -> its graph's position in the batch) and
// one label per graph. Evaluation and prediction run the forward over every
// graph of a split in batches of B.
//
// Under several ranks each batch is split into contiguous shares, rank r
// packing its own (graphs [r B/P, (r+1) B/P) of the batch) with lossScale
// = share / B, so the all-reduced gradients are one process's; dropout
// masks are keyed by each node's id in the collection (ExecContext::
// nodeIds), which does not depend on the split. Evaluation splits each
// split's graphs the same way and sums the counts.
//
// The folds are the collection's own (Errica's for TU, one per split
// directory for OGB), else 10 stratified ones from the seed; the train
// block's `split = "name"` picks one of them by name.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_GRAPHBATCHSCHEDULE_H
#define GNNRT_LIB_TRAIN_GRAPHBATCHSCHEDULE_H

#include "gnnrt/data/GraphBatch.h"
#include "gnnrt/data/GraphCollection.h"
#include "schedule/ScheduleBase.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gnnrt {

/// Graphs [first, second) of a batch of `count` that rank `rank` of
/// `ranks` packs: contiguous shares whose sizes differ by at most one.
std::pair<int64_t, int64_t> rankShare(int64_t count, int rank, int ranks);

/// The folds a graph collection trains on: its own, or `k` stratified ones
/// from `seed` when it has none; only the one named `split` when that is
/// not empty (a DataError naming the folds there are otherwise).
std::vector<GraphFold> collectionFolds(const GraphCollection &graphs,
                                       const std::string &split, uint64_t seed,
                                       const std::string &where, int k = 10);

class GraphBatchSchedule : public ScheduleBase {
public:
  GraphBatchSchedule(const CompiledProgram &program,
                     const DriverOptions &options, Communicator &comm)
      : ScheduleBase(program, options, comm) {}

  const char *name() const override { return "graph_batches"; }
  std::vector<std::string> folds() const override;
  void selectFold(size_t k) override;
  /// Points both contexts at `params`; each step fills in its batch.
  void bind(ParameterStore<float> &params) override;
  double trainEpoch(int64_t epoch, OptimizerStep &step) override;
  int64_t stepsPerEpoch() const override;
  /// The current fold's splits, over all ranks. Collective.
  Accuracies evaluate() override;
  /// The logits of this rank's share of every graph of the collection
  /// ([share, classes], graphs in id order).
  const std::vector<float> &predict() override;
  /// A row per graph of the collection, `graph,prediction`, gathered on
  /// rank 0. Collective.
  void writePredictions(const std::string &path, Communicator &comm) override;
  /// Adds the batches' sizes to the plan.
  void printStats(const TrainingResult &result) const override;

protected:
  /// Reads the collection; the TrainingData holds its sizes only.
  TrainingData loadData() override;

private:
  /// What a split's forward passes counted on this rank.
  struct SplitCounts {
    int64_t correct = 0, labeled = 0;
    double lossSum = 0;
  };
  /// Packs graphs ids[0, count) into `packed` and points `ctx` at it.
  void pack(const int64_t *ids, int64_t count, ExecContext<float> &ctx);
  /// Runs the forward over this rank's share of `graphIds` in batches,
  /// calling `rows(ids, count, logits)` for each.
  template <typename Rows>
  void forwardShare(const std::vector<int64_t> &graphIds, Rows &&rows);
  SplitCounts countSplit(const std::vector<int64_t> &graphIds, bool loss);
  int64_t batchSize() const { return program.settings.graphBatches.batchSize; }

  GraphCollection graphs;
  std::vector<GraphFold> foldList;
  size_t fold = 0;

  /// The batch (or share) the contexts point at, and its views' arrays.
  struct Packed {
    GraphBatch batch;
    GraphStorage graph, readout;
    std::vector<int32_t> readoutSources;
    std::vector<int64_t> nodeIds, edgeIds;
  };
  Packed packed;
  /// Forward outputs: a batch's [graphs, classes].
  std::vector<float> batchLogits;
  /// Training steps taken, the nodes and edges this rank packed for them,
  /// the time packing took and the epochs' (--stats).
  int64_t steps = 0, packedNodes = 0, packedEdges = 0;
  double packSeconds = 0, epochSeconds = 0;
};

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_GRAPHBATCHSCHEDULE_H
