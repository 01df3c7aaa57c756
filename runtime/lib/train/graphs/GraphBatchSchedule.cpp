//===- GraphBatchSchedule.cpp - training on batches of small graphs -------===//
//
// See GraphBatchSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "GraphBatchSchedule.h"

#include "gnnrt/data/GraphFolds.h"
#include "gnnrt/sample/Sampler.h" // epochSeedOrder
#include "gnnrt/support/Error.h"
#include "gnnrt/support/Stopwatch.h"
#include "output/Predictions.h"
#include "params/OptimizerStep.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <numeric>

namespace gnnrt {

namespace {

/// The collection in --data, checked against the program's dataset source.
GraphCollection loadCollection(const TrainSettings &settings,
                               const std::string &dir) {
  const bool ogb = settings.source == "ogbg";
  if (!ogb && settings.source != "tu")
    throw DataError("batches = graphs(...) trains on a collection of graphs "
                    "(a dataset tu(...) or ogbg(...)), but dataset " +
                    settings.dataset + " is read as " + settings.source +
                    "(...)");
  const GraphCollectionFormat expected =
      ogb ? GraphCollectionFormat::OgbGraph : GraphCollectionFormat::Tu;
  GraphCollectionFormat format;
  if (isGraphCollection(dir, &format) && format != expected)
    throw DataError(dir + ": a graph collection in the " +
                    graphCollectionFormatName(format) +
                    " layout, but dataset " + settings.dataset +
                    " is read as " + settings.source + "(...), the " +
                    graphCollectionFormatName(expected) + " layout");
  GraphCollection graphs = loadGraphCollection(dir);
  if (graphs.task == GraphTask::Regression)
    throw DataError(dir + ": the graph labels are regression targets "
                          "(non-integer values); graph-level training "
                          "classifies graphs only, for now");
  if (settings.embedDim > 0)
    throw DataError(dir + ": embed = " + std::to_string(settings.embedDim) +
                    " gives featureless node types of a heterogeneous graph "
                    "learned rows; a graph collection has none");
  if (settings.addSelfLoops)
    throw DataError(dir + ": self loops are not added to graph collections "
                          "(aggregate with a self loop in the model instead)");
  if (settings.addReverseEdges)
    addReverseEdges(graphs);
  if (settings.normalizeFeatures)
    normalizeRows(graphs.features, graphs.numFeatures);
  return graphs;
}

} // namespace

std::pair<int64_t, int64_t> rankShare(int64_t count, int rank, int ranks) {
  return {count * rank / ranks, count * (rank + 1) / ranks};
}

std::vector<GraphFold> collectionFolds(const GraphCollection &graphs,
                                       const std::string &split, uint64_t seed,
                                       const std::string &where, int k) {
  std::vector<GraphFold> folds =
      graphs.folds.empty() ? stratifiedFolds(graphs, k, seed) : graphs.folds;
  if (split.empty())
    return folds;
  std::string names;
  for (const GraphFold &fold : folds) {
    if (fold.name == split)
      return {fold};
    names += (names.empty() ? "" : ", ") + fold.name;
  }
  throw DataError(where + ": no fold named '" + split + "' (the folds are " +
                  names + ")");
}

TrainingData GraphBatchSchedule::loadData() {
  const TrainSettings &settings = program.settings;
  graphs = loadCollection(settings, options.dataDir);
  foldList =
      collectionFolds(graphs, settings.split, settings.seed, options.dataDir);
  fold = 0;
  // The parameters' shapes read these; the graphs stay in the collection.
  TrainingData t;
  t.data.numFeatures = graphs.numFeatures;
  t.data.numClasses = graphs.numClasses;
  t.numGlobalNodes = graphs.numNodes();
  return t;
}

std::vector<std::string> GraphBatchSchedule::folds() const {
  std::vector<std::string> names;
  for (const GraphFold &f : foldList)
    names.push_back(f.name);
  return names;
}

void GraphBatchSchedule::selectFold(size_t k) {
  fold = k;
  // Without a training graph the loss is 0 and training "succeeds".
  const GraphFold &f = foldList.at(k);
  if (f.train.empty() && !options.evalOnly)
    throw DataError(
        (graphs.foldSource.empty() ? options.dataDir : graphs.foldSource) +
        ": fold " + f.name + " has no training graphs");
}

void GraphBatchSchedule::bind(ParameterStore<float> &store) {
  params = &store;
  // A batch's values are a hundred buffers of a few hundred KB: on shared
  // huge pages a step runs about a tenth faster (bench/README.md, GIN).
  trainWorkspace.useHugePageArena();
  // trainStep and forward never run at the same time (ScheduleBase::bind).
  forwardWorkspace.shareBuffersWith(trainWorkspace);
  for (auto [ctx, workspace] : {std::pair{&trainCtx, &trainWorkspace},
                                std::pair{&forwardCtx, &forwardWorkspace}}) {
    *ctx = ExecContext<float>();
    ctx->numFeatures = graphs.numFeatures;
    ctx->numClasses = graphs.numClasses;
    ctx->numGlobalNodes = graphs.numNodes();
    ctx->seed = program.settings.seed;
    ctx->workspace = workspace;
    store.bind(*ctx);
  }
}

void GraphBatchSchedule::pack(const int64_t *ids, int64_t count,
                              ExecContext<float> &ctx) {
  Packed &p = packed;
  p.batch = packGraphs(graphs, ids, size_t(count));
  const GraphBatch &b = p.batch;
  const int64_t nodes = b.numNodes();
  p.graph.assignCsr(nodes, nodes, b.graph.inOffsets(), b.graph.inSources());
  // The readout: graph g of the batch receives one edge from each of its
  // nodes, which are contiguous.
  p.readoutSources.resize(size_t(nodes));
  std::iota(p.readoutSources.begin(), p.readoutSources.end(), 0);
  p.readout.assignCsr(nodes, count, b.nodeOffsets, p.readoutSources);
  // Dropout masks are keyed by the nodes' (and edges') ids in the
  // collection, whichever batch or rank packs them.
  p.nodeIds.resize(size_t(nodes));
  std::vector<int64_t> inputEdgeIds;
  for (int64_t g = 0; g < count; ++g) {
    const int64_t first = graphs.nodeOffsets[ids[g]];
    for (int64_t v = b.nodeOffsets[g]; v < b.nodeOffsets[g + 1]; ++v)
      p.nodeIds[size_t(v)] = first + (v - b.nodeOffsets[g]);
    if (program.needsEdgeIds)
      for (int64_t e = graphs.edgeOffsets[ids[g]];
           e < graphs.edgeOffsets[ids[g] + 1]; ++e)
        inputEdgeIds.push_back(e);
  }
  if (program.needsEdgeIds) {
    // The view numbers edges by CSR position; the batch's input edge list
    // is the graphs' edges in batch order.
    const std::vector<int64_t> &csrToInput = b.graph.inEdgeIds();
    p.edgeIds.resize(csrToInput.size());
    for (size_t k = 0; k < csrToInput.size(); ++k)
      p.edgeIds[k] = inputEdgeIds[size_t(csrToInput[k])];
  }
  ctx.graph = p.graph.view();
  ctx.readout = p.readout.view();
  ctx.features = b.features.data();
  ctx.labels = b.classes.data();
  ctx.lossMask = nullptr; // every graph of the batch counts
  ctx.nodeIds = p.nodeIds.data();
  ctx.graphIds = b.graphIds.data();
  ctx.edgeIds = program.needsEdgeIds ? p.edgeIds.data() : nullptr;
}

int64_t GraphBatchSchedule::stepsPerEpoch() const {
  const int64_t n = int64_t(foldList.at(fold).train.size());
  return (n + batchSize() - 1) / batchSize();
}

double GraphBatchSchedule::trainEpoch(int64_t epoch, OptimizerStep &step) {
  const auto start = std::chrono::steady_clock::now();
  const TrainSettings &settings = program.settings;
  const std::vector<int64_t> order =
      epochSeedOrder(foldList[fold].train, settings.graphBatches.shuffle,
                     settings.seed, uint64_t(epoch));
  const int64_t n = int64_t(order.size()), batches = stepsPerEpoch();
  double loss = 0;
  for (int64_t b = 0; b < batches; ++b) {
    const int64_t first = b * batchSize();
    const int64_t count = std::min(batchSize(), n - first);
    // Every rank steps for every batch: one with no share joins the
    // all-reduce with zero gradients.
    const auto [lo, hi] = rankShare(count, comm.rank(), comm.size());
    ExecContext<float> *ctx = nullptr;
    if (hi > lo) {
      const auto packStart = std::chrono::steady_clock::now();
      pack(order.data() + first + lo, hi - lo, trainCtx);
      packSeconds += secondsSince(packStart);
      trainCtx.step = uint64_t((epoch - 1) * batches + b);
      trainCtx.lossScale = double(hi - lo) / double(count);
      packedNodes += packed.batch.numNodes();
      packedEdges += packed.batch.graph.numEdges();
      ctx = &trainCtx;
    }
    ++steps;
    loss += step(ctx);
  }
  epochSeconds += secondsSince(start);
  return batches > 0 ? loss / double(batches) : 0.0;
}

template <typename Rows>
void GraphBatchSchedule::forwardShare(const std::vector<int64_t> &graphIds,
                                      Rows &&rows) {
  // Epoch 0 is no training epoch's: a split's evaluation order is its own.
  const std::vector<int64_t> order = epochSeedOrder(
      graphIds, /*shuffle=*/true, program.settings.seed, /*epoch=*/0);
  const int64_t n = int64_t(order.size());
  const int64_t classes = graphs.numClasses;
  for (int64_t first = 0; first < n; first += batchSize()) {
    const int64_t count = std::min(batchSize(), n - first);
    const auto [lo, hi] = rankShare(count, comm.rank(), comm.size());
    if (hi == lo)
      continue;
    const int64_t *ids = order.data() + first + lo;
    pack(ids, hi - lo, forwardCtx);
    batchLogits.resize(size_t((hi - lo) * classes));
    forwardCtx.output = batchLogits.data();
    program.forwardF32(forwardCtx);
    rows(ids, hi - lo, batchLogits.data());
  }
}

GraphBatchSchedule::SplitCounts
GraphBatchSchedule::countSplit(const std::vector<int64_t> &graphIds,
                               bool loss) {
  SplitCounts counts;
  const int64_t classes = graphs.numClasses;
  forwardShare(graphIds,
               [&](const int64_t *ids, int64_t count, const float *logits) {
                 for (int64_t i = 0; i < count; ++i) {
                   const int64_t label = graphs.classes[size_t(ids[i])];
                   const float *row = logits + i * classes;
                   ++counts.labeled;
                   counts.correct += argmaxRow(row, classes) == label;
                   if (loss)
                     counts.lossSum += crossEntropyRow(row, classes, label);
                 }
               });
  return counts;
}

Accuracies GraphBatchSchedule::evaluate() {
  const GraphFold &f = foldList[fold];
  // Only the splits `evaluate = [...]` names; the others stay n/a.
  const std::array<bool, 3> named = evaluatedSplits(program.settings);
  const bool validLoss = wantsValidLoss(program.settings);
  const std::vector<int64_t> *splits[3] = {&f.train, &f.valid, &f.test};
  int64_t sums[6] = {0, 0, 0, 0, 0, 0};
  double lossSum = 0;
  for (int i = 0; i < 3; ++i) {
    if (!named[size_t(i)])
      continue;
    const SplitCounts c = countSplit(*splits[i], i == 1 && validLoss);
    sums[2 * i] = c.correct;
    sums[2 * i + 1] = c.labeled;
    lossSum += c.lossSum;
  }
  comm.allReduceSum(sums, 6);
  if (validLoss)
    comm.allReduceSum(&lossSum, 1);
  Accuracies acc{AccuracyCounts{sums[0], sums[1]}.fraction(),
                 AccuracyCounts{sums[2], sums[3]}.fraction(),
                 AccuracyCounts{sums[4], sums[5]}.fraction()};
  if (validLoss)
    acc.validLoss = LossSum{lossSum, double(sums[3])}.mean();
  return acc;
}

const std::vector<float> &GraphBatchSchedule::predict() {
  std::vector<int64_t> all(size_t(graphs.numGraphs()));
  std::iota(all.begin(), all.end(), 0);
  logits.clear();
  predictedIds.clear();
  forwardShare(all, [&](const int64_t *ids, int64_t count, const float *rows) {
    logits.insert(logits.end(), rows, rows + count * graphs.numClasses);
    predictedIds.insert(predictedIds.end(), ids, ids + count);
  });
  return logits;
}

void GraphBatchSchedule::writePredictions(const std::string &path,
                                          Communicator &comm) {
  const std::vector<float> &rows = predict();
  writeGatheredPredictions(path, rows.data(), int64_t(predictedIds.size()),
                           graphs.numClasses, predictedIds.data(),
                           graphs.numGraphs(), comm, "graph");
}

void GraphBatchSchedule::printStats(const TrainingResult &result) const {
  printPlanStats(result);
  if (comm.rank() == 0 && steps > 0)
    std::printf("stats: graph batches of %lld graphs: %lld steps per epoch, "
                "%.1f nodes and %.1f edges per step on this rank, packing "
                "%.1f%% of the epochs' time\n",
                (long long)batchSize(), (long long)stepsPerEpoch(),
                double(packedNodes) / double(steps),
                double(packedEdges) / double(steps),
                epochSeconds > 0 ? 100.0 * packSeconds / epochSeconds : 0.0);
  if (comm.size() > 1)
    printRankStats(result, 0.0);
}

} // namespace gnnrt
