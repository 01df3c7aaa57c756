//===- SampledLinkSchedule.cpp - link prediction on sampled batches -------===//
//
// See SampledLinkSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "SampledLinkSchedule.h"

#include "RankPairs.h"
#include "batch/SampledTraining.h"
#include "params/OptimizerStep.h"

#include "gnnrt/data/links/LinkPairFiles.h"
#include "gnnrt/io/AtomicFile.h"
#include "gnnrt/support/CeilDiv.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/IndexPermutation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>

namespace gnnrt {

namespace {

/// Pairs per inference pass: a pass samples whole neighbourhoods of its
/// endpoints, so bigger passes recompute fewer shared nodes; the bound
/// keeps one pass's blocks within memory on big graphs.
constexpr int64_t kInferencePairs = int64_t(1) << 20;

/// The stream of the epochs' link orders ("LINK").
constexpr uint64_t kLinkOrderStream = uint64_t(0x4c494e4b) << 32;

/// Link batches in flight ahead of the training thread.
constexpr int kLinkPipelineDepth = 4;

} // namespace

SampledLinkSchedule::SampledLinkSchedule(const CompiledProgram &program,
                                         const DriverOptions &options,
                                         Communicator &comm, bool samplerRanks)
    : LinkSchedule(program, options, comm, samplerRanks) {}

SampledLinkSchedule::~SampledLinkSchedule() = default;

void SampledLinkSchedule::bind(ParameterStore<float> &store) {
  LinkSchedule::bind(store);
  const TrainSettings &s = program.settings;
  if (int64_t(s.fanouts.size()) != program.numBlocks)
    throw DataError("the program samples " + std::to_string(s.fanouts.size()) +
                    " layers but its model has " +
                    std::to_string(program.numBlocks));
  if (s.batchSize <= 0)
    throw DataError("the batch size must be positive (links per step)");
  // Learned input rows come with featureless node types, which link
  // programs refuse (a homogeneous dataset with features has none); a
  // batch sampled ahead would read them stale.
  if (learned)
    throw UsageError("sampled link batches with learned input rows (embed) "
                     "are not supported yet");
  assembler = std::make_unique<MiniBatchAssembler>(
      trainingData, trainingData.numGlobalNodes, s.replace,
      /*perRelation=*/false, s.seed, comm);
  // As node batches: one process reads block 0's input rows in the
  // dataset's table (with bf16 gathers a rounded copy of the table would be
  // needed: those batches copy their rows).
  assembler->readInputRowsInPlace(
      readsInputRowsInPlace(program, /*inputsLearned=*/learned != nullptr) &&
      kernels::gatherStorage() != kernels::GatherStorage::BFloat16);
  // One builder per sampling thread (the training thread uses the first).
  samplerThreads = comm.size() == 1 ? options.samplerThreads : 0;
  for (int t = 0; t < std::max(1, samplerThreads); ++t) {
    builders.push_back(
        std::make_unique<BlockBuilder>(trainingData.numGlobalNodes));
    builders.back()->leaveOutEdges(program.blocksWithoutOutEdges);
  }
  steps = ceilDiv(int64_t(linkData->trainLinks().size()), s.batchSize);
  if (options.maxStepsPerEpoch > 0)
    steps = std::min(steps, options.maxStepsPerEpoch);
}

void SampledLinkSchedule::samplePairs(const LinkPairs &positive,
                                      const LinkPairs &negative,
                                      const std::vector<int64_t> &fanouts,
                                      const SampleKey &key,
                                      BlockBuilder &builder,
                                      SampledBatch &out, PairBatch &local,
                                      SamplingTraffic &traffic) {
  // The seeds: the pairs' endpoints, which the step's pairs index.
  const std::vector<int64_t> seeds =
      pairsOverEndpoints(positive, negative, local);
  assembler->assemble(seeds, fanouts, key, builder, out, traffic);
}

void SampledLinkSchedule::bindPairs(ExecContext<float> &ctx,
                                    const SampledBatch &batch,
                                    const PairBatch &local) {
  bindBatch(ctx, batch);
  ctx.pairs = local.graph.view();
  ctx.labels = local.labels.data();
  ctx.lossMask = nullptr;
}

void SampledLinkSchedule::sampleStep(int64_t epoch,
                                     const IndexPermutation &order,
                                     int64_t b, BlockBuilder &builder,
                                     SampledBatch &out, PairBatch &local,
                                     SamplingTraffic &traffic) {
  const TrainSettings &s = program.settings;
  const LinkPairs &links = linkData->trainLinks();
  const int64_t begin = b * s.batchSize,
                end = std::min(order.size(), begin + s.batchSize);
  // The batch's links, both directions, are excluded on every rank; this
  // rank scores the links whose destination it owns, and their negatives
  // (link e's negative j drawn from (seed, epoch, e, j), as the full-graph
  // schedule draws it).
  std::vector<std::pair<int64_t, int64_t>> excluded;
  std::vector<int64_t> owned;
  LinkPairs positive;
  for (int64_t i = begin; i < end; ++i) {
    const int64_t e = s.shuffle ? order(i) : i;
    const int64_t u = links.src[size_t(e)], v = links.dst[size_t(e)];
    excluded.emplace_back(v, u);
    excluded.emplace_back(u, v);
    if (!owns(v))
      continue;
    owned.push_back(e);
    positive.src.push_back(u);
    positive.dst.push_back(v);
  }
  builder.excludeEdges(std::move(excluded));
  samplePairs(positive, linkData->trainNegativesOf(epoch, owned), s.fanouts,
              SampleKey{s.seed, uint64_t(epoch), uint64_t(b)}, builder, out,
              local, traffic);
  builder.excludeEdges({});
}

double SampledLinkSchedule::trainEpoch(int64_t epoch, OptimizerStep &step) {
  const TrainSettings &s = program.settings;
  const int64_t total = int64_t(linkData->trainLinks().size()),
                k = s.links.negatives;
  // The order the epoch's links are batched in: a permutation keyed by
  // (seed, epoch), evaluated per batch (an epoch cut short by
  // --steps-per-epoch does not shuffle every link first).
  const IndexPermutation order(total, s.seed, kLinkOrderStream,
                               uint64_t(epoch));
  double lossSum = 0;
  auto run = [&](int64_t b, const SampledBatch &batch, const PairBatch &local) {
    const int64_t links = std::min(total - b * s.batchSize, s.batchSize);
    const int64_t pairs = int64_t(local.labels.size());
    trainCtx.step = uint64_t((epoch - 1) * steps + b);
    // This rank's share of the batch's mean loss.
    trainCtx.lossScale =
        double(pairs) / double(std::max<int64_t>(1, links * (1 + k)));
    if (pairs == 0) {
      lossSum += step(nullptr);
      return;
    }
    bindPairs(trainCtx, batch, local);
    ++batchesTrained;
    pairsTrained += pairs;
    blockTotals.resize(batch.views.size(), {0, 0, 0});
    for (size_t l = 0; l < batch.views.size(); ++l) {
      blockTotals[l][0] += batch.views[l].numSrc;
      blockTotals[l][1] += batch.views[l].numDst;
      blockTotals[l][2] += batch.views[l].numEdges;
    }
    lossSum += step(&trainCtx);
  };
  if (comm.size() == 1 && samplerThreads > 0) {
    // One process: background threads sample the next batches (each with
    // its own builder, so its own exclusions) while one trains; batch b is
    // a function of (seed, epoch, b), whichever thread makes it.
    slots.resize(kLinkPipelineDepth);
    slotPairs.resize(kLinkPipelineDepth);
    std::vector<SamplingTraffic> workerTraffic(builders.size());
    BatchPipeline pipeline(
        steps, samplerThreads, slots,
        [&](int64_t b, int worker, SampledBatch &slot) {
          sampleStep(epoch, order, b, *builders[size_t(worker)], slot,
                     slotPairs[size_t(b % kLinkPipelineDepth)],
                     workerTraffic[size_t(worker)]);
        });
    for (int64_t b = 0; b < steps; ++b) {
      SampledBatch *batch = pipeline.next();
      if (!batch)
        throw std::logic_error("the link batch pipeline ended early");
      run(b, *batch, slotPairs[size_t(b % kLinkPipelineDepth)]);
    }
    pipelineWait += pipeline.waitSeconds();
    for (const SamplingTraffic &t : workerTraffic)
      traffic.add(t);
  } else {
    // Under mpirun the ranks sample collectively, in step order, in the
    // training thread.
    for (int64_t b = 0; b < steps; ++b) {
      sampleStep(epoch, order, b, *builders.front(), sampled, stepPairs,
                 traffic);
      run(b, sampled, stepPairs);
    }
  }
  return lossSum / double(std::max<int64_t>(1, steps));
}

std::vector<float> SampledLinkSchedule::outputRows(const PairBatch &pairs) {
  const GraphView g = pairs.graph.view();
  std::vector<int64_t> mine;
  for (int64_t e = 0; e < g.numEdges; ++e)
    if (owns(g.edgeDst[e]))
      mine.push_back(e);
  // Every rank assembles as many times (the sampling is collective).
  int64_t passes = 0;
  for (int64_t c : gatherCounts(comm, int64_t(mine.size())))
    passes = std::max(passes, ceilDiv(c, kInferencePairs));
  const std::vector<int64_t> whole(size_t(program.numBlocks), -1);
  // What this rank scored: pair scoredPairs[k]'s logits at scored[2k..].
  std::vector<int64_t> scoredPairs;
  std::vector<float> scored, out;
  for (int64_t p = 0; p < passes; ++p) {
    const size_t begin = std::min(mine.size(), size_t(p * kInferencePairs)),
                 end = std::min(mine.size(), begin + size_t(kInferencePairs));
    // The chunk's pairs, positives then negatives, and which pair of
    // `pairs` each is.
    LinkPairs positive, negative;
    std::vector<int64_t> pairOf;
    for (int label : {1, 0})
      for (size_t k = begin; k < end; ++k) {
        const int64_t e = mine[k];
        if ((pairs.labels[size_t(e)] == 1) != (label == 1))
          continue;
        LinkPairs &to = label == 1 ? positive : negative;
        to.src.push_back(g.edgeSrc[e]);
        to.dst.push_back(g.edgeDst[e]);
        pairOf.push_back(e);
      }
    samplePairs(positive, negative, whole,
                SampleKey{program.settings.seed, 0, uint64_t(p)},
                *builders.front(), sampled, stepPairs, inferenceTraffic);
    if (begin == end)
      continue;
    bindPairs(forwardCtx, sampled, stepPairs);
    out.resize(size_t(2 * stepPairs.graph.view().numEdges));
    forwardCtx.output = out.data();
    program.forwardF32(forwardCtx);
    // Output row r is the pair fillPairBatch placed there (byDestination:
    // its index among positives then negatives).
    for (size_t r = 0; r < pairOf.size(); ++r)
      scoredPairs.push_back(pairOf[size_t(stepPairs.byDestination[r])]);
    scored.insert(scored.end(), out.begin(), out.end());
  }
  return gatherPairRows(comm, g.numEdges, scoredPairs, scored);
}

void SampledLinkSchedule::writeEmbeddings(const std::string &path) {
  // This process's nodes (a rank's: those it owns) as seeds with their
  // whole neighbourhoods: the last level's rows are them, ascending.
  const int64_t n = trainingData.numGlobalNodes;
  const std::vector<int64_t> nodes = ownNodes();
  const std::vector<int64_t> whole(size_t(program.numBlocks), -1);
  assembler->assemble(nodes, whole, SampleKey{program.settings.seed, 0, 0},
                      *builders.front(), sampled, inferenceTraffic);
  std::vector<float> rows;
  if (!nodes.empty()) {
    bindBatch(forwardCtx, sampled);
    rows = factorRows(program, forwardCtx);
  }
  writeGatheredEmbeddings(comm, path, nodes, rows, n);
}

void SampledLinkSchedule::printStats(const TrainingResult &result) const {
  LinkSchedule::printStats(result);
  const double b = double(std::max<int64_t>(1, batchesTrained));
  const double e = double(std::max<int64_t>(1, result.last.epoch));
  int64_t excluded = 0;
  for (const auto &builder : builders)
    excluded += builder->excludedEdges();
  std::printf("stats: rank %d link batches %lld/epoch, mean batch: pairs %.0f "
              "seeds %.0f, target links excluded from message passing %lld "
              "draws\n",
              comm.rank(), (long long)steps, double(pairsTrained) / b,
              blockTotals.empty() ? 0.0 : double(blockTotals.back()[1]) / b,
              (long long)excluded);
  // The sizes a batch's floor is computed from, and where the time went.
  std::printf("stats: rank %d mean link batch:", comm.rank());
  for (size_t l = 0; l < blockTotals.size(); ++l)
    std::printf("%s block %zu sources %.0f destinations %.0f edges %.0f",
                l ? "," : "", l, double(blockTotals[l][0]) / b,
                double(blockTotals[l][1]) / b, double(blockTotals[l][2]) / b);
  std::printf("; %.6f s/epoch sampling, %.6f s/epoch waiting for batches\n",
              traffic.seconds / e, pipelineWait / e);
}

} // namespace gnnrt
