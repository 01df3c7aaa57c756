//===- ScheduleBase.cpp - what every Schedule shares ----------------------===//
//
// See ScheduleBase.h.
//
//===----------------------------------------------------------------------===//

#include "ScheduleBase.h"

#include "batch/RelationFanouts.h"

#include "gnnrt/data/Dataset.h"
#include "gnnrt/graph/Reorder.h"
#include "gnnrt/partition/AssignmentCache.h"
#include "gnnrt/partition/PartitionDirectory.h"
#include "gnnrt/partition/Partitioner.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cstdio>
#include <sys/resource.h>

namespace gnnrt {

namespace {

/// The process's peak resident set (getrusage: KiB on Linux).
long peakRssKiB() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

/// The dataset with the train block's preprocessing, before it is split
/// between ranks or prepared for one process.
Dataset preprocessedDataset(const CompiledProgram &program,
                            const DriverOptions &options) {
  const TrainSettings &settings = program.settings;
  Dataset ds =
      readDataset(settings, options, datasetLoadOptions(settings));
  // A split the program evaluates must be in the data (aifb's `rdf` split
  // has no valid.csv): an error now, not an n/a column after training.
  requireSplits(ds, settings.evaluate);
  // Without a train node the loss is 0 and training "succeeds": an empty
  // or missing train split is an error before the first epoch.
  if (ds.trainIdx.empty() && !options.evalOnly)
    throw DataError(
        (options.dataDir.empty() ? "the generated dataset" : options.dataDir) +
        ": the train split is empty (no node ids in split/<name>/train.csv"
        "[.gz] or train_idx.npy)");
  const std::string where =
      options.dataDir.empty() ? "the generated dataset" : options.dataDir;
  // Train nodes that are all unlabeled (-1 or nan) train at loss 0.
  if (!options.evalOnly)
    requireLabeledTrainNodes(ds, where);
  if (settings.embedDim > 0)
    addLearnedRows(ds, settings.embedDim, program.settings.seed, where);
  if (settings.normalizeFeatures)
    normalizeRows(ds.features, ds.numFeatures);
  return ds;
}

} // namespace

/// partitionNodes, through the assignment cache beside a dataset read from
/// a directory (AssignmentCache.h): a restarted job (gnn-run) finds the
/// partitioning its first start computed. Every rank reads the file or
/// computes the same assignment; rank 0 writes it.
static std::vector<int32_t>
cachedPartitionNodes(const Dataset &ds, const PartitionOptions &partition,
                     const DriverOptions &options, const Communicator &comm) {
  if (options.dataDir.empty() || !assignmentWorthCaching(partition))
    return partitionNodes(ds, partition);
  const std::string path = assignmentCachePath(options.dataDir, ds, partition);
  if (auto owner = readAssignmentCache(path, ds.numNodes, partition.numParts)) {
    if (options.stats && comm.rank() == 0)
      std::printf("stats: partition read from %s\n", path.c_str());
    return std::move(*owner);
  }
  std::vector<int32_t> owner = partitionNodes(ds, partition);
  if (comm.rank() == 0) {
    const bool written = writeAssignmentCache(path, owner, partition.numParts);
    if (options.stats)
      std::printf("stats: partition computed (%s)%s%s\n",
                  partitionMethodName(partition.method),
                  written ? ", kept in " : ", not kept (cannot write ",
                  written ? path.c_str() : (path + ")").c_str());
  }
  return owner;
}

TrainingData loadWholeGraph(const CompiledProgram &program,
                            const DriverOptions &options) {
  // Sampled training keeps the ids: its batches and samples are drawn by
  // node id, so a renumbering would change what it trains on.
  const bool fullGraph = program.numBlocks == 0;
  return prepareWholeGraph(preprocessedDataset(program, options),
                           fullGraph ? options.nodeOrder : "original",
                           program.needsEdgeIds);
}

void checkPartitionedLikeProgram(const std::string &dir,
                                 const PartitionManifest &manifest,
                                 const TrainSettings &settings) {
  // The parts hold the graph as gnn-partition loaded it: a program that
  // loads it otherwise would train another graph, without a word.
  // `partitionAgain`: the gnn-partition flags that match the program.
  auto differs = [&](bool parts, bool program, const char *what,
                     const char *setting, const char *partitionAgain) {
    if (parts == program)
      return;
    throw DataError(
        dir + "/manifest.json: the parts were made " +
        (parts ? "with " : "without ") + what + ", but the program's dataset " +
        (program ? "adds them" : "does not") + " (" + setting + " = " +
        (program ? "true" : "false") + "): partition it again " +
        partitionAgain + ", or change the program");
  };
  differs(manifest.addReverseEdges, settings.addReverseEdges, "reverse edges",
          "add_reverse_edges",
          settings.addReverseEdges ? "without --no-reverse"
                                   : "with --no-reverse");
  differs(manifest.addSelfLoops, settings.addSelfLoops, "self loops",
          "self_loops",
          settings.addSelfLoops ? "with --self-loops" : "without --self-loops");
}

TrainingData loadRankPartition(const CompiledProgram &program,
                               const DriverOptions &options,
                               bool partitionDirectory, Communicator &comm) {
  const TrainSettings &settings = program.settings;
  if (partitionDirectory) {
    // Rows kept in the dataset's file are mapped where full-graph entry
    // points read them; sampled batches and learned rows copy theirs.
    const bool mapFeatureRows =
        program.numBlocks == 0 && settings.embedDim == 0;
    PartitionManifest manifest;
    Partition part =
        readPartition(options.dataDir, comm.rank(), comm.size(), &manifest);
    checkPartitionedLikeProgram(options.dataDir, manifest, settings);
    TrainingData t =
        preparePartition(std::move(part), comm, settings.normalizeFeatures,
                         program.needsEdgeIds, mapFeatureRows);
    // The same learned rows as a whole-graph start: keyed by global ids.
    if (settings.embedDim > 0)
      addLearnedRows(t.data, settings.embedDim, program.settings.seed,
                     options.dataDir, t.nodeIds.data());
    return t;
  }
  return partitionAtStartup(preprocessedDataset(program, options), program,
                            options, comm, /*cacheAssignment=*/true);
}

TrainingData partitionAtStartup(Dataset ds, const CompiledProgram &program,
                                const DriverOptions &options,
                                Communicator &comm, bool cacheAssignment) {
  const TrainSettings &settings = program.settings;
  PartitionOptions partition;
  partition.numParts = comm.size();
  partition.method = partitionMethodFromName(settings.partition)
                         .value_or(PartitionMethod::Metis);
  partition.balance = defaultBalance(ds);
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
  PartitionPlan plan = buildPartitionPlan(
      ds,
      cacheAssignment ? cachedPartitionNodes(ds, partition, options, comm)
                      : partitionNodes(ds, partition),
      comm.size(), EdgeAssign::Dst);
  if (partition.cacheRatio > 0)
    addFeatureCache(plan, ds, partition);
  return preparePartition(extractPartition(ds, plan, comm.rank()), comm,
                          /*normalizeFeatures=*/false, program.needsEdgeIds,
                          /*mapFeatureRows=*/false,
                          /*trainsNodes=*/!settings.links.enabled);
}

/// Every relation and node type the model selects by name must be in the
/// data, before anything trains.
static void checkRelationUses(const CompiledProgram &program,
                              const Dataset &data, const Communicator &comm) {
  for (const RelationUse &use : program.relationUses) {
    try {
      findRelation(data.relations, data.nodeTypes, use.name);
    } catch (const DataError &e) {
      throw DataError(use.location + ": " + e.what());
    }
  }
  for (const NameUse &use : program.nodeTypeUses) {
    try {
      findNodeType(data.nodeTypes, use.name);
    } catch (const DataError &e) {
      throw DataError(use.location + ": " + e.what());
    }
  }
  // The relations given fanouts of their own (errors carry the location).
  relationFanoutsOf(program.settings, data.relations, data.nodeTypes);
}

void ScheduleBase::prepare() {
  trainingData = loadData();
  checkRelationUses(program, trainingData.data, comm);
  if (!program.outputColumns)
    return;
  const int64_t classes = trainingData.data.numClasses;
  const int64_t columns =
      program.outputColumns({trainingData.data.numFeatures, classes,
                             int64_t(trainingData.data.relations.size()),
                             trainingData.numGlobalNodes});
  // A graph-level program's output rows are graphs.
  const char *row =
      program.settings.graphBatches.batchSize > 0 ? "graph" : "node";
  if (columns != classes)
    throw DataError("model " + program.model + " outputs " +
                    std::to_string(columns) + " columns per " + row +
                    ", but the dataset has " + std::to_string(classes) +
                    " classes: the last layer's width must be the class "
                    "count");
}

void ScheduleBase::bind(ParameterStore<float> &store) {
  params = &store;
  // trainStep and forward never run at the same time: one set of buffers
  // serves both, so an evaluation neither adds its plan to the train step's
  // nor makes the next epoch fault its buffers in again.
  forwardWorkspace.shareBuffersWith(trainWorkspace);
  trainCtx = makeContext(trainingData, program.settings.seed, trainWorkspace);
  forwardCtx =
      makeContext(trainingData, program.settings.seed, forwardWorkspace);
  store.bind(trainCtx);
  store.bind(forwardCtx);
  TrainingData &t = trainingData;
  if (program.settings.embedDim > 0 && t.data.isHeterogeneous())
    learned = std::make_unique<LearnedInputs>(
        t.data, t.nodeIds.empty() ? nullptr : t.nodeIds.data());
  logits.resize(
      size_t(trainingData.data.numNodes * trainingData.data.numClasses));
}

std::optional<LearnedInputsSnapshot>
ScheduleBase::learnedInputsSnapshot(bool moments) {
  if (!learned)
    return std::nullopt;
  return snapshotLearnedInputs(*learned, comm, moments);
}

Accuracies ScheduleBase::evaluateBetweenEpochs() {
  // The buffers stay: forward reuses the train step's (bind), and the next
  // epoch finds them in place.
  return evaluate();
}

void ScheduleBase::printPlanStats(const TrainingResult &result) const {
  if (comm.rank() != 0)
    return;
  // Weights, then running statistics (ParamInfo::buffer), as PyTorch
  // counts parameters and buffers apart.
  int64_t elements[2] = {0, 0}, tensors[2] = {0, 0};
  for (size_t i = 0; i < params->size(); ++i) {
    const bool buffer = params->info[i].buffer;
    elements[buffer] += int64_t(params->values[i].size());
    ++tensors[buffer];
  }
  std::printf("stats: parameters %lld in %lld tensors", (long long)elements[0],
              (long long)tensors[0]);
  if (tensors[1])
    std::printf(", running statistics %lld in %lld tensors",
                (long long)elements[1], (long long)tensors[1]);
  std::printf("\n");
  if (program.deviceWorkspaceBytes) {
    // The CUDA target's entry points plan on the device: one allocation
    // for both.
    std::printf("stats: device workspace %lld bytes in one allocation "
                "(unplanned: trainStep %lld, forward %lld)\n",
                (long long)program.deviceWorkspaceBytes(),
                (long long)trainCtx.unplannedBytes,
                (long long)forwardCtx.unplannedBytes);
    if (program.deviceTransfers) {
      // Parameters resident on the device cross only before the first
      // step and for checkpoints: a count that does not grow with steps.
      const DeviceTransfers t = program.deviceTransfers();
      std::printf("stats: host<->device copies over %lld train steps: "
                  "parameters and optimizer state %lld bytes, batches %lld "
                  "bytes, once %lld bytes, evaluation %lld bytes\n",
                  (long long)t.trainSteps, (long long)t.parameterBytes,
                  (long long)t.batchBytes, (long long)t.onceBytes,
                  (long long)t.evaluationBytes);
      if (program.numBlocks > 0)
        std::printf("stats: batches copied while the step before ran: "
                    "%lld of %lld\n",
                    (long long)t.stagedSteps, (long long)t.trainSteps);
    }
  } else {
    std::printf("stats: trainStep workspace %lld bytes (unplanned %lld)\n",
                (long long)trainWorkspace.bytes(),
                (long long)trainCtx.unplannedBytes);
    std::printf("stats: forward workspace %lld bytes (unplanned %lld)\n",
                (long long)forwardWorkspace.bytes(),
                (long long)forwardCtx.unplannedBytes);
    std::printf("stats: workspace held %lld bytes (shared by both)\n",
                (long long)trainWorkspace.heldBytes());
  }
  if (trainingData.originalMissRate > 0)
    std::printf("stats: node order %s (modeled gather misses of 512-byte "
                "rows through a %lld KiB cache: %.3f in the original order, "
                "%.3f in this one)\n",
                trainingData.nodeOrder.c_str(),
                (long long)(lastLevelCacheBytes() >> 10),
                trainingData.originalMissRate, trainingData.missRate);
  else
    std::printf("stats: node order %s\n", trainingData.nodeOrder.c_str());
  std::printf("stats: mean epoch %.6f s over %lld epochs\n",
              result.trainSeconds / double(result.last.epoch),
              (long long)result.last.epoch);
}

void ScheduleBase::printRankStats(const TrainingResult &result,
                                  double otherCommSeconds) const {
  const double epochs = double(std::max<int64_t>(1, result.last.epoch));
  const double commSeconds = otherCommSeconds + result.allReduceSeconds;
  std::printf("stats: rank %d all_reduce %lld bytes/epoch\n", comm.rank(),
              (long long)(result.allReduceBytes / epochs));
  std::printf("stats: rank %d seconds compute %.6f communication %.6f\n",
              comm.rank(), result.trainSeconds - commSeconds, commSeconds);
  std::printf("stats: rank %d peak RSS %lld KiB\n", comm.rank(),
              (long long)peakRssKiB());
}

LoadOptions datasetLoadOptions(const TrainSettings &settings) {
  LoadOptions load;
  load.addReverseEdges = settings.addReverseEdges;
  load.addSelfLoops = settings.addSelfLoops;
  load.dedupe = true;
  load.splitName = settings.split;
  load.useCache = true;
  return load;
}

Dataset readDataset(const TrainSettings &settings, const DriverOptions &options,
                    LoadOptions load) {
  if (!options.dataDir.empty())
    return loadDataset(options.dataDir, load);
  Dataset ds = generateDataset(settings.generator);
  load.numClasses = settings.generator.numClasses;
  finalizeDataset(ds, load);
  return ds;
}

Dataset loadPreprocessedDataset(const CompiledProgram &program,
                                const DriverOptions &options) {
  return preprocessedDataset(program, options);
}

} // namespace gnnrt
