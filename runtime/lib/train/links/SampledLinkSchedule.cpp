//===- SampledLinkSchedule.cpp - link prediction on sampled batches -------===//
//
// See SampledLinkSchedule.h.
//
//===----------------------------------------------------------------------===//

#include "SampledLinkSchedule.h"

#include "batch/SampledTraining.h"
#include "params/OptimizerStep.h"

#include "gnnrt/data/links/LinkPairFiles.h"
#include "gnnrt/io/AtomicFile.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <array>
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

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The float's bits as an int64 (gatherAll moves int64 values).
int64_t bitsOf(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return int64_t(bits);
}
float floatOf(int64_t bits) {
  const uint32_t b = uint32_t(bits);
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

} // namespace

SampledLinkSchedule::SampledLinkSchedule(const CompiledProgram &program,
                                         const DriverOptions &options,
                                         Communicator &comm, bool samplerRanks)
    : LinkSchedule(program, options, comm, samplerRanks) {}

SampledLinkSchedule::~SampledLinkSchedule() = default;

TrainingData SampledLinkSchedule::loadData() {
  Dataset ds = linkDataset();
  if (comm.size() == 1)
    return prepareWholeGraph(std::move(ds), "original", program.needsEdgeIds);
  // Every rank made the same split; the message-passing graph (train links
  // only) is what the ranks partition and sample.
  TrainingData part = partitionAtStartup(std::move(ds), program, options, comm,
                                         /*cacheAssignment=*/false);
  // nodeIds lists the owned nodes, then the halo.
  ownedNodes.assign(size_t(part.numGlobalNodes), 0);
  for (int64_t v = 0; v < part.data.numNodes; ++v)
    ownedNodes[size_t(part.nodeIds[size_t(v)])] = 1;
  return part;
}

void SampledLinkSchedule::bind(ParameterStore<float> &store) {
  LinkSchedule::bind(store);
  const TrainSettings &s = program.settings;
  if (int64_t(s.fanouts.size()) != program.numBlocks)
    throw DataError("the program samples " + std::to_string(s.fanouts.size()) +
                    " layers but its model has " +
                    std::to_string(program.numBlocks));
  if (s.batchSize <= 0)
    throw DataError("the batch size must be positive (links per step)");
  assembler = std::make_unique<MiniBatchAssembler>(
      trainingData, trainingData.numGlobalNodes, s.replace,
      /*perRelation=*/false, s.seed, comm);
  // As node batches: one process reads block 0's input rows in the
  // dataset's table (with bf16 gathers a rounded copy of the table would be
  // needed: those batches copy their rows).
  assembler->readInputRowsInPlace(
      readsInputRowsInPlace(program, /*inputsLearned=*/learned != nullptr) &&
      kernels::gatherStorage() != kernels::GatherStorage::BFloat16);
  builder = std::make_unique<BlockBuilder>(trainingData.numGlobalNodes);
  builder->leaveOutEdges(program.blocksWithoutOutEdges);
  steps = ceilDiv(int64_t(linkData->trainLinks().size()), s.batchSize);
  if (options.maxStepsPerEpoch > 0)
    steps = std::min(steps, options.maxStepsPerEpoch);
}

void SampledLinkSchedule::assemblePairs(const PairBatch &pairs,
                                        const std::vector<int64_t> &mine,
                                        const std::vector<int64_t> &fanouts,
                                        const SampleKey &key,
                                        ExecContext<float> &ctx) {
  const GraphView g = pairs.graph.view();
  // The seeds: the pairs' endpoints, ascending, each once.
  std::vector<int64_t> seeds;
  seeds.reserve(2 * mine.size());
  for (int64_t e : mine) {
    seeds.push_back(g.edgeSrc[e]);
    seeds.push_back(g.edgeDst[e]);
  }
  std::sort(seeds.begin(), seeds.end());
  seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
  assembler->assemble(seeds, fanouts, key, *builder, sampled, traffic);
  // The pairs over the seeds (the last level's rows), positives first.
  auto seedOf = [&](int64_t v) {
    return int64_t(std::lower_bound(seeds.begin(), seeds.end(), v) -
                   seeds.begin());
  };
  LinkPairs positive, negative;
  for (int64_t e : mine) {
    LinkPairs &to = pairs.labels[size_t(e)] == 1 ? positive : negative;
    to.src.push_back(seedOf(g.edgeSrc[e]));
    to.dst.push_back(seedOf(g.edgeDst[e]));
  }
  stepPairs = makePairBatch(int64_t(seeds.size()), positive, negative);
  if (seeds.empty())
    return;
  bindBatch(ctx, sampled);
  ctx.pairs = stepPairs.graph.view();
  ctx.labels = stepPairs.labels.data();
  ctx.lossMask = nullptr;
}

double SampledLinkSchedule::trainEpoch(int64_t epoch, OptimizerStep &step) {
  const TrainSettings &s = program.settings;
  const LinkPairs &links = linkData->trainLinks();
  const int64_t total = int64_t(links.size()), k = s.links.negatives;
  // The order the epoch's links are batched in; each batch draws its
  // links' negatives as the full-graph schedule draws them (link e's
  // negative j from (seed, epoch, e, j)).
  std::vector<int64_t> order(static_cast<size_t>(total));
  std::iota(order.begin(), order.end(), int64_t(0));
  order = epochSeedOrder(order, s.shuffle, s.seed, uint64_t(epoch));
  double lossSum = 0;
  for (int64_t b = 0; b < steps; ++b) {
    const int64_t begin = b * s.batchSize,
                  end = std::min(total, begin + s.batchSize);
    // The batch's links, both directions, are excluded on every rank; this
    // rank scores the links whose destination it owns, and their negatives.
    std::vector<std::pair<int64_t, int64_t>> excluded;
    std::vector<int64_t> owned;
    LinkPairs positive;
    for (int64_t i = begin; i < end; ++i) {
      const int64_t e = order[size_t(i)];
      const int64_t u = links.src[size_t(e)], v = links.dst[size_t(e)];
      excluded.emplace_back(v, u);
      excluded.emplace_back(u, v);
      if (!owns(v))
        continue;
      owned.push_back(e);
      positive.src.push_back(u);
      positive.dst.push_back(v);
    }
    builder->excludeEdges(std::move(excluded));
    const PairBatch batch =
        makePairBatch(trainingData.numGlobalNodes, positive,
                      linkData->trainNegativesOf(epoch, owned));
    std::vector<int64_t> mine(batch.labels.size());
    std::iota(mine.begin(), mine.end(), int64_t(0));
    assemblePairs(batch, mine, s.fanouts,
                  SampleKey{s.seed, uint64_t(epoch), uint64_t(b)}, trainCtx);
    builder->excludeEdges({});
    trainCtx.step = uint64_t((epoch - 1) * steps + b);
    // This rank's share of the batch's mean loss.
    trainCtx.lossScale =
        double(mine.size()) / double(std::max<int64_t>(1, (end - begin) * (1 + k)));
    if (mine.empty()) {
      lossSum += step(nullptr);
      continue;
    }
    ++batchesTrained;
    seedsTrained += sampled.numSeeds();
    pairsTrained += int64_t(mine.size());
    lossSum += step(&trainCtx);
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
  std::vector<int64_t> scored; // (pair, logit 0 bits, logit 1 bits)
  std::vector<float> out;
  for (int64_t p = 0; p < passes; ++p) {
    const size_t begin = std::min(mine.size(), size_t(p * kInferencePairs)),
                 end = std::min(mine.size(), begin + size_t(kInferencePairs));
    const std::vector<int64_t> chunk(mine.begin() + begin, mine.begin() + end);
    assemblePairs(pairs, chunk, whole,
                  SampleKey{program.settings.seed, 0, uint64_t(p)}, forwardCtx);
    if (chunk.empty())
      continue;
    // stepPairs orders the chunk's pairs as makePairBatch does: find each
    // one's place by its (src, dst) over the seeds and its label.
    out.resize(size_t(2 * stepPairs.graph.view().numEdges));
    forwardCtx.output = out.data();
    program.forwardF32(forwardCtx);
    const GraphView local = stepPairs.graph.view();
    const std::vector<int64_t> &seeds = sampled.nodes;
    std::vector<std::array<int64_t, 4>> keyed; // (src, dst, label, row)
    for (int64_t r = 0; r < local.numEdges; ++r)
      keyed.push_back({seeds[size_t(local.edgeSrc[r])],
                       seeds[size_t(local.edgeDst[r])],
                       stepPairs.labels[size_t(r)], r});
    std::sort(keyed.begin(), keyed.end());
    std::vector<std::array<int64_t, 4>> wanted;
    for (int64_t e : chunk)
      wanted.push_back({g.edgeSrc[e], g.edgeDst[e], pairs.labels[size_t(e)], e});
    std::sort(wanted.begin(), wanted.end());
    for (size_t i = 0; i < wanted.size(); ++i) {
      const int64_t r = keyed[i][3];
      scored.push_back(wanted[i][3]);
      scored.push_back(bitsOf(out[size_t(2 * r)]));
      scored.push_back(bitsOf(out[size_t(2 * r + 1)]));
    }
  }
  const std::vector<int64_t> everyone = gatherAll(comm, scored);
  std::vector<float> rows(size_t(2 * g.numEdges), 0.0f);
  for (size_t i = 0; i + 2 < everyone.size(); i += 3) {
    rows[size_t(2 * everyone[i])] = floatOf(everyone[i + 1]);
    rows[size_t(2 * everyone[i] + 1)] = floatOf(everyone[i + 2]);
  }
  return rows;
}

void SampledLinkSchedule::writeEmbeddings(const std::string &path) {
  // Every node as a seed with its whole neighbourhood: the rows of the
  // last level are the nodes in id order.
  const int64_t n = trainingData.numGlobalNodes;
  std::vector<int64_t> nodes(static_cast<size_t>(n));
  std::iota(nodes.begin(), nodes.end(), int64_t(0));
  const std::vector<int64_t> whole(size_t(program.numBlocks), -1);
  assembler->assemble(nodes, whole, SampleKey{program.settings.seed, 0, 0},
                      *builder, sampled, traffic);
  bindBatch(forwardCtx, sampled);
  writeFactorEmbeddings(program, forwardCtx, n, path);
}

void SampledLinkSchedule::printStats(const TrainingResult &result) const {
  LinkSchedule::printStats(result);
  const double b = double(std::max<int64_t>(1, batchesTrained));
  std::printf("stats: rank %d link batches %lld/epoch, mean batch: pairs %.0f "
              "seeds %.0f, target links excluded from message passing %lld "
              "draws\n",
              comm.rank(), (long long)steps, double(pairsTrained) / b,
              double(seedsTrained) / b, (long long)builder->excludedEdges());
}

} // namespace gnnrt
