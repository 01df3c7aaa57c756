//===- KnowledgeGraphSchedule.cpp - knowledge-graph link prediction -------===//
//
// See KnowledgeGraphSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "KnowledgeGraphSchedule.h"

#include "LinkSchedule.h"
#include "gnnrt/data/links/NegativeSampling.h"
#include "gnnrt/io/AtomicFile.h"
#include "gnnrt/sample/Sampler.h"
#include "gnnrt/support/Error.h"
#include "params/LearnedInputs.h"
#include "params/OptimizerStep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include <unistd.h>

namespace gnnrt {

namespace {

/// `name` as one CSV field: quoted (quotes doubled) when it holds a comma,
/// a quote or a line break (RFC 4180), as is otherwise.
std::string csvField(const std::string &name) {
  if (name.find_first_of(",\"\r\n") == std::string::npos)
    return name;
  std::string quoted = "\"";
  for (char c : name) {
    if (c == '"')
      quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

/// The 1vsAll queries of triples order[0..count): (h, r) -> t, then
/// (t, r) -> h, as triples anchor, relation, true entity.
TripleList oneVsAllQueries(const TripleList &triples, const int64_t *order,
                           int64_t count) {
  TripleList queries;
  queries.head.reserve(size_t(2 * count));
  queries.relation.reserve(size_t(2 * count));
  queries.tail.reserve(size_t(2 * count));
  for (int64_t p = 0; p < count; ++p) {
    const size_t i = size_t(order[p]);
    queries.push(triples.head[i], triples.relation[i], triples.tail[i]);
    queries.push(triples.tail[i], triples.relation[i], triples.head[i]);
  }
  return queries;
}

} // namespace

Dataset knowledgeGraphDataset(const KnowledgeGraph &kg) {
  Dataset ds;
  ds.numNodes = kg.numEntities();
  ds.nodeTypes.push_back({"entity", 0, ds.numNodes, /*hasFeatures=*/false});
  for (const std::string &name : kg.relations)
    ds.relations.push_back({name, 0, 0, -1});
  ds.src = kg.train.head;
  ds.dst = kg.train.tail;
  ds.edgeType = kg.train.relation;
  ds.labels.assign(size_t(ds.numNodes), -1);
  ds.targetType = 0;
  return ds;
}

KnowledgeGraphSchedule::KnowledgeGraphSchedule(const CompiledProgram &program,
                                               const DriverOptions &options,
                                               Communicator &comm,
                                               bool samplerRanks)
    : ScheduleBase(program, options, comm) {
  refuseUnsupportedLinkLaunch(program, options, comm, samplerRanks);
}

std::pair<int64_t, int64_t>
KnowledgeGraphSchedule::rankShare(int64_t begin, int64_t count) const {
  const int64_t ranks = comm.size(), rank = comm.rank();
  return {begin + count * rank / ranks, begin + count * (rank + 1) / ranks};
}

int64_t oneVsAllStepBytes(int64_t triples, int64_t entities) {
  // Two queries per triple, a float logit per entity, and its gradient.
  return 2 * triples * entities * int64_t(sizeof(float)) * 2;
}

void refuseOneVsAllBeyondMemory(int64_t triples, int64_t entities,
                                int64_t memoryBytes, const std::string &where) {
  if (oneVsAllStepBytes(triples, entities) <= memoryBytes / 2)
    return;
  const int64_t fits =
      std::max<int64_t>(1, memoryBytes / 2 / oneVsAllStepBytes(1, entities));
  char sizes[96];
  std::snprintf(sizes, sizeof sizes,
                "%.1f GB, more than half of this "
                "machine's %.1f GB",
                double(oneVsAllStepBytes(triples, entities)) / 1e9,
                double(memoryBytes) / 1e9);
  throw UsageError(
      where + "negatives = all: a step of " + std::to_string(triples) +
      " triples scores " + std::to_string(2 * triples) + " queries against " +
      std::to_string(entities) + " entities, logits and their gradient " +
      sizes + ": set link_batch (or --link-batch) to at most " +
      std::to_string(fits));
}

TrainingData KnowledgeGraphSchedule::loadData() {
  const TrainSettings &settings = program.settings;
  kg = readKnowledgeGraph(options.dataDir);
  if (settings.links.oneVsAll)
    refuseOneVsAllBeyondMemory(
        stepsPerEpoch() > 1 ? settings.linkBatch : int64_t(kg.train.size()),
        kg.numEntities(),
        int64_t(sysconf(_SC_PHYS_PAGES)) * int64_t(sysconf(_SC_PAGE_SIZE)),
        program.sourceFile.empty() ? "" : program.sourceFile + ": ");
  Dataset ds = knowledgeGraphDataset(kg);
  // Inverse relations and self loops are the message-passing graph's
  // options; the pairs keep the files' relation ids, below them.
  LoadOptions load = datasetLoadOptions(settings);
  finalizeDataset(ds, load);
  numRelations = int32_t(ds.relations.size());
  ds.numClasses = 2;
  known = EdgeSet(kg.numEntities(), kg.train.head, kg.train.tail,
                  kg.train.relation);
  if (settings.embedDim > 0)
    addLearnedRows(ds, settings.embedDim, settings.seed, options.dataDir);
  return prepareWholeGraph(std::move(ds), "original", program.needsEdgeIds);
}

void KnowledgeGraphSchedule::bind(ParameterStore<float> &store) {
  ScheduleBase::bind(store);
  // Every pair counts in the loss; the labels are each step's pairs'.
  trainCtx.lossMask = forwardCtx.lossMask = nullptr;
  logits.clear();
  // Under mpirun every rank holds every entity row: a step's gradient of
  // them is the sum of the ranks' (each scored its share of the pairs).
  if (learned && comm.size() > 1)
    learned->routeGradients(
        [this](const int64_t *, int64_t rows, const float *grad, int64_t width,
               std::vector<int64_t> &ownRows, std::vector<float> &ownGrad) {
          ownGrad.assign(grad, grad + rows * width);
          comm.allReduceSum(ownGrad.data(), rows * width);
          ownRows.resize(size_t(rows));
          std::iota(ownRows.begin(), ownRows.end(), 0);
        });
}

int64_t KnowledgeGraphSchedule::stepsPerEpoch() const {
  const int64_t n = int64_t(kg.train.size()),
                batch = program.settings.linkBatch;
  return batch > 0 && batch < n ? (n + batch - 1) / batch : 1;
}

void KnowledgeGraphSchedule::bindOneVsAllStep(const TripleList &queries) {
  stepBatch = makeTriplePairBatch(kg.numEntities(), numRelations, queries,
                                  TripleList{});
  // Edge k is query byDestination[k]; its label is its true entity.
  stepBatch.labels.resize(queries.size());
  for (size_t k = 0; k < queries.size(); ++k)
    stepBatch.labels[k] = queries.tail[size_t(stepBatch.byDestination[k])];
  trainCtx.pairs = stepBatch.graph.view();
  trainCtx.labels = stepBatch.labels.data();
}

void KnowledgeGraphSchedule::bindSampledStep(const int64_t *triples,
                                             int64_t count,
                                             const TripleList &negatives) {
  const size_t k = size_t(program.settings.links.negatives);
  TripleList positive, negative;
  for (int64_t p = 0; p < count; ++p) {
    const size_t i = size_t(triples[p]);
    positive.push(kg.train.head[i], kg.train.relation[i], kg.train.tail[i]);
    for (size_t j = i * k; j < (i + 1) * k; ++j)
      negative.push(negatives.head[j], negatives.relation[j],
                    negatives.tail[j]);
  }
  stepBatch =
      makeTriplePairBatch(kg.numEntities(), numRelations, positive, negative);
  trainCtx.pairs = stepBatch.graph.view();
  trainCtx.labels = stepBatch.labels.data();
}

double KnowledgeGraphSchedule::trainEpoch(int64_t epoch, OptimizerStep &step) {
  const TrainSettings &settings = program.settings;
  const bool oneVsAll = settings.links.oneVsAll;
  const int64_t n = int64_t(kg.train.size()), k = settings.links.negatives;
  // Negative j of triple i is a function of (seed, epoch, i, j) whatever
  // the batches: a resumed run trains on the same pairs.
  TripleList negatives;
  if (!oneVsAll) {
    NegativeSamplerOptions sampling;
    sampling.seed = settings.seed;
    sampling.k = k;
    sampling.numNodes = kg.numEntities();
    sampling.exclude = &known;
    sampling.maxAttempts = kMaxNegativeAttempts;
    negatives = NegativeSampler(sampling).corruptTriples(epoch, kg.train, 0, n);
  }
  const int64_t steps = stepsPerEpoch();
  const int64_t batch = (n + steps - 1) / steps;
  std::vector<int64_t> triples(static_cast<size_t>(n));
  std::iota(triples.begin(), triples.end(), 0);
  const std::vector<int64_t> order =
      epochSeedOrder(triples, steps > 1, settings.seed, uint64_t(epoch));
  // The pairs a triple brings to its step: its two 1vsAll queries, or
  // itself and its k negatives.
  const int64_t pairsPerTriple = oneVsAll ? 2 : 1 + k;
  double lossSum = 0;
  int64_t pairs = 0;
  for (int64_t s = 0; s < steps; ++s) {
    // This rank's share of the step's triples, and of its mean loss.
    const int64_t begin = s * batch, count = std::min(n, begin + batch) - begin;
    const auto [first, last] = rankShare(begin, count);
    if (oneVsAll)
      bindOneVsAllStep(
          oneVsAllQueries(kg.train, order.data() + first, last - first));
    else
      bindSampledStep(order.data() + first, last - first, negatives);
    trainCtx.step = uint64_t((epoch - 1) * steps + s);
    trainCtx.lossScale =
        double(last - first) / double(std::max<int64_t>(1, count));
    lossSum += step(&trainCtx) * double(count * pairsPerTriple);
    pairs += count * pairsPerTriple;
  }
  return pairs > 0 ? lossSum / double(pairs) : 0.0;
}

void KnowledgeGraphSchedule::scoreBlock(RankSide side, const int64_t *anchors,
                                        int64_t count, int32_t relation,
                                        int64_t begin, int64_t end,
                                        float *out) {
  // The pairs in the order GraphStorage gives them (by destination, then
  // source, stably): pair k is pair order[k] of `out`.
  const int64_t width = end - begin, pairCount = count * width;
  const bool tail = side == RankSide::Tail;
  std::vector<int64_t> order(static_cast<size_t>(pairCount));
  std::iota(order.begin(), order.end(), 0);
  // Pair q is (anchor q / width, candidate begin + q % width).
  auto srcOf = [&](int64_t q) {
    return tail ? anchors[q / width] : begin + q % width;
  };
  auto dstOf = [&](int64_t q) {
    return tail ? begin + q % width : anchors[q / width];
  };
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const int64_t da = dstOf(a), db = dstOf(b);
    return da != db ? da < db : srcOf(a) < srcOf(b);
  });
  std::vector<int64_t> src(order.size()), dst(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    src[k] = srcOf(order[k]);
    dst[k] = dstOf(order[k]);
  }
  const std::vector<int32_t> types(size_t(pairCount), relation);
  const GraphStorage pairsGraph = GraphStorage::build(
      kg.numEntities(), kg.numEntities(), src, dst, types, numRelations);
  pairOutput.resize(size_t(2 * pairCount));
  zeroLabels.assign(size_t(pairCount), 0);
  forwardCtx.pairs = pairsGraph.view();
  forwardCtx.labels = zeroLabels.data();
  forwardCtx.output = pairOutput.data();
  program.forwardF32(forwardCtx);
  // The logits of a pair are [0, s].
  for (int64_t p = 0; p < pairCount; ++p)
    out[order[size_t(p)]] =
        pairOutput[size_t(2 * p + 1)] - pairOutput[size_t(2 * p)];
}

FilteredRankingResult KnowledgeGraphSchedule::rank(const TripleList &queries) {
  FilteredRankingOptions blocks;
  blocks.entityBlock = std::min<int64_t>(4096, kg.numEntities());
  // A trilinear score: its factors once, then a matrix product per block
  // of 128 queries x 4096 candidates.
  if (program.rankFactorsF32) {
    std::vector<float> factors[3];
    forwardCtx.rankFactors = factors;
    program.rankFactorsF32(forwardCtx);
    forwardCtx.rankFactors = nullptr;
    const bool relational = program.rankFactorCount == 3;
    ScoreFactors score;
    score.src = factors[0].data();
    score.relation = relational ? factors[1].data() : nullptr;
    score.dst = factors[relational ? 2 : 1].data();
    score.width = int64_t(factors[0].size()) / kg.numEntities();
    return filteredRanking(kg, queries, factorScorer(score), blocks);
  }
  // Otherwise about 8k pairs per forward: its per-pair rows ([pairs,
  // width] each) stay in the caches' reach and the memory bounded,
  // whatever the entity count.
  blocks.queryBlock = std::max<int64_t>(1, 8192 / blocks.entityBlock);
  return filteredRanking(
      kg, queries,
      [this](RankSide side, const int64_t *anchors, int64_t count,
             int32_t relation, int64_t begin, int64_t end, float *out) {
        scoreBlock(side, anchors, count, relation, begin, end, out);
      },
      blocks);
}

Accuracies KnowledgeGraphSchedule::evaluate() {
  Accuracies acc;
  const std::array<bool, 3> named = evaluatedSplits(program.settings);
  if (named[1] && kg.valid.size() > 0)
    acc.validMrr = rank(kg.valid).both.mrr;
  if (named[2] && kg.test.size() > 0) {
    const RankingMetrics test = rank(kg.test).both;
    acc.testMrr = test.mrr;
    acc.testHits1 = test.hits1;
    acc.testHits3 = test.hits3;
    acc.testHits10 = test.hits10;
  }
  return acc;
}

void KnowledgeGraphSchedule::writePredictions(const std::string &path,
                                              Communicator &comm) {
  const TripleList triples = readTriplesOf(options.pairsFile, kg);
  const PairBatch batch = makeTriplePairBatch(kg.numEntities(), numRelations,
                                              triples, TripleList{});
  pairOutput.resize(2 * triples.size());
  forwardCtx.pairs = batch.graph.view();
  forwardCtx.labels = batch.labels.data();
  forwardCtx.output = pairOutput.data();
  program.forwardF32(forwardCtx);
  if (comm.rank() != 0)
    return;
  const std::vector<float> score =
      scoresInGivenOrder(batch, pairOutput.data());
  AtomicFile out(path);
  std::fprintf(out.stream(), "head,relation,tail,score,probability\n");
  for (size_t i = 0; i < triples.size(); ++i)
    std::fprintf(out.stream(), "%s,%s,%s,%.9g,%.9g\n",
                 csvField(kg.entities[size_t(triples.head[i])]).c_str(),
                 csvField(kg.relations[size_t(triples.relation[i])]).c_str(),
                 csvField(kg.entities[size_t(triples.tail[i])]).c_str(),
                 double(score[i]), 1.0 / (1.0 + std::exp(-double(score[i]))));
  out.commit();
}

void KnowledgeGraphSchedule::writeEmbeddings(const std::string &path) {
  // Every rank holds every row: rank 0 writes them.
  const std::vector<float> rows = factorRows(program, forwardCtx);
  if (comm.rank() == 0)
    writeEmbeddingRows(path, rows, kg.numEntities());
}

void KnowledgeGraphSchedule::printStats(const TrainingResult &result) const {
  printPlanStats(result);
  const TrainSettings::Links &links = program.settings.links;
  const std::string negatives =
      links.oneVsAll ? "every entity as tail and as head (1vsAll)"
                     : std::to_string(links.negatives) + " negatives";
  std::printf("stats: knowledge graph %lld entities, %d relations, triples "
              "train %zu valid %zu test %zu, %s per triple, %lld "
              "steps per epoch, message passing over %lld edges\n",
              (long long)kg.numEntities(), kg.numRelations(), kg.train.size(),
              kg.valid.size(), kg.test.size(), negatives.c_str(),
              (long long)stepsPerEpoch(),
              (long long)trainingData.graph.view().numEdges);
}

} // namespace gnnrt
