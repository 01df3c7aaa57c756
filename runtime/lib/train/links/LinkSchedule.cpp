//===- LinkSchedule.cpp - link-prediction training on the whole graph -----===//
//
// See LinkSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "LinkSchedule.h"

#include "KnowledgeGraphSchedule.h"
#include "SampledLinkSchedule.h"

#include "gnnrt/data/links/LinkPairFiles.h"
#include "gnnrt/io/AtomicFile.h"
#include "gnnrt/io/Npy.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/TempFiles.h"
#include "gnnrt/train/LinkMetrics.h"
#include "params/OptimizerStep.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numeric>

namespace gnnrt {

std::vector<float> scoresInGivenOrder(const PairBatch &batch,
                                      const float *output) {
  std::vector<float> score(batch.byDestination.size());
  for (size_t k = 0; k < score.size(); ++k)
    score[size_t(batch.byDestination[k])] = output[2 * k + 1] - output[2 * k];
  return score;
}

LinkScores scorePairs(const PairBatch &batch, const float *output) {
  std::vector<float> positive, negative;
  positive.reserve(size_t(batch.positives));
  negative.reserve(size_t(batch.negatives));
  double loss = 0;
  // In pair order on one thread: the same sum on every run.
  for (size_t i = 0; i < batch.labels.size(); ++i) {
    const float *row = output + 2 * i;
    (batch.labels[i] == 1 ? positive : negative).push_back(row[1] - row[0]);
    loss += crossEntropyRow(row, 2, batch.labels[i]);
  }
  LinkScores scores;
  scores.auc = rocAuc(positive, negative);
  scores.ap = averagePrecision(positive, negative);
  scores.loss = loss / double(batch.labels.size());
  return scores;
}

namespace {

/// Why a link program cannot train under `options` yet, or "".
std::string unsupportedLinkLaunch(const CompiledProgram &program,
                                  const DriverOptions &options,
                                  Communicator &comm, bool samplerRanks) {
  const TrainSettings &settings = program.settings;
  if (samplerRanks)
    return "link prediction samples in the trainers' ranks, not on sampler "
           "ranks (--samplers) yet";
  if (!options.dataDir.empty() &&
      std::ifstream(options.dataDir + "/manifest.json").good())
    return "link prediction trains on a dataset directory, not a partition "
           "directory (" +
           options.dataDir + ") yet";
  if (!settings.offloadDir.empty())
    return "--offload: link prediction does not train out of core yet";
  if (!options.embeddingsFile.empty() && !program.rankFactorsF32)
    return "--embeddings: the score is not a product of node rows (a dot "
           "product or DistMult), so no row per node stands for it";
  if (!options.predictFile.empty() && options.pairsFile.empty())
    return program.settings.source == "kg"
               ? "--predict: a knowledge-graph program scores triples, not "
                 "nodes: give --pairs FILE (head<TAB>relation<TAB>tail per "
                 "line, by name)"
               : "--predict: a link-prediction program scores pairs, not "
                 "nodes: give --pairs FILE (src,dst per row)";
  return "";
}

} // namespace

void refuseUnsupportedLinkLaunch(const CompiledProgram &program,
                                 const DriverOptions &options,
                                 Communicator &comm, bool samplerRanks) {
  const std::string why =
      unsupportedLinkLaunch(program, options, comm, samplerRanks);
  if (!why.empty())
    throw UsageError(
        (program.sourceFile.empty() ? "" : program.sourceFile + ": ") + why);
}

LinkSchedule::LinkSchedule(const CompiledProgram &program,
                           const DriverOptions &options, Communicator &comm,
                           bool samplerRanks)
    : ScheduleBase(program, options, comm) {
  refuseUnsupportedLinkLaunch(program, options, comm, samplerRanks);
}

TrainingData LinkSchedule::loadData() {
  // Node ids stay: the pairs name them.
  if (comm.size() == 1)
    return prepareWholeGraph(linkDataset(), "original", program.needsEdgeIds);
  // Every rank made the same split; the message-passing graph (train links
  // only) is what the ranks partition.
  TrainingData part = partitionAtStartup(linkDataset(), program, options, comm,
                                         /*cacheAssignment=*/false);
  owners = std::make_unique<NodeOwners>(part.nodeIds, part.data.numNodes,
                                        part.numGlobalNodes, comm);
  return part;
}

std::vector<int64_t> LinkSchedule::ownNodes() const {
  std::vector<int64_t> nodes;
  for (int64_t v = 0; v < trainingData.numGlobalNodes; ++v)
    if (owns(v))
      nodes.push_back(v);
  return nodes;
}

void LinkSchedule::bindRankPairs(ExecContext<float> &ctx,
                                 const RankPairs &share) {
  ctx.pairs = share.batch.graph.view();
  ctx.labels = share.batch.labels.data();
  ctx.pairHalo = share.halo.get();
  // This rank's share of the batch's mean loss.
  ctx.lossScale = double(share.batch.labels.size()) /
                  double(std::max<int64_t>(1, share.globalPairs));
}

Dataset LinkSchedule::linkDataset() {
  const TrainSettings &settings = program.settings;
  const std::string where =
      options.dataDir.empty() ? "the generated dataset" : options.dataDir;
  // The split takes the dataset's own edges: reverse edges and self loops
  // are options of the message-passing graph, added after it.
  LoadOptions load = datasetLoadOptions(settings);
  load.addReverseEdges = false;
  load.addSelfLoops = false;
  Dataset ds = readDataset(settings, options, load);
  if (ds.isHeterogeneous())
    throw DataError(where + ": link prediction on a heterogeneous dataset (" +
                    std::to_string(ds.relations.size()) +
                    " relations) is not supported yet");
  if (settings.normalizeFeatures)
    normalizeRows(ds.features, ds.numFeatures);
  linkData = std::make_unique<LinkSplitData>(ds, settings.links, settings.seed,
                                             settings.addReverseEdges, where);
  linkData->messagePassingEdges(settings.addSelfLoops, ds.src, ds.dst);
  // The node labels and splits are not what a link program learns: its
  // output has two columns per pair (the logits [0, s]).
  ds.numClasses = 2;
  ds.labels.assign(size_t(ds.numNodes), -1);
  ds.trainIdx.clear();
  ds.validIdx.clear();
  ds.testIdx.clear();
  return ds;
}

void LinkSchedule::bind(ParameterStore<float> &store) {
  ScheduleBase::bind(store);
  // Loading the partition exchanged degrees through the halo.
  if (trainingData.halo)
    trainingData.halo->resetTraffic();
  // Every pair counts in the loss; the labels are each step's pairs'.
  trainCtx.lossMask = forwardCtx.lossMask = nullptr;
  logits.clear();
  const std::array<bool, 3> named = evaluatedSplits(program.settings);
  if (named[1])
    validBatch = linkData->evaluationPairs(/*test=*/false);
  if (named[2])
    testBatch = linkData->evaluationPairs(/*test=*/true);
}

double LinkSchedule::trainEpoch(int64_t epoch, OptimizerStep &step) {
  // A function of (seed, epoch): a resumed run trains on the same pairs.
  // Refilled in place: an epoch's pairs are the previous epoch's size.
  trainCtx.step = uint64_t(epoch - 1);
  if (owners) {
    // The ranks draw the epoch's pairs in shares and route them to their
    // destinations' owners. Every rank steps, with or without pairs of its
    // own (the halo exchanges are collective).
    drawRankPairs(*linkData, epoch, *owners, comm, trainShare);
    bindRankPairs(trainCtx, trainShare);
    return step(&trainCtx);
  }
  linkData->trainPairs(epoch, trainBatch, trainNegatives);
  trainCtx.pairs = trainBatch.graph.view();
  trainCtx.labels = trainBatch.labels.data();
  return step(&trainCtx);
}

std::vector<float> LinkSchedule::outputRows(const PairBatch &pairs) {
  if (owners) {
    selectRankPairs(pairs, *owners, comm, evaluationShare);
    bindRankPairs(forwardCtx, evaluationShare);
    std::vector<float> rows(size_t(2 * forwardCtx.pairs.numEdges));
    forwardCtx.output = rows.data();
    program.forwardF32(forwardCtx);
    return gatherPairRows(comm, pairs.graph.view().numEdges,
                          evaluationShare.pairOf, rows);
  }
  std::vector<float> rows(size_t(2 * pairs.graph.view().numEdges));
  forwardCtx.pairs = pairs.graph.view();
  forwardCtx.labels = pairs.labels.data();
  forwardCtx.output = rows.data();
  program.forwardF32(forwardCtx);
  return rows;
}

Accuracies LinkSchedule::evaluate() {
  Accuracies acc;
  auto score =
      [&](const std::optional<PairBatch> &batch) -> std::optional<LinkScores> {
    // A split of no pairs (valid = 0) has no scores.
    if (!batch || batch->positives == 0 || batch->negatives == 0)
      return std::nullopt;
    const std::vector<float> rows = outputRows(*batch);
    return scorePairs(*batch, rows.data());
  };
  if (std::optional<LinkScores> valid = score(validBatch)) {
    acc.validAuc = valid->auc;
    acc.validAp = valid->ap;
    acc.validLoss = valid->loss;
  }
  if (std::optional<LinkScores> test = score(testBatch)) {
    acc.testAuc = test->auc;
    acc.testAp = test->ap;
  }
  return acc;
}

void LinkSchedule::writePredictions(const std::string &path,
                                    Communicator &comm) {
  // The file's pairs, scored together in the pairs graph's edge order.
  const LinkPairs pairs =
      readLinkPairs(options.pairsFile, trainingData.numGlobalNodes);
  const PairBatch batch =
      makePairBatch(trainingData.numGlobalNodes, pairs, LinkPairs{});
  const std::vector<float> rows = outputRows(batch);
  if (comm.rank() != 0)
    return;
  // Back in the file's order: s = logit 1 - logit 0, as evaluation ranks.
  const std::vector<float> score = scoresInGivenOrder(batch, rows.data());
  AtomicFile out(path);
  std::fprintf(out.stream(), "src,dst,score,probability\n");
  for (size_t i = 0; i < score.size(); ++i)
    std::fprintf(out.stream(), "%lld,%lld,%.9g,%.9g\n", (long long)pairs.src[i],
                 (long long)pairs.dst[i], double(score[i]),
                 1.0 / (1.0 + std::exp(-double(score[i]))));
  out.commit();
}

std::vector<float> factorRows(const CompiledProgram &program,
                              ExecContext<float> &ctx) {
  std::vector<float> factors[3];
  ctx.rankFactors = factors;
  program.rankFactorsF32(ctx);
  ctx.rankFactors = nullptr;
  // The source side's rows: a dot product's two are the same; DistMult's
  // are the entity rows its relation diagonal multiplies.
  return std::move(factors[0]);
}

void writeEmbeddingRows(const std::string &path, const std::vector<float> &rows,
                        int64_t numNodes) {
  const int64_t width = numNodes > 0 ? int64_t(rows.size()) / numNodes : 0;
  const std::string temp = path + ".tmp";
  registerTempFile(temp);
  try {
    writeNpy(temp, NpyType::Float32, {numNodes, width}, rows.data());
  } catch (...) {
    std::remove(temp.c_str());
    unregisterTempFile(temp);
    throw;
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    unregisterTempFile(temp);
    throw DataError(path + ": cannot write the embeddings (" +
                    std::strerror(errno) + ")");
  }
  unregisterTempFile(temp);
}

void LinkSchedule::writeEmbeddings(const std::string &path) {
  // Each process computes its nodes' rows (a rank: its owned nodes).
  writeGatheredEmbeddings(comm, path, ownNodes(),
                          factorRows(program, forwardCtx),
                          trainingData.numGlobalNodes);
}

void LinkSchedule::printStats(const TrainingResult &result) const {
  printPlanStats(result);
  const EdgeSplit &split = linkData->split();
  std::printf("stats: links train %zu valid %zu test %zu (undirected: %s), "
              "%lld negatives per train link, message passing over %lld "
              "edges\n",
              split.trainPos.size(), split.validPos.size(),
              split.testPos.size(), linkData->undirected() ? "yes" : "no",
              (long long)program.settings.links.negatives,
              (long long)trainingData.graph.view().numEdges);
  if (!owners || !trainingData.halo || program.numBlocks > 0)
    return;
  // The message-passing graph's halo, then the pairs' (each epoch's own).
  const double epochs = double(std::max<int64_t>(1, result.last.epoch));
  const HaloExchange &halo = *trainingData.halo;
  const double seconds =
      halo.forwardTraffic().seconds + halo.backwardTraffic().seconds;
  std::printf("stats: rank %d halo sent %lld received %lld bytes/epoch, "
              "train pairs %lld of %lld with %lld remote sources, routed "
              "%lld bytes in the last epoch\n",
              comm.rank(),
              (long long)((halo.forwardTraffic().sentBytes +
                           halo.backwardTraffic().sentBytes) /
                          epochs),
              (long long)((halo.forwardTraffic().receivedBytes +
                           halo.backwardTraffic().receivedBytes) /
                          epochs),
              (long long)trainShare.batch.labels.size(),
              (long long)trainShare.globalPairs,
              (long long)(trainShare.halo ? trainShare.halo->numHalo() : 0),
              (long long)trainShare.routedBytes);
  printRankStats(result, seconds);
}

std::unique_ptr<Schedule> makeLinkSchedule(const CompiledProgram &program,
                                           const DriverOptions &options,
                                           Communicator &comm,
                                           bool samplerRanks) {
  if (program.settings.source == "kg")
    return std::make_unique<KnowledgeGraphSchedule>(program, options, comm,
                                                    samplerRanks);
  if (program.numBlocks > 0)
    return std::make_unique<SampledLinkSchedule>(program, options, comm,
                                                 samplerRanks);
  return std::make_unique<LinkSchedule>(program, options, comm, samplerRanks);
}

} // namespace gnnrt
