//===- OffloadSchedule.h - full-graph training out of core ------*- C++ -*-===//
//
// Internal to gnnrt. SAR's single-node mode (--offload DIR --memory-budget
// SIZE): the graph is split into as many partitions as the budget needs,
// and one process trains them as the ranks of a distributed full-graph run
// that take turns (TurnCommunicator): one partition computes while the
// others' data and activations wait in their files under DIR (FileArena).
// The parts that ran last stay in RAM as long as they fit the budget
// together; the pages of the others are dropped, least recently run first. Halo rows move between partitions by SAR's
// sequential aggregation in bounded chunks, so RAM holds one partition's
// working set plus those chunk buffers.
//
// The partitions share the parameters and their gradients: each
// partition's trainStep adds its share into the same gradients, which is
// what the all-reduce of a distributed run computes, and one optimizer
// step follows. The losses are the in-memory run's (within float
// rounding of the summation order). Learned input rows (`embed`) are a
// part's data like its features: its rows, their Adam moments and gradient
// live in its file, and each part updates its own rows in its turn.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_OFFLOADSCHEDULE_H
#define GNNRT_LIB_TRAIN_OFFLOADSCHEDULE_H

#include "FileArena.h"
#include "PageReadahead.h"
#include "gnnrt/comm/TurnCommunicator.h"
#include "gnnrt/partition/PartitionManifest.h"
#include "schedule/FullGraphSchedule.h"

#include <functional>
#include <memory>
#include <vector>

namespace gnnrt {

class OffloadPart;

/// Which arenas' pages stay in RAM as turns pass among their owners: the
/// ones that ran last, as long as they fit `usableBytes` together beside
/// the working set of the one taking the turn (the larger of its estimate
/// and its arena's peak); the others' pages are dropped, least recently
/// run first. `usableBytes` is the budget less `outsideBytes`, what the
/// process holds outside the arenas; when the measured amount (the heap,
/// stacks and OpenBLAS's anonymous pages, and the code's pages mapped
/// before the arenas) grows past it, the arenas get that much less.
class ArenaResidency {
public:
  ArenaResidency(int64_t usableBytes, std::vector<FileArena *> arenas,
                 std::vector<int64_t> estimatedBytes, int64_t outsideBytes = 0);
  /// `to` takes the turn.
  void takeTurn(int to);
  /// Whether `k`'s pages may be in RAM.
  bool isResident(int k) const;
  /// Drops every arena's pages.
  void dropAll();

  /// The process's resident bytes outside the arenas, measured now.
  int64_t measuredOutsideBytes() const;

private:
  int64_t usable, outside;
  /// Resident file pages when made (code and libraries): the arenas'
  /// pages are file pages too, so later readings cannot tell them apart.
  int64_t codeBytes;
  std::vector<FileArena *> arenas;
  std::vector<int64_t> estimated;
  /// Arenas whose pages may be in RAM, least recently run first.
  std::vector<int> resident;
};

class OffloadSchedule : public Schedule {
public:
  OffloadSchedule(const CompiledProgram &program, const DriverOptions &options,
                  Communicator &comm);
  ~OffloadSchedule() override;

  const char *name() const override { return "offload"; }
  /// Checks the launch, partitions the dataset into DIR (unless --data is a
  /// partition directory whose parts fit the budget), and loads each part
  /// into its file.
  void prepare() override;
  /// The graph's dimensions; numNodes is the whole graph's (predict()
  /// returns a row per node, in the dataset's ids).
  const TrainingData &data() const override { return summary; }
  void bind(ParameterStore<float> &params) override;
  double trainEpoch(int64_t epoch, OptimizerStep &step) override;
  Accuracies evaluate() override;
  Accuracies evaluateBetweenEpochs() override { return evaluate(); }
  const std::vector<float> &predict() override;
  void printStats(const TrainingResult &result) const override;
  /// Every part's learned rows (`embed`), gathered on part 0 in a round
  /// of turns.
  std::optional<LearnedInputsSnapshot>
  learnedInputsSnapshot(bool moments) override;
  /// `restore` on every part's learned rows, each in its turn.
  void restoreLearnedInputs(
      const std::function<void(LearnedInputs &)> &restore) override;

private:
  /// The partition directory to train from: --data itself, or one written
  /// under DIR with the partition count the budget needs.
  std::string partitionDirectory();
  /// partitionDirectory for an .npy dataset (an OGB one converted first):
  /// node blocks refined by the distributed partitioner, its ranks taking
  /// turns in this process with their slices of the dataset in files under
  /// DIR, so that the start-up keeps to the budget too. Empty for another
  /// layout (heterogeneous, or .npy edges without a node count).
  /// `numClasses` > 0: the class count (a generated dataset's), else the
  /// labels'.
  std::string streamPartitions(const std::string &dataDir,
                               int64_t numClasses = 0);
  /// The program's generated dataset (SBM or R-MAT) written as .npy arrays
  /// in DIR/npy as it is drawn, for streamPartitions: the start-up then
  /// never holds it whole.
  std::string generatedNpyDataset();
  /// `dataDir` itself, or for an OGB-layout dataset (csv, csv.gz) its .npy
  /// conversion in DIR/npy (convertOgbToNpy: one pass over the text).
  std::string npyDataset(const std::string &dataDir);
  /// Called as `to` takes the turn from `from`: keeps the parts that ran
  /// last in RAM while they fit (ArenaResidency), then reads ahead the
  /// part after `to` in rank order (the next to run in a round of turns)
  /// if its pages were dropped.
  void handOver(int from, int to);
  /// turns->run(work), with part 0's turn prepared as a hand-over would.
  void runTurns(const std::function<void(int)> &work);
  /// Throws DataError when a part of `manifest` needs more than the budget.
  void checkBudget(const PartitionManifest &manifest,
                   const std::string &dir) const;
  /// "" while the peak RSS is within the budget, else what went over and
  /// the budget the measured footprints needed.
  std::string overBudget() const;

  const CompiledProgram &program;
  const DriverOptions &options;
  Communicator &comm;
  DriverOptions partOptions;
  std::vector<std::unique_ptr<FileArena>> arenas;
  std::unique_ptr<TurnTaking> turns;
  /// The parts' pages in RAM; each part's estimated working set
  /// (offloadPartBytes) is room for a part that is about to load or grow.
  std::unique_ptr<ArenaResidency> residency;
  std::vector<std::unique_ptr<OffloadPart>> parts;
  /// Reads the next part's file into the page cache during a turn (unless
  /// GNNRT_OFFLOAD_READAHEAD=0).
  std::unique_ptr<PageReadahead> readahead;
  TrainingData summary;
  std::vector<float> logits;
  /// Whether stderr was told that the peak went over the budget.
  bool warnedOverBudget = false;
  /// The peak RSS when the parts were ready: the start-up's.
  int64_t startUpPeakBytes = 0;
};

/// The bytes one part of a partitioning holds in RAM during its turn
/// (data, halo tables and activations), estimated from its counts. With
/// `featuresInPlace` (PartitionManifest::featuresInPlace) the halo nodes
/// count only their tables: the part maps its owned rows, and the halo's
/// come around the ring in chunks; without it they count a feature row
/// each, as calibrated against the memory plan (docs/out-of-core.md).
/// Activation floats a part holds per node: per owned node (its layers'
/// outputs and what their backward keeps, learned rows' optimizer state),
/// and per local node, halo included (a relational layer's input and its
/// gradient at every node it reads).
struct ActivationFloats {
  int64_t perOwnedNode = 0, perLocalNode = 0;
};

int64_t offloadPartBytes(const PartCounts &part, int64_t features,
                         const ActivationFloats &activations,
                         bool featuresInPlace = false);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_OFFLOADSCHEDULE_H
