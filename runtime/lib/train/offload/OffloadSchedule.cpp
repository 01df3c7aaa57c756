//===- OffloadSchedule.cpp - full-graph training out of core --------------===//
//
// See OffloadSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "OffloadSchedule.h"

#include "gnnrt/comm/HaloExchange.h"
#include "gnnrt/data/DatasetFormat.h"
#include "gnnrt/data/DatasetSlice.h"
#include "gnnrt/data/Generator.h"
#include "gnnrt/partition/DistributedPartitioner.h"
#include "gnnrt/partition/PartitionDirectory.h"
#include "gnnrt/partition/Partitioner.h"
#include "gnnrt/support/Error.h"
#include "params/OptimizerStep.h"
#include "schedule/EarlyStopping.h"
#include "schedule/ScheduleBase.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gnnrt {

/// One partition: a rank of a distributed full-graph run, on a turn-taking
/// communicator, whose train step the OffloadSchedule drives.
class OffloadPart : public DistributedFullGraphSchedule {
public:
  OffloadPart(const CompiledProgram &program, const DriverOptions &options,
              Communicator &comm)
      : DistributedFullGraphSchedule(program, options, comm,
                                     /*partitionDirectory=*/true) {}

  /// This part's share of the loss; its gradients are added into the
  /// shared parameters' (ScheduleBase::bind bound them). Learned input rows
  /// (`embed`) are updated with `rowsConfig` at the end of the part's step,
  /// in its turn: its rows' gradient is complete once its backward
  /// returned (the other parts' halo gradients arrived in it), and no part
  /// reads them again before the next step, so the update is the one a
  /// worker rank makes after the all-reduce, without another round of
  /// turns faulting every part's rows in again.
  double trainStep(int64_t epoch, const OptimizerConfig &rowsConfig) {
    trainCtx.step = uint64_t(epoch - 1);
    if (learned)
      trainCtx.inputGrad = learned->beginStep();
    const double loss = program.trainStepF32(trainCtx);
    if (learned)
      learned->update(rowsConfig);
    return loss;
  }

  /// Part 0: the memory plan and the epoch time; every part: the halo
  /// rows it received. Not a rank's compute/communication split: a part's
  /// waits include the other parts' turns.
  void printStats(const TrainingResult &result) const override {
    printPlanStats(result);
    const double epochs = double(std::max<int64_t>(1, result.last.epoch));
    std::printf("stats: part %d halo received %lld bytes/epoch forward, "
                "%lld backward\n",
                comm.rank(),
                (long long)(trainingData.halo->forwardTraffic().receivedBytes /
                            epochs),
                (long long)(trainingData.halo->backwardTraffic().receivedBytes /
                            epochs));
  }
};

namespace {

/// What the process holds besides the partition in its turn: code, the
/// heap's small allocations, the parameters and the ring's chunk buffers.
constexpr int64_t kFixedBytes = int64_t(64) << 20;
/// A stored edge's bytes in RAM: the local graph both ways (a 4-byte
/// source and an 8-byte edge id per direction) and the halo exchange's
/// split copies of it.
constexpr int64_t kBytesPerEdge = 40;
/// One FileArena per part (at most 64, each with its own address range).
constexpr int64_t kMaxParts = 64;
/// A halo node's bytes in RAM when its feature row is not held: its global
/// id, owner and degree, its place in the ring's chunk graphs, and the
/// temporaries that build them.
constexpr int64_t kBytesPerHaloNode = 48;

/// A field of /proc/self/status in bytes ("RssAnon:", "RssFile:"); 0 if
/// the kernel has none.
int64_t residentBytesOf(const char *field) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(field, 0) == 0)
      return int64_t(std::atoll(line.c_str() + std::strlen(field))) << 10;
  return 0;
}

/// `bytes` rounded up to a whole MiB: a budget that is enough.
int64_t wholeMiBAbove(int64_t bytes) {
  return (bytes + (int64_t(1) << 20) - 1) >> 20 << 20;
}

std::string mib(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f MiB", double(bytes) / (1 << 20));
  return text;
}

/// The error for a budget that would need more than kMaxParts parts,
/// with the smallest budget that kMaxParts parts would fit (as the part
/// count is chosen: the whole working set and a quarter more for the
/// halos, split kMaxParts ways, beside the trainer's own).
DataError tooManyParts(int64_t budget, const std::string &what,
                       int64_t numParts, int64_t wholeBytes) {
  const int64_t smallest =
      int64_t(std::ceil(1.25 * double(wholeBytes) / double(kMaxParts))) +
      kFixedBytes;
  return DataError("--memory-budget " + mib(budget) + " would split " + what +
                   " into " + std::to_string(numParts) +
                   " partitions (its whole working set is about " +
                   mib(wholeBytes) + "); at most " + std::to_string(kMaxParts) +
                   " are supported: raise the budget to at least " +
                   mib(wholeMiBAbove(std::max(smallest, budget + 1))));
}

/// Floats per node of the memory plan's activations, estimated from the
/// parameters: per owned node four per weight column (a layer's output,
/// its pre-activation and their gradients; the plan reuses the rest's
/// slots) and the logits (GCN, hidden 128, on the 1M-node graph: 592
/// against the plan's 514); per local node two per relational layer's
/// input column.
ActivationFloats activationFloatsPerNode(const CompiledProgram &program,
                                         const DataDims &dims) {
  int64_t columns = 0, relational = 0;
  for (const ParamInfo &p : program.params(dims)) {
    if (p.shape.size() == 2)
      columns += p.shape[1];
    // A weight per relation (or basis), [R, in, out]: the layer reads its
    // input at every local node, halo included, and the backward its
    // gradient (a 1M-node mag graph's R-GCN part, 2.6 halo nodes per owned
    // one, measured 1.5 GB where the owned nodes' columns counted 0.5).
    if (p.shape.size() == 3)
      relational += 2 * p.shape[1];
  }
  // Learned input rows (`embed = D`): their two Adam moments and the
  // step's gradient beside the rows themselves (counted as features).
  return {4 * columns + dims.classes + 3 * program.settings.embedDim,
          relational};
}

/// The width of a part's input rows: its features, or with `embed = D`
/// its learned rows (featured node types then have D features too; a
/// partition directory of a featureless graph says 0).
int64_t inputWidth(const CompiledProgram &program, int64_t numFeatures) {
  return program.settings.embedDim > 0 ? program.settings.embedDim
                                       : numFeatures;
}

/// DIR, created if missing; an error unless it is a writable directory.
void requireWritableDirectory(const std::string &dir) {
  if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    throw DataError("--offload " + dir + ": cannot create the directory (" +
                    std::strerror(errno) + ")");
  struct stat info {};
  if (stat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    throw DataError("--offload " + dir + ": not a directory");
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    throw DataError("--offload " + dir + ": not writable (" +
                    std::strerror(errno) + ")");
}

/// The whole graph's node, edge, feature and class counts of a dataset
/// whose layout has slice readers (DatasetFormat.h), without loading it
/// (DatasetCounts), edges as the trainer loads them: reverse edges and self
/// loops added, before repeats are removed. False for another layout, or
/// one that cannot count the nodes without reading every edge.
bool sliceableDatasetCounts(const std::string &dir, const LoadOptions &load,
                            const TrainSettings &settings, PartCounts &whole,
                            int64_t &features, int64_t &classes,
                            int64_t &relations) {
  const DatasetFormatInfo &format = datasetFormat(dir);
  if (!format.readCounts ||
      (format.countsWithoutEdges && !format.countsWithoutEdges(dir)))
    return false;
  const DatasetCounts counts = readDatasetCounts(dir, load);
  whole = {};
  whole.ownedNodes = counts.numNodes;
  whole.edges = counts.numEdges;
  features = counts.numFeatures;
  classes = counts.numClasses;
  relations = counts.numRelations;
  if (settings.addReverseEdges)
    whole.edges *= 2;
  if (settings.addSelfLoops)
    whole.edges += whole.ownedNodes;
  return whole.ownedNodes > 0;
}

/// A rank's RAM while the distributed partitioner runs on `ranks` ranks:
/// its feature rows (`features` 0 when they stay in place), its edges with
/// the distributed graph's copies of them, and the node-indexed tables
/// every rank holds (labels, splits, the assignment, the partition book).
int64_t sliceBytes(const PartCounts &whole, int64_t features, int64_t ranks) {
  return whole.ownedNodes / ranks * features * 4 +
         whole.edges / ranks * 64 + whole.ownedNodes * 24;
}

/// The start-up's RAM when it generates the program's dataset whole and
/// partitions it with METIS: the features, about 80 bytes per stored edge
/// (the edge lists, their reverse, the CSR and METIS's graph; 78 measured
/// on the 200k-node graph, 70 on offload.test's) and 64 per node, beside
/// the trainer's own.
int64_t wholeStartUpBytes(const TrainSettings &settings) {
  const GeneratorOptions &g = settings.generator;
  const int64_t edges = g.numEdges * (settings.addReverseEdges ? 2 : 1) +
                        (settings.addSelfLoops ? g.numNodes : 0);
  return g.numNodes * (g.numFeatures * 4 + 64) + edges * 80 + (16 << 20);
}

/// Removes `dir` if it holds only .npy files (what an earlier run wrote
/// there), so that it can be written again.
void removeEarlierArrays(const std::string &dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return;
  bool ours = true;
  for (const auto &entry : std::filesystem::directory_iterator(dir, ec))
    ours = ours && entry.path().extension() == ".npy";
  if (ours)
    std::filesystem::remove_all(dir, ec);
}

/// The absolute path of `dataDir`'s feature file if the parts can read
/// their rows there (the layout's featuresInPlace). "" if not. Throws
/// DataError for a file whose header is malformed or whose data is
/// truncated, before anything is written.
std::string featuresReadInPlace(const std::string &dataDir) {
  const DatasetFormatInfo &format = datasetFormat(dataDir);
  return format.featuresInPlace ? format.featuresInPlace(dataDir) : "";
}

} // namespace

ArenaResidency::ArenaResidency(int64_t usableBytes,
                               std::vector<FileArena *> arenas,
                               std::vector<int64_t> estimatedBytes,
                               int64_t outsideBytes)
    : usable(usableBytes), outside(outsideBytes),
      codeBytes(residentBytesOf("RssFile:")), arenas(std::move(arenas)),
      estimated(std::move(estimatedBytes)) {}

int64_t ArenaResidency::measuredOutsideBytes() const {
  return residentBytesOf("RssAnon:") + codeBytes;
}

void ArenaResidency::takeTurn(int to) {
  resident.erase(std::remove(resident.begin(), resident.end(), to),
                 resident.end());
  resident.push_back(to);
  int64_t held =
      std::max(estimated[size_t(to)], arenas[size_t(to)]->peakBytes());
  // What the arenas' share did not foresee outside them (a heap grown by
  // small allocations, OpenBLAS's buffers) comes out of their share.
  if (outside > 0)
    held += std::max<int64_t>(0, measuredOutsideBytes() - outside);
  for (int k : resident)
    if (k != to)
      held += arenas[size_t(k)]->residentBytes();
  while (held > usable && resident.size() > 1) {
    FileArena &oldest = *arenas[size_t(resident.front())];
    held -= oldest.residentBytes();
    oldest.dropPages();
    resident.erase(resident.begin());
  }
}

bool ArenaResidency::isResident(int k) const {
  return std::find(resident.begin(), resident.end(), k) != resident.end();
}

void ArenaResidency::dropAll() {
  for (FileArena *arena : arenas)
    arena->dropPages();
  resident.clear();
}

int64_t offloadPartBytes(const PartCounts &part, int64_t features,
                         const ActivationFloats &activations,
                         bool featuresInPlace) {
  const int64_t halo = featuresInPlace ? part.haloNodes * kBytesPerHaloNode
                                       : part.haloNodes * features * 4;
  return part.ownedNodes * features * 4 + halo +
         part.ownedNodes * activations.perOwnedNode * 4 +
         (part.ownedNodes + part.haloNodes) * activations.perLocalNode * 4 +
         part.edges * kBytesPerEdge;
}

OffloadSchedule::OffloadSchedule(const CompiledProgram &program,
                                 const DriverOptions &options,
                                 Communicator &comm)
    : program(program), options(options), comm(comm), partOptions(options) {
  // Checked before anything is partitioned or written (TrainLoop checks it
  // again for any schedule).
  if (!options.evalOnly)
    EarlyStopping(program.settings).requireLearnedRows(nullptr);
}

OffloadSchedule::~OffloadSchedule() {
  // No read-ahead may touch an arena that goes; the parts' buffers live in
  // the arenas' files: free them before the arenas.
  readahead.reset();
  // Destroying a part reads its blocks' headers and its containers' inner
  // pointers, faulting its pages in: drop each part's pages as it goes, or
  // the teardown holds every part at once (131 MiB under a 200M budget
  // whose training peaked at 67 MiB, on the 200k-node graph).
  for (size_t k = parts.size(); k-- > 0;) {
    parts[k].reset();
    if (k < arenas.size())
      arenas[k]->dropPages();
  }
  parts.clear();
  turns.reset();
  arenas.clear();
}

void OffloadSchedule::checkBudget(const PartitionManifest &manifest,
                                  const std::string &dir) const {
  const int64_t usable = program.settings.memoryBudget - kFixedBytes;
  const ActivationFloats perNode = activationFloatsPerNode(
      program, {inputWidth(program, manifest.numFeatures), manifest.numClasses,
                int64_t(manifest.relations.size()), manifest.numNodes});
  int64_t largest = 0;
  size_t which = 0;
  for (size_t k = 0; k < manifest.parts.size(); ++k) {
    const int64_t bytes = offloadPartBytes(
        manifest.parts[k], inputWidth(program, manifest.numFeatures), perNode,
        !manifest.featuresInPlace.empty());
    if (bytes > largest) {
      largest = bytes;
      which = k;
    }
  }
  if (largest <= usable)
    return;
  const PartCounts &p = manifest.parts[which];
  const int64_t enough = wholeMiBAbove(largest + kFixedBytes);
  const double parts =
      std::ceil(double(manifest.parts.size()) * double(largest) / usable);
  throw DataError(dir + ": part " + std::to_string(which) + " needs about " +
                  mib(enough) + " of RAM (" + std::to_string(p.ownedNodes) +
                  " nodes, " + std::to_string(p.haloNodes) + " halo nodes, " +
                  std::to_string(p.edges) + " edges, with the trainer's own " +
                  mib(kFixedBytes) + "), more than --memory-budget " +
                  mib(program.settings.memoryBudget) +
                  ": give a budget of at least " + mib(enough) +
                  ", or partition the graph into about " +
                  std::to_string(int64_t(parts)) + " parts");
}

std::string OffloadSchedule::partitionDirectory() {
  if (!options.dataDir.empty() &&
      std::ifstream(options.dataDir + "/manifest.json").good())
    return options.dataDir;
  // Learned input rows need the parts' node types, which the streamed
  // partitioner writes for a typed .npy dataset only: an untyped dataset
  // with learned rows is partitioned whole, as the typed OGB layout is.
  if (!options.dataDir.empty() &&
      (program.settings.embedDim == 0 ||
       datasetFormat(options.dataDir).format == DatasetFormat::NpyHetero)) {
    std::string streamed = streamPartitions(npyDataset(options.dataDir));
    if (!streamed.empty())
      return streamed;
  }
  // A generated dataset held whole does not fit: written as .npy arrays
  // as it is drawn, it is partitioned like any other.
  if (options.dataDir.empty() && program.settings.embedDim == 0 &&
      program.settings.generator.kind != GraphKind::Mag &&
      wholeStartUpBytes(program.settings) > program.settings.memoryBudget)
    return streamPartitions(generatedNpyDataset(),
                            program.settings.generator.numClasses);
  // The partitions keep the dataset's features as loaded: each part
  // normalizes its rows itself, as a partition directory's do.
  CompiledProgram raw = program;
  raw.settings.normalizeFeatures = false;
  Dataset ds = loadPreprocessedDataset(raw, options);
  const int64_t usable = program.settings.memoryBudget - kFixedBytes;
  const ActivationFloats perNode = activationFloatsPerNode(
      program, {ds.numFeatures, ds.numClasses, int64_t(ds.relations.size()),
                ds.numNodes});
  PartCounts whole;
  whole.ownedNodes = ds.numNodes;
  whole.edges = int64_t(ds.src.size());
  PartitionOptions partition;
  partition.method = PartitionMethod::Metis;
  partition.balance = defaultBalance(ds);
  // Parts as the budget needs, with a quarter more for their halos;
  // more if a part still comes out too large.
  const int64_t wholeBytes = offloadPartBytes(whole, ds.numFeatures, perNode);
  int64_t numParts = std::max<int64_t>(
      1, int64_t(std::ceil(1.25 * double(wholeBytes) /
                           double(std::max<int64_t>(1, usable)))));
  PartitionManifest manifest;
  manifest.dataset = options.dataDir;
  manifest.split = program.settings.split;
  manifest.addReverseEdges = program.settings.addReverseEdges;
  manifest.addSelfLoops = program.settings.addSelfLoops;
  manifest.dedupe = true;
  manifest.method = partition.method;
  manifest.balance = partition.balance;
  for (int attempt = 0;; ++attempt) {
    if (numParts > kMaxParts)
      throw tooManyParts(program.settings.memoryBudget,
                         options.dataDir.empty() ? std::string("the dataset")
                                                 : options.dataDir,
                         numParts, wholeBytes);
    partition.numParts = int(numParts);
    PartitionPlan plan =
        buildPartitionPlan(ds, partitionNodes(ds, partition),
                           int(numParts), EdgeAssign::Dst);
    manifest.parts.clear();
    fillManifestCounts(manifest, ds, plan);
    int64_t largest = 0;
    for (const PartCounts &p : manifest.parts)
      largest =
          std::max(largest, offloadPartBytes(p, ds.numFeatures, perNode));
    if (largest <= usable || attempt == 3) {
      const std::string dir = program.settings.offloadDir + "/partitions";
      writePartitions(dir, ds, plan, manifest);
      return dir;
    }
    numParts = int64_t(std::ceil(double(numParts) * double(largest) /
                                 double(usable)));
  }
}

std::string OffloadSchedule::npyDataset(const std::string &dataDir) {
  const DatasetFormatInfo &format = datasetFormat(dataDir);
  if (!format.convertToNpy)
    return dataDir;
  // A gzip stream cannot be entered in the middle, so every partitioner
  // rank would parse the whole text for its rows: convert it once, in a
  // chunk's memory, and partition the arrays (their rows then read in
  // place). A conversion an earlier run left (only .npy files) is redone.
  const std::string converted = program.settings.offloadDir + "/npy";
  removeEarlierArrays(converted);
  // The split and class count apply; edges are converted as stored (the
  // partitioner adds reverse edges and self loops as it loads them).
  format.convertToNpy(dataDir, converted, datasetLoadOptions(program.settings));
  return converted;
}

std::string OffloadSchedule::generatedNpyDataset() {
  // Drawn in chunks as the files are written (writeGeneratedDataset): the
  // same bytes generateDataset returns, in memory that does not grow with
  // the edges or the feature width. Generated whole with METIS's graph,
  // 200k nodes, 3M edges and 128 features peaked at 589 MiB under a 200M
  // budget.
  const std::string dir = program.settings.offloadDir + "/npy";
  removeEarlierArrays(dir);
  writeGeneratedDataset(program.settings.generator, dir, /*npy=*/true);
  return dir;
}

std::string OffloadSchedule::streamPartitions(const std::string &dataDir,
                                              int64_t numClasses) {
  const TrainSettings &settings = program.settings;
  LoadOptions load = datasetLoadOptions(settings);
  load.useCache = false;
  if (numClasses > 0)
    load.numClasses = numClasses;
  PartCounts whole;
  int64_t features = 0, classes = 0, relations = 0;
  if (!sliceableDatasetCounts(dataDir, load, settings, whole, features, classes,
                              relations))
    return "";
  const int64_t usable = program.settings.memoryBudget - kFixedBytes;
  const ActivationFloats perNode = activationFloatsPerNode(
      program, {features, classes, relations, whole.ownedNodes});
  PartitionManifest fields;
  // The parts read their rows from the dataset's file: no copy in the
  // partition directory or in their files under DIR.
  fields.featuresInPlace = featuresReadInPlace(dataDir);
  const bool inPlace = !fields.featuresInPlace.empty();
  const int64_t wholeBytes =
      offloadPartBytes(whole, features, perNode, inPlace);
  int64_t numParts = std::max<int64_t>(
      1, int64_t(std::ceil(1.25 * double(wholeBytes) / double(usable))));
  fields.dataset = dataDir;
  fields.split = settings.split;
  fields.addReverseEdges = settings.addReverseEdges;
  fields.addSelfLoops = settings.addSelfLoops;
  fields.dedupe = true;
  const std::string dir = program.settings.offloadDir + "/partitions";
  for (int attempt = 0;; ++attempt) {
    if (numParts > kMaxParts)
      throw tooManyParts(program.settings.memoryBudget, dataDir, numParts,
                         wholeBytes);
    PartitionOptions partition;
    // Blocks, whose ranks hold their slices only. The multilevel method
    // cuts fewer edges but gathers its coarsest graph and METIS's work on
    // one rank outside the slices' files: the start-up of a 40,000-node mag
    // graph peaked anywhere from 66 to 97 MiB under an 80M budget.
    partition.method = PartitionMethod::Blocks;
    partition.numParts = int(numParts);
    partition.balance = {BalanceConstraint::Nodes};
    // One rank per part, each with its slice of the files in a file of
    // its own; the ranks take turns, as the parts do in training.
    const int ranks = int(numParts);
    std::vector<std::unique_ptr<FileArena>> sliceArenas;
    std::vector<FileArena *> views;
    for (int k = 0; k < ranks; ++k) {
      sliceArenas.push_back(
          std::make_unique<FileArena>(program.settings.offloadDir, k, ranks));
      views.push_back(sliceArenas.back().get());
    }
    ArenaResidency slices(
        usable, views,
        std::vector<int64_t>(size_t(ranks),
                             sliceBytes(whole, inPlace ? 0 : features, ranks)));
    TurnTaking partitioners(
        ranks,
        [&](int, int to) {
          if (to >= 0)
            slices.takeTurn(to);
        },
        [](const void *p, size_t bytes) { FileArena::dropRange(p, bytes); });
    slices.takeTurn(0); // rank 0 starts without a hand-over
    partitioners.run([&](int k) {
      ArenaScope scope(sliceArenas[size_t(k)].get());
      partitionDistributed(partitioners.communicator(k), dataDir, load,
                           partition, dir, fields);
    });
    // Read back outside the arenas, which go with this attempt.
    const PartitionManifest manifest = readPartitionManifest(dir);
    // The halos are known now: partition again into more parts if one
    // came out too large.
    int64_t largest = 0;
    for (const PartCounts &p : manifest.parts)
      largest =
          std::max(largest, offloadPartBytes(p, features, perNode, inPlace));
    if (largest <= usable || attempt == 3)
      return dir;
    numParts = int64_t(
        std::ceil(double(numParts) * double(largest) / double(usable)));
  }
}

void OffloadSchedule::prepare() {
  const std::string &dir = program.settings.offloadDir;
  if (comm.size() > 1)
    throw DataError("--offload trains in one process, whose partitions take "
                    "turns: run it without mpirun (" +
                    std::to_string(comm.size()) + " ranks are running)");
  if (program.numBlocks > 0)
    throw DataError("--offload trains full-graph programs; " + program.model +
                    " samples mini-batches (batches = neighbor(...)), "
                    "whose working set is one batch: train it without "
                    "--offload");
  requireWritableDirectory(dir);
  if (program.settings.memoryBudget <= kFixedBytes)
    throw DataError("--memory-budget " + mib(program.settings.memoryBudget) +
                    " is below what the trainer holds besides the graph (" +
                    mib(kFixedBytes) + ")");
  // The parts (and the start-up's partitioner ranks) are threads that take
  // turns: one malloc arena serves them, where glibc would reserve 64 MiB
  // of address space for each thread's own, which under `ulimit -v` left
  // OpenMP no room for its threads.
  rlimit addressSpace{};
  if (getrlimit(RLIMIT_AS, &addressSpace) == 0 &&
      addressSpace.rlim_cur != RLIM_INFINITY)
    mallopt(M_ARENA_MAX, 1);

  partOptions.dataDir = partitionDirectory();
  // Partitioning held the whole dataset: give the heap's freed pages back
  // before the parts fill the budget.
  malloc_trim(0);
  const PartitionManifest manifest = readPartitionManifest(partOptions.dataDir);
  checkBudget(manifest, partOptions.dataDir);
  const int numParts = int(manifest.parts.size());
  const ActivationFloats perNode = activationFloatsPerNode(
      program, {inputWidth(program, manifest.numFeatures), manifest.numClasses,
                int64_t(manifest.relations.size()), manifest.numNodes});
  std::vector<int64_t> estimatedBytes;
  for (const PartCounts &part : manifest.parts)
    estimatedBytes.push_back(
        offloadPartBytes(part, inputWidth(program, manifest.numFeatures),
                         perNode, !manifest.featuresInPlace.empty()));

  // Remote rows arrive in chunks around the ring (SAR's sequential
  // aggregation), never as a whole halo. A copy into or out of another
  // part's chunk drops those pages again at once (TurnTaking's
  // onForeignBytes), so only the running part's three chunk buffers are
  // in RAM: they get an eighth of the budget. Chunks are as large as that
  // allows, since every ring step is a round of turns (on the 1M-node
  // graph, 65536 rows instead of 15360 made the epoch 0.76x).
  setenv("GNNRT_HALO_BUDGET_MB", "0", /*overwrite=*/0);
  const DataDims dims{inputWidth(program, manifest.numFeatures),
                      manifest.numClasses, int64_t(manifest.relations.size()),
                      manifest.numNodes};
  int64_t width = dims.features;
  for (const ParamInfo &p : program.params(dims))
    if (p.shape.size() == 2)
      width = std::max(width, p.shape[1]);
  const int64_t chunkRows =
      std::max<int64_t>(256, (program.settings.memoryBudget - kFixedBytes) / 8 /
                                 3 / (std::max<int64_t>(1, width) * 4));
  setenv("GNNRT_RING_CHUNK_ROWS", std::to_string(chunkRows).c_str(),
         /*overwrite=*/0);
  // A program's `aggregation = one_shot` holds a part's whole halo and the
  // rows it sends, which the estimate leaves out (nearly every node of the
  // 200k-node graph in 8 parts: a 1.51x peak over a 200M budget). One that
  // needs more than the chunks' share, or than the largest part's estimate
  // leaves of the budget if that is more, runs in chunks too.
  const int64_t usable = program.settings.memoryBudget - kFixedBytes;
  const int64_t largestEstimate =
      *std::max_element(estimatedBytes.begin(), estimatedBytes.end());
  HaloExchange::setOneShotLimitBytes(
      std::max(usable / 8, usable - largestEstimate));

  std::vector<FileArena *> views;
  for (int k = 0; k < numParts; ++k) {
    arenas.push_back(std::make_unique<FileArena>(dir, k, numParts));
    views.push_back(arenas.back().get());
  }
  residency = std::make_unique<ArenaResidency>(
      program.settings.memoryBudget - kFixedBytes, views,
      std::move(estimatedBytes), kFixedBytes);
  const char *readAhead = std::getenv("GNNRT_OFFLOAD_READAHEAD");
  if (numParts > 1 && !(readAhead && std::string(readAhead) == "0"))
    readahead = std::make_unique<PageReadahead>();
  turns = std::make_unique<TurnTaking>(
      numParts, [this](int from, int to) { handOver(from, to); },
      [](const void *p, size_t bytes) { FileArena::dropRange(p, bytes); });
  for (int k = 0; k < numParts; ++k)
    parts.push_back(std::make_unique<OffloadPart>(program, partOptions,
                                                  turns->communicator(k)));
  runTurns([&](int k) {
    ArenaScope scope(arenas[size_t(k)].get());
    parts[size_t(k)]->prepare();
  });

  const TrainingData &first = parts[0]->data();
  summary.data.numFeatures = first.data.numFeatures;
  summary.data.numClasses = first.data.numClasses;
  summary.data.relations = first.data.relations;
  summary.numGlobalNodes = first.numGlobalNodes;
  summary.data.numNodes = first.numGlobalNodes;
  startUpPeakBytes = peakResidentBytes();
}

void OffloadSchedule::handOver(int from, int to) {
  (void)from;
  if (to < 0)
    return;
  residency->takeTurn(to);
  const int next = (to + 1) % int(arenas.size());
  if (readahead && next != to && !residency->isResident(next))
    readahead->request(arenas[size_t(next)].get());
}

void OffloadSchedule::runTurns(const std::function<void(int)> &work) {
  // Part 0 starts every stage without a hand-over (TurnTaking runs it
  // first): make room for it as a hand-over does, or the part that ran
  // last in the previous stage stays in RAM beside it (with feature rows
  // read in place, two parts' rows: over the budget).
  handOver(-1, 0);
  turns->run(work);
}

void OffloadSchedule::bind(ParameterStore<float> &params) {
  // Every part binds the same parameters and gradients.
  runTurns([&](int k) {
    ArenaScope scope(arenas[size_t(k)].get());
    parts[size_t(k)]->bind(params);
  });
}

double OffloadSchedule::trainEpoch(int64_t epoch, OptimizerStep &step) {
  const OptimizerConfig &rowsConfig = step.state().config();
  return step([&] {
    std::vector<double> losses(parts.size());
    runTurns([&](int k) {
      ArenaScope scope(arenas[size_t(k)].get());
      losses[size_t(k)] = parts[size_t(k)]->trainStep(epoch, rowsConfig);
    });
    // In part order, as the all-reduce of a distributed run sums.
    double loss = 0;
    for (double l : losses)
      loss += l;
    // The budget is a limit: say at once if the footprints outgrew it.
    if (!warnedOverBudget) {
      const std::string over = overBudget();
      if (!over.empty()) {
        std::fprintf(stderr, "warning: %s\n", over.c_str());
        warnedOverBudget = true;
      }
    }
    return loss;
  });
}

std::string OffloadSchedule::overBudget() const {
  const int64_t peak = peakResidentBytes();
  const int64_t budget = program.settings.memoryBudget;
  if (peak <= budget)
    return "";
  // A heterogeneous dataset, or one with learned rows, is partitioned
  // holding it whole (docs/out-of-core.md, Not yet).
  if (startUpPeakBytes > budget)
    return "--offload: the start-up's peak RSS " + mib(startUpPeakBytes) +
           " (partitioning the dataset held whole) is above --memory-budget " +
           mib(budget) +
           ": partition it first (gnn-partition) and train from the "
           "partition directory";
  int64_t largest = 0;
  for (const auto &arena : arenas)
    largest = std::max(largest, arena->peakBytes());
  const int64_t enough = wholeMiBAbove(
      largest +
      std::max(kFixedBytes, residency ? residency->measuredOutsideBytes() : 0));
  return "--offload: the peak RSS " + mib(peak) + " is above --memory-budget " +
         mib(budget) + " (the largest part's working set measured " +
         mib(largest) + "): give a budget of at least " + mib(enough) +
         ", or partition the graph into more parts";
}

Accuracies OffloadSchedule::evaluate() {
  std::vector<Accuracies> acc(parts.size());
  runTurns([&](int k) {
    ArenaScope scope(arenas[size_t(k)].get());
    acc[size_t(k)] = parts[size_t(k)]->evaluate();
  });
  return acc[0]; // the same on every part: the counts were summed
}

std::optional<LearnedInputsSnapshot>
OffloadSchedule::learnedInputsSnapshot(bool moments) {
  if (program.settings.embedDim == 0)
    return std::nullopt;
  // Every part's rows gathered on part 0, each part in its turn (the
  // whole tables, outside the budget, as --predict's logits are).
  std::optional<LearnedInputsSnapshot> snapshot;
  // No ArenaScope: the gathered tables are the checkpoint's, not a part's.
  runTurns([&](int k) {
    std::optional<LearnedInputsSnapshot> part =
        parts[size_t(k)]->learnedInputsSnapshot(moments);
    if (k == 0)
      snapshot = std::move(part);
  });
  return snapshot;
}

void OffloadSchedule::restoreLearnedInputs(
    const std::function<void(LearnedInputs &)> &restore) {
  runTurns([&](int k) {
    ArenaScope scope(arenas[size_t(k)].get());
    parts[size_t(k)]->restoreLearnedInputs(restore);
  });
}

const std::vector<float> &OffloadSchedule::predict() {
  const int64_t classes = summary.data.numClasses;
  logits.assign(size_t(summary.numGlobalNodes * classes), 0.0f);
  for (size_t k = 0; k < parts.size(); ++k) {
    const std::vector<float> &rows = parts[k]->predict();
    const TrainingData &t = parts[k]->data();
    for (int64_t i = 0; i < t.data.numNodes; ++i)
      std::copy(rows.begin() + i * classes, rows.begin() + (i + 1) * classes,
                logits.begin() + t.nodeIds[size_t(i)] * classes);
    arenas[k]->dropPages();
  }
  residency->dropAll();
  return logits;
}

void OffloadSchedule::printStats(const TrainingResult &result) const {
  for (const auto &part : parts)
    part->printStats(result);
  int64_t largest = 0, inPlace = 0;
  for (const auto &arena : arenas) {
    largest = std::max(largest, arena->peakBytes() - arena->mappedBytes());
    inPlace += arena->mappedBytes();
  }
  std::printf("stats: offload %zu partitions in %s, largest part's file "
              "%lld bytes\n",
              parts.size(), program.settings.offloadDir.c_str(),
              (long long)largest);
  std::printf("stats: offload feature rows read in place %lld bytes (%s)\n",
              (long long)inPlace,
              inPlace > 0 ? "mapped from the dataset's features.npy"
                          : "none: each part holds a copy of its rows");
  const int64_t peak = peakResidentBytes();
  const int64_t budget = program.settings.memoryBudget;
  std::printf("stats: offload peak RSS %lld bytes, memory budget %lld "
              "bytes, %s (%.0f%%)\n",
              (long long)peak, (long long)budget,
              peak <= budget ? "within it" : "OVER IT",
              100.0 * double(peak) / double(std::max<int64_t>(1, budget)));
  const std::string over = overBudget();
  if (!over.empty())
    std::printf("stats: offload warning: %s\n", over.c_str());
  std::printf("stats: offload read ahead %lld times (%s)\n",
              (long long)(readahead ? readahead->requests() : 0),
              readahead ? "the next part's file during each turn"
                        : "off: GNNRT_OFFLOAD_READAHEAD=0");
}

} // namespace gnnrt
