//===- SampledTraining.cpp - the epoch schedule of sampled batches --------===//
//
// See SampledTraining.h.
//
//===----------------------------------------------------------------------===//

#include "SampledTraining.h"

#include "RelationFanouts.h"

#include "gnnrt/support/CeilDiv.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <string>

namespace gnnrt {

namespace {

/// Seeds per inference pass. Full neighbourhoods of a few hops cover most
/// of a graph, so passes over subsets of the seeds would recompute the same
/// nodes: one pass over all of them computes each layer once for the nodes
/// the next layer reads (at most the whole graph per layer). The bound only
/// splits graphs with more evaluated nodes than this.
constexpr int64_t kEvalBatch = int64_t(1) << 24;

/// Batches in flight ahead of the training thread.
constexpr int kPipelineDepth = 4;

} // namespace

SampledTraining::SampledTraining(const CompiledProgram &program,
                                 const DriverOptions &options,
                                 const TrainingData &data, Communicator &comm,
                                 bool inputsLearned)
    : program(program), options(options), data(data), comm(comm),
      assembler(data, data.numGlobalNodes, program.settings.replace,
                program.settings.perRelation, program.settings.seed, comm,
                relationFanoutsOf(program.settings, data.data.relations,
                                  data.data.nodeTypes)),
      samplerThreads(options.samplerThreads), inputsLearned(inputsLearned) {
  const TrainSettings &s = program.settings;
  // Distributed sampling is a sequence of collectives every rank issues in
  // the same order. `--sampler-threads 1` moves it to one background thread
  // per rank with a communicator of its own (split from the training one,
  // so its collectives never match the gradient all-reduce), which keeps
  // the order; more threads would not.
  const bool backgroundCollectives = assembler.distributed() &&
                                     options.samplerThreadsGiven &&
                                     samplerThreads > 0;
  if (backgroundCollectives && samplerThreads > 1)
    throw UsageError(
        "--sampler-threads " + std::to_string(samplerThreads) +
        ": under mpirun (" + std::to_string(comm.size()) +
        " ranks) sampling is collective, so one thread per rank samples the "
        "batches in order (pass --sampler-threads 1, or 0 to sample in the "
        "training thread)");
  if (backgroundCollectives) {
    if (!comm.allowsConcurrentUse())
      throw CommError("--sampler-threads 1 under mpirun needs an MPI library "
                      "with MPI_THREAD_MULTIPLE, which this one does not "
                      "provide (pass --sampler-threads 0)");
    samplingComm = comm.split(0, comm.rank());
    samplingAssembler = std::make_unique<MiniBatchAssembler>(
        data, data.numGlobalNodes, program.settings.replace,
        program.settings.perRelation, program.settings.seed, *samplingComm,
        relationFanoutsOf(program.settings, data.data.relations,
                          data.data.nodeTypes));
  }
  if (inputsLearned)
    assembler.bypassFeatureCache();
  sampleOnDevice();
  readInputRowsInPlace();
  if (int64_t(s.fanouts.size()) != program.numBlocks)
    throw DataError("the program samples " + std::to_string(s.fanouts.size()) +
                    " layers but its model has " +
                    std::to_string(program.numBlocks));
  if (s.batchSize <= 0)
    throw DataError("the batch size must be positive");
  // Every rank learns the whole graph's training nodes, so that each
  // epoch's batches are one process's (a rank without training nodes
  // only joins the collectives).
  std::vector<int64_t> mine = assembler.globalIds(data.data.trainIdx);
  std::sort(mine.begin(), mine.end());
  allTrainNodes = gatherAll(comm, mine);
  std::sort(allTrainNodes.begin(), allTrainNodes.end());
  if (allTrainNodes.empty())
    throw DataError("the training split is empty: sampled training needs "
                    "seed nodes");
  ownsTrainNode.resize(allTrainNodes.size());
  for (size_t i = 0; i < allTrainNodes.size(); ++i)
    ownsTrainNode[i] =
        std::binary_search(mine.begin(), mine.end(), allTrainNodes[i]);
  stepsPerEpoch = ceilDiv(int64_t(allTrainNodes.size()), s.batchSize);
  if (options.maxStepsPerEpoch > 0)
    stepsPerEpoch = std::min(stepsPerEpoch, options.maxStepsPerEpoch);
  // One dedupe table per sampling thread; the training thread uses the
  // first when no pipeline runs.
  const int threads = std::max(1, samplerThreads);
  for (int t = 0; t < threads; ++t) {
    builders.push_back(std::make_unique<BlockBuilder>(data.numGlobalNodes));
    builders.back()->leaveOutEdges(program.blocksWithoutOutEdges);
  }
}

SampledTraining::~SampledTraining() {
  if (!bfloat16Features.empty())
    kernels::setBFloat16Table(nullptr, nullptr, 0);
}

void SampledTraining::sampleOnDevice() {
  if (!program.makeDeviceBatchSource)
    return;
  if (options.hostSampling) {
    devicePlacement = "draws on the host (--sample-on host), input rows "
                      "gathered on the host";
    return;
  }
  // Sampler ranks (--samplers) send their batches' rows to the trainers
  // from the host; they select no device.
  if (program.settings.samplers > 0) {
    devicePlacement = "draws on the host (sampler ranks)";
    return;
  }
  deviceBatches = program.makeDeviceBatchSource(
      assembler.sampledAdjacency(), data.numGlobalNodes,
      program.settings.replace);
  // Learned input rows change on the host every step: a resident copy
  // would go stale.
  bool rowsOnDevice = false;
  std::string rows = "on the host (learned input rows change every step)";
  if (!inputsLearned) {
    const std::vector<float> &cache = assembler.cacheInUse();
    rowsOnDevice = deviceBatches->placeRowTables(
        data.data.features.data(), data.data.numNodes,
        cache.empty() ? nullptr : cache.data(), assembler.cacheRowsInUse(),
        data.data.numFeatures);
    rows = deviceBatches->rowPlacement();
  }
  assembler.sampleOn(*deviceBatches, rowsOnDevice);
  if (samplingAssembler)
    samplingAssembler->sampleOn(*deviceBatches, rowsOnDevice);
  // Training batches come from the sampling thread's assembler when there
  // is one (its split communicator is a host one: host buffers).
  const MiniBatchAssembler &training =
      samplingAssembler ? *samplingAssembler : assembler;
  devicePlacement =
      "draws on " + deviceBatches->deviceName() + ", input rows gathered " +
      rows + ", " + deviceBatches->graphPlacement() +
      (training.deduplicatesOnDevice() ? ", hops deduplicated on the device"
       : training.sampledAdjacency().edgeType
           ? ", hops deduplicated on the host (a typed graph's blocks keep "
             "their relations)"
       : training.hostDedupRequested()
           ? ", hops deduplicated on the host (GNNRT_SAMPLING_DEDUP=host)"
           : ", hops deduplicated on the host (the neighbours other ranks "
             "send arrive in host buffers)");
}

bool readsInputRowsInPlace(const CompiledProgram &program,
                           bool inputsLearned) {
  // The rows a step reads must be the ones the batch names: not learned
  // rows (a step updates them, and their gradient rows are the batch's),
  // not a device's, and not a batch sent on to a trainer (sampler ranks).
  bool inPlace = program.inputRowsInPlace && !inputsLearned &&
                 !program.useDevice && program.settings.samplers == 0;
  if (const char *rows = std::getenv("GNNRT_INPUT_ROWS")) {
    if (std::string(rows) != "copy" && std::string(rows) != "in-place")
      throw UsageError("GNNRT_INPUT_ROWS=" + std::string(rows) +
                       ": expected copy or in-place");
    inPlace = inPlace && std::string(rows) == "in-place";
  }
  return inPlace;
}

void SampledTraining::readInputRowsInPlace() {
  const bool inPlace = readsInputRowsInPlace(program, inputsLearned);
  assembler.readInputRowsInPlace(inPlace);
  // In place, the first aggregation gathers from the dataset's whole table:
  // with bf16 gathers, round it once here rather than on every step.
  if (inPlace && kernels::gatherStorage() == kernels::GatherStorage::BFloat16) {
    const int64_t values = data.data.numNodes * data.data.numFeatures;
    bfloat16Features.reserve(values);
    kernels::roundToBFloat16(data.data.features.data(), bfloat16Features.data(),
                             values);
    kernels::setBFloat16Table(data.data.features.data(),
                              bfloat16Features.data(), values);
  }
}

void SampledTraining::routeGradients(LearnedInputs &learned) {
  if (!assembler.distributed())
    return;
  learned.routeGradients([this](const int64_t *ids, int64_t rows,
                                const float *grad, int64_t width,
                                std::vector<int64_t> &ownRows,
                                std::vector<float> &ownGrad) {
    assembler.sendRowGradients(ids, rows, grad, width, ownRows, ownGrad,
                               trainTraffic);
  });
}

void bindBatch(ExecContext<float> &ctx, const SampledBatch &batch) {
  ctx.blocks = batch.views.data();
  ctx.graph = batch.views.back();
  ctx.deviceFeatures = batch.deviceFeatures;
  ctx.features = batch.deviceFeatures ? nullptr : batch.features.data();
  ctx.inputTable = batch.inputTable;
  ctx.inputTableBlock = batch.inputTable ? &batch.inputTableBlock : nullptr;
  ctx.labels = batch.labels.data();
  ctx.lossMask = nullptr;
  // Level 0's global ids name the rows of every level (each is a prefix).
  ctx.nodeIds = batch.nodes.data();
  ctx.edgeIds = nullptr;
  ctx.srcDegree = ctx.dstDegree = nullptr;
  ctx.halo = nullptr;
}

std::vector<int64_t> SampledTraining::EpochPlan::seedsOf(int64_t b) const {
  return std::vector<int64_t>(order.begin() + stepBegin[size_t(b)],
                              order.begin() + stepBegin[size_t(b) + 1]);
}

SampledTraining::EpochPlan SampledTraining::planEpoch(int64_t epoch) const {
  const int64_t batchSize = program.settings.batchSize,
                total = int64_t(allTrainNodes.size());
  EpochPlan plan;
  plan.epoch = epoch;
  // The shuffle permutes positions, so it is the same permutation of the
  // same (sorted) nodes on every rank and in one process.
  std::vector<int64_t> positions(static_cast<size_t>(total));
  std::iota(positions.begin(), positions.end(), int64_t(0));
  positions = epochSeedOrder(positions, program.settings.shuffle,
                             program.settings.seed, uint64_t(epoch));
  // Batch b is positions[b * batchSize ..], at most batchSize of them; this
  // rank trains the ones it owns.
  plan.stepBegin.assign(1, 0);
  for (int64_t b = 0; b < stepsPerEpoch; ++b) {
    const int64_t begin = b * batchSize,
                  end = std::min(total, begin + batchSize);
    for (int64_t i = begin; i < end; ++i) {
      const size_t at = size_t(positions[size_t(i)]);
      if (ownsTrainNode[at])
        plan.order.push_back(allTrainNodes[at]);
    }
    plan.stepBegin.push_back(int64_t(plan.order.size()));
    plan.stepSeeds.push_back(plan.stepBegin[size_t(b) + 1] -
                             plan.stepBegin[size_t(b)]);
    plan.globalSeeds.push_back(end - begin);
  }
  return plan;
}

void SampledTraining::assembleStep(const EpochPlan &plan, int64_t b,
                                   const std::vector<int64_t> &seeds,
                                   SampledBatch &out,
                                   MiniBatchAssembler::Inputs inputs) {
  assembler.assemble(
      seeds, program.settings.fanouts,
      SampleKey{program.settings.seed, uint64_t(plan.epoch), uint64_t(b)},
      *builders.front(), out, trainTraffic, inputs);
}

double SampledTraining::trainEpoch(
    int64_t epoch, ExecContext<float> &ctx,
    const std::function<double(ExecContext<float> *)> &step) {
  const TrainSettings &s = program.settings;
  const EpochPlan plan = planEpoch(epoch);
  const std::vector<int64_t> &stepSeeds = plan.stepSeeds,
                             &globalSeeds = plan.globalSeeds;
  auto keyOf = [&](int64_t b) {
    return SampleKey{program.settings.seed, uint64_t(epoch), uint64_t(b)};
  };

  double lossSum = 0;
  auto run = [&](int64_t b, SampledBatch &sampled) {
    ctx.step = uint64_t((epoch - 1) * stepsPerEpoch + b);
    ctx.lossScale = double(stepSeeds[size_t(b)]) /
                    double(std::max<int64_t>(1, globalSeeds[size_t(b)]));
    if (sampled.numSeeds() == 0) {
      lossSum += step(nullptr);
      return;
    }
    bindBatch(ctx, sampled);
    blockTotals.resize(sampled.views.size(), {0, 0, 0});
    for (size_t l = 0; l < sampled.views.size(); ++l) {
      blockTotals[l][0] += sampled.views[l].numSrc;
      blockTotals[l][1] += sampled.views[l].numDst;
      blockTotals[l][2] += sampled.views[l].numEdges;
    }
    ++batchesTrained;
    lossSum += step(&ctx);
  };

  if (samplingAssembler || (!assembler.distributed() && samplerThreads > 0)) {
    // One process: any number of threads; a rank: one, on its own
    // communicator, producing the batches in order.
    MiniBatchAssembler &sampler =
        samplingAssembler ? *samplingAssembler : assembler;
    std::vector<SamplingTraffic> workerTraffic(builders.size());
    // A batch sampled ahead would read input rows the steps before it are
    // about to update: learned inputs are gathered here, at its turn.
    const auto inputs = inputsLearned ? MiniBatchAssembler::Inputs::Defer
                                      : MiniBatchAssembler::Inputs::Gather;
    pipelineSlots.resize(kPipelineDepth);
    BatchPipeline pipeline(stepsPerEpoch, samplerThreads, pipelineSlots,
                           [&](int64_t b, int worker, SampledBatch &slot) {
                             sampler.assemble(plan.seedsOf(b), s.fanouts,
                                              keyOf(b),
                                              *builders[size_t(worker)], slot,
                                              workerTraffic[size_t(worker)],
                                              inputs);
                           });
    // A device trainer copies batch b + 1 to the device while step b runs
    // (CompiledProgram::stageBatch): the pipeline then hands out b + 1
    // before step b, keeping b's slot until the step after.
    const bool lookAhead = program.stageBatch != nullptr;
    ExecContext<float> nextCtx;
    SampledBatch *sampled = nullptr;
    for (int64_t b = 0; b < stepsPerEpoch; ++b) {
      SampledBatch *current = sampled ? sampled : pipeline.next();
      if (!current)
        throw std::logic_error("the batch pipeline ended early");
      if (inputsLearned)
        assembler.gatherInputs(*current, trainTraffic);
      sampled = nullptr;
      // Learned inputs are gathered at their batch's turn (above), so their
      // batches are not staged ahead.
      if (lookAhead && !inputsLearned && b + 1 < stepsPerEpoch) {
        sampled = pipeline.next(/*keep=*/1);
        if (sampled && sampled->numSeeds() > 0) {
          nextCtx = ctx;
          nextCtx.step = uint64_t((epoch - 1) * stepsPerEpoch + b + 1);
          bindBatch(nextCtx, *sampled);
          program.stageBatch(nextCtx);
        }
      }
      run(b, *current);
    }
    pipelineWait += pipeline.waitSeconds();
    for (const SamplingTraffic &t : workerTraffic)
      trainTraffic.add(t);
  } else {
    // Without a sampling thread, distributed sampling runs in the training
    // thread, in the same order on every rank. Its batch is the ring's first
    // slot, kept across epochs as the ring is: a batch made afresh each epoch
    // faulted its pages in again (13% of a 1M-node epoch clearing pages).
    if (pipelineSlots.empty())
      pipelineSlots.resize(1);
    SampledBatch &sampled = pipelineSlots.front();
    for (int64_t b = 0; b < stepsPerEpoch; ++b) {
      assembleStep(plan, b, plan.seedsOf(b), sampled);
      run(b, sampled);
    }
  }
  return lossSum / double(std::max<int64_t>(1, stepsPerEpoch));
}

void SampledTraining::infer(
    ExecContext<float> &ctx, const std::vector<int64_t> &local,
    const std::function<void(size_t, size_t, const float *)> &visit) {
  // Inference batches are whole neighbourhoods: the training ring's
  // buffers go first, so that the peak holds one or the other.
  std::vector<SampledBatch>().swap(pipelineSlots);
  const std::vector<int64_t> global = assembler.globalIds(local);
  const std::vector<int64_t> all(size_t(program.numBlocks), -1);
  // Whole neighbourhoods: relations with fanouts of their own take all too.
  struct WholeNeighbourhoods {
    MiniBatchAssembler &assembler;
    ~WholeNeighbourhoods() { assembler.useRelationFanouts(true); }
  } restore{assembler};
  assembler.useRelationFanouts(false);
  const int64_t classes = data.data.numClasses;
  const std::vector<int64_t> counts = gatherCounts(comm, int64_t(local.size()));
  int64_t chunks = 0;
  for (int64_t c : counts)
    chunks = std::max(chunks, ceilDiv(c, kEvalBatch));
  SampledBatch batch;
  SamplingTraffic traffic;
  std::vector<float> logits;
  BlockBuilder &builder = *builders.front();
  for (int64_t c = 0; c < chunks; ++c) {
    const size_t begin = std::min(global.size(), size_t(c * kEvalBatch)),
                 end = std::min(global.size(), begin + size_t(kEvalBatch));
    std::vector<int64_t> seeds(global.begin() + begin, global.begin() + end);
    assembler.assemble(seeds, all,
                       SampleKey{program.settings.seed, 0, uint64_t(c)},
                       builder, batch, traffic);
    if (seeds.empty())
      continue;
    bindBatch(ctx, batch);
    logits.resize(seeds.size() * size_t(classes));
    ctx.output = logits.data();
    program.forwardF32(ctx);
    visit(begin, seeds.size(), logits.data());
  }
}

Accuracies SampledTraining::evaluate(ExecContext<float> &ctx) {
  // The evaluated nodes of this rank, each tagged with its splits.
  const std::vector<int64_t> *splits[3] = {
      &data.data.trainIdx, &data.data.validIdx, &data.data.testIdx};
  // Only the splits `evaluate = [...]` names are inferred: a node of an
  // unnamed split alone is not sampled at all, and its split stays n/a.
  const std::array<bool, 3> named = evaluatedSplits(program.settings);
  std::vector<uint8_t> tags(size_t(data.data.numNodes), 0);
  for (int k = 0; k < 3; ++k)
    for (int64_t v : named[size_t(k)] ? *splits[k] : std::vector<int64_t>())
      tags[size_t(v)] |= uint8_t(1u << k);
  std::vector<int64_t> local;
  for (int64_t v = 0; v < data.data.numNodes; ++v)
    if (tags[size_t(v)])
      local.push_back(v);
  const int64_t classes = data.data.numClasses;
  int64_t sums[6] = {0, 0, 0, 0, 0, 0}; // correct, labeled per split
  const bool validLoss = wantsValidLoss(program.settings);
  double loss[2] = {0, 0}; // the validation nodes' cross-entropy, count
  infer(ctx, local, [&](size_t first, size_t count, const float *logits) {
    for (size_t i = 0; i < count; ++i) {
      const int64_t v = local[first + i], label = data.data.labels[size_t(v)];
      if (label < 0)
        continue;
      const float *row = logits + i * size_t(classes);
      const bool correct = argmaxRow(row, classes) == label;
      if (validLoss && (tags[size_t(v)] & 2u)) {
        loss[0] += crossEntropyRow(row, classes, label);
        loss[1] += 1;
      }
      for (int k = 0; k < 3; ++k)
        if (tags[size_t(v)] & (1u << k)) {
          sums[2 * k] += correct;
          sums[2 * k + 1] += 1;
        }
    }
  });
  comm.allReduceSum(sums, 6);
  AccuracyCounts acc[3];
  for (int k = 0; k < 3; ++k)
    acc[k] = {sums[2 * k], sums[2 * k + 1]};
  Accuracies out{acc[0].fraction(), acc[1].fraction(), acc[2].fraction()};
  if (validLoss) {
    comm.allReduceSum(loss, 2);
    out.validLoss = LossSum{loss[0], loss[1]}.mean();
  }
  return out;
}

void SampledTraining::predict(ExecContext<float> &ctx,
                              std::vector<float> &logits) {
  const int64_t classes = data.data.numClasses;
  std::vector<int64_t> local(size_t(data.data.numNodes));
  for (size_t v = 0; v < local.size(); ++v)
    local[v] = int64_t(v);
  logits.resize(local.size() * size_t(classes));
  infer(ctx, local, [&](size_t first, size_t count, const float *rows) {
    std::copy(rows, rows + count * size_t(classes),
              logits.begin() + first * size_t(classes));
  });
}

void SampledTraining::printStats(std::FILE *out, int64_t epochs) const {
  const double e = double(std::max<int64_t>(1, epochs));
  const SamplingTraffic &t = trainTraffic;
  const int r = comm.rank();
  auto perEpoch = [&](int64_t v) { return (long long)(double(v) / e); };
  std::fprintf(out,
               "stats: rank %d sampling %lld batches/epoch, %lld seeds, "
               "%lld sampled edges/epoch, %.6f s/epoch sampling, %.6f s/epoch "
               "waiting for batches\n",
               r, perEpoch(t.batches), perEpoch(t.seeds),
               perEpoch(t.sampledEdges), t.seconds / e, pipelineWait / e);
  if (assembler.distributed())
    printRemoteStats(out, e);
  // Last: the tutorials check the lines above in order.
  if (batchesTrained > 0) {
    std::fprintf(out, "stats: rank %d mean batch:", r);
    const double b = double(batchesTrained);
    for (size_t l = 0; l < blockTotals.size(); ++l)
      std::fprintf(
          out, "%s block %zu sources %.0f destinations %.0f edges %.0f",
          l ? "," : "", l, double(blockTotals[l][0]) / b,
          double(blockTotals[l][1]) / b, double(blockTotals[l][2]) / b);
    std::fprintf(out, "\n");
  }
  if (!devicePlacement.empty())
    std::fprintf(out, "stats: rank %d device sampling: %s\n", r,
                 devicePlacement.c_str());
  if (deviceBatches) {
    const DeviceBatchSource::Transfers bytes =
        deviceBatches->samplingTransfers();
    std::fprintf(out,
                 "stats: rank %d device sampling host<->device bytes over the "
                 "run: neighbour lists to the host %lld, other %lld (the "
                 "draws' rows, counts and offsets, new nodes, blocks)\n",
                 r, (long long)bytes.neighborLists, (long long)bytes.other);
  }
  if (t.batches > 0 && !assembler.distributed())
    std::fprintf(out,
                 "stats: rank %d input rows copied %lld/epoch, %lld of %lld "
                 "batches/epoch read the others in place\n",
                 r, perEpoch(t.copiedRows), perEpoch(t.batchesInPlace),
                 perEpoch(t.batches));
}

void SampledTraining::printRemoteStats(std::FILE *out, double e) const {
  const SamplingTraffic &t = trainTraffic;
  const int r = comm.rank();
  auto perEpoch = [&](int64_t v) { return (long long)(double(v) / e); };
  const int64_t remote = t.remoteRows + t.cachedRows;
  std::fprintf(out,
               "stats: rank %d sampling all_to_all bytes/epoch: neighbour "
               "requests %lld replies %lld, feature requests %lld rows %lld\n",
               r, perEpoch(t.sampleRequestBytes), perEpoch(t.sampleReplyBytes),
               perEpoch(t.featureRequestBytes), perEpoch(t.featureReplyBytes));
  std::fprintf(out,
               "stats: rank %d remote feature rows fetched %lld/epoch, cache "
               "hits %lld/epoch (hit rate %.4f)\n",
               r, perEpoch(t.remoteRows), perEpoch(t.cachedRows),
               remote ? double(t.cachedRows) / double(remote) : 0.0);
  // Training batches come from the sampling thread's assembler when there
  // is one (its split communicator is a host one: host buffers).
  if ((samplingAssembler ? *samplingAssembler : assembler).exchangesOnDevice())
    std::fprintf(out,
                 "stats: rank %d sampling all_to_all bytes/epoch between "
                 "device buffers (device communicator): neighbour replies "
                 "%lld, feature rows %lld\n",
                 r, perEpoch(t.deviceReplyBytes), perEpoch(t.deviceRowBytes));
}

} // namespace gnnrt
