//===- SamplerRanks.cpp - the sampler ranks' side -------------------------===//
//
// See SamplerRanks.h. A sampler rank is a worker rank of a sampled run that
// never trains: it loads its part as DistributedSampledSchedule does (on
// the samplers' communicator, so the partitioning is worker mode's with S
// ranks), samples with worker mode's collectives and draws, and evaluates
// with the parameters trainer 0 broadcasts. The trainers' side is
// RemoteSampledSchedule.
//
//===----------------------------------------------------------------------===//

#include "SamplerRanks.h"

#include "ParameterStore.h"
#include "SampledSchedule.h"
#include "gnnrt/sample/BatchCodec.h"
#include "gnnrt/support/Error.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>

namespace gnnrt {

SamplerRanks SamplerRanks::of(const CompiledProgram &program,
                              const DriverOptions &options,
                              Communicator &world) {
  const int S = options.samplers, P = world.size();
  const std::string flag = "--samplers " + std::to_string(S);
  if (program.numBlocks == 0)
    throw UsageError(flag + ": sampler ranks serve sampled mini-batches, but "
                            "this program trains on the full graph (sampler "
                            "ranks need batches = neighbor(...))");
  if (P == 1)
    throw UsageError(flag +
                     ": sampler ranks are separate processes: start "
                     "the trainer with mpirun -np P, P >= " +
                     std::to_string(2 * S) + " (" + std::to_string(S) +
                     " sampler rank" + (S == 1 ? "" : "s") +
                     " and at least as many trainer ranks)");
  if (S >= P)
    throw UsageError(flag + " leaves no trainer rank among the " +
                     std::to_string(P) +
                     " ranks (the last S ranks sample, the others train)");
  if (P - S < S)
    throw UsageError(
        flag + " leaves " + std::to_string(P - S) + " trainer rank" +
        (P - S == 1 ? "" : "s") + " for " + std::to_string(S) +
        " sampler ranks: each trainer trains the batches of one sampler's "
        "partition, so at least as many trainers as samplers are needed "
        "(mpirun -np " +
        std::to_string(2 * S) + " or more)");
  if (program.settings.embedDim > 0)
    throw UsageError(flag + ": learned input rows (embed = " +
                     std::to_string(program.settings.embedDim) +
                     ") are not supported with sampler ranks yet: the rows "
                     "would live with the graph on the sampler ranks, the "
                     "gradients on the trainers");
  return SamplerRanks{world, P - S, S, options.prefetch};
}

std::vector<int64_t> sliceSeeds(const std::vector<int64_t> &seeds, int slice,
                                int slices) {
  const size_t n = seeds.size();
  const size_t begin = n * size_t(slice) / size_t(slices),
               end = n * size_t(slice + 1) / size_t(slices);
  return std::vector<int64_t>(seeds.begin() + begin, seeds.begin() + end);
}

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// One sampler rank: its part, loaded as a worker rank's, and the batches
/// it serves.
class BatchServer {
public:
  BatchServer(const CompiledProgram &program, const DriverOptions &options,
              const SamplerRanks &ranks, Communicator &samplers)
      : program(program), options(options), ranks(ranks), samplers(samplers),
        schedule(program, options, samplers,
                 std::ifstream(options.dataDir + "/manifest.json").good()) {}

  void run() {
    schedule.prepare();
    const TrainingData &data = schedule.data();
    params = std::make_unique<ParameterStore<float>>(program.params(
        {data.data.numFeatures, data.data.numClasses,
         int64_t(data.data.relations.size()), data.numGlobalNodes}));
    schedule.bind(*params);
    SampledTraining &training = schedule.sampling();
    if (samplers.rank() == 0) {
      const SampledDataInfo info{data.data.numFeatures, data.data.numClasses,
                                 data.numGlobalNodes,
                                 training.batchesPerEpoch()};
      for (int t = 0; t < ranks.numTrainers; ++t)
        ranks.world.send(&info, sizeof info, t, kDataInfoTag);
    }
    for (;;) {
      const auto command = decodeMessage<SamplerCommand>(
          ranks.world.receive(0, kCommandTag), "a command", 0);
      switch (command.kind) {
      case SamplerCommand::TrainEpoch:
        serveEpoch(training, command.epoch);
        break;
      case SamplerCommand::Evaluate:
        evaluate();
        break;
      case SamplerCommand::Predict:
        writePredictions();
        break;
      case SamplerCommand::Stop:
        if (options.stats)
          printStats(training);
        return;
      default:
        throw CommError("unknown command " + std::to_string(command.kind) +
                        " from rank 0");
      }
    }
  }

private:
  /// Serves every step of one epoch to this part's trainers.
  void serveEpoch(SampledTraining &training, int64_t epoch) {
    const SampledTraining::EpochPlan plan = training.planEpoch(epoch);
    const int part = samplers.rank(), slices = ranks.slicesOf(part);
    const int64_t numFeatures = schedule.data().data.numFeatures;
    /// Batches sent and not yet known to be received, with their bytes.
    struct InFlight {
      std::vector<char> bytes;
      std::unique_ptr<PendingTransfer> transfer;
    };
    std::deque<InFlight> inFlight;
    SampledBatch batch;
    const int64_t steps = training.batchesPerEpoch();
    for (int64_t b = 0; b < steps; ++b) {
      const std::vector<int64_t> seeds = plan.seedsOf(b);
      // Every sampler assembles the same number of batches per step (the
      // sampling is collective): empty ones past its own slices.
      for (int slice = 0; slice < ranks.maxSlices(); ++slice) {
        const bool served = slice < slices;
        const int trainer = part + slice * ranks.numSamplers;
        if (served)
          awaitRequest(trainer, epoch, b);
        const std::vector<int64_t> mine =
            served ? sliceSeeds(seeds, slice, slices) : std::vector<int64_t>();
        training.assembleStep(plan, b, mine, batch);
        if (!served)
          continue;
        InFlight &out = inFlight.emplace_back();
        const BatchHeader header{
            epoch, b,
            double(mine.size()) /
                double(std::max<int64_t>(1, plan.globalSeeds[size_t(b)]))};
        out.bytes.resize(sizeof header);
        std::memcpy(out.bytes.data(), &header, sizeof header);
        encodeBatch(batch, numFeatures, out.bytes);
        bytesSent += int64_t(out.bytes.size());
        ++batchesSent;
        out.transfer = ranks.world.startSend(
            out.bytes.data(), int64_t(out.bytes.size()), trainer, kBatchTag);
        // A trainer asks for step b only once it received step
        // b - prefetch, so the older sends are (nearly) done.
        while (inFlight.size() > size_t(ranks.prefetch) * size_t(slices)) {
          inFlight.front().transfer->wait();
          inFlight.pop_front();
        }
      }
    }
    for (InFlight &f : inFlight)
      f.transfer->wait();
    ++epochs;
  }

  /// Waits for `trainer`'s request of step b: the bounded queue's credit.
  void awaitRequest(int trainer, int64_t epoch, int64_t b) {
    const auto start = std::chrono::steady_clock::now();
    const auto request = decodeMessage<BatchRequest>(
        ranks.world.receive(trainer, kBatchRequestTag), "a batch request",
        trainer);
    requestWait += secondsSince(start);
    if (request.epoch != epoch || request.step != b)
      throw CommError("rank " + std::to_string(trainer) + " asked for step " +
                      std::to_string(request.step) + " of epoch " +
                      std::to_string(request.epoch) +
                      " while this sampler serves step " + std::to_string(b) +
                      " of epoch " + std::to_string(epoch));
  }

  /// The current parameters, which rank 0 broadcasts.
  void receiveParameters() {
    for (auto &values : params->values)
      ranks.world.broadcast(values.data(), int64_t(values.size()), 0);
  }

  /// The current parameters, then accuracies over every part; sampler 0
  /// sends them to every trainer.
  void evaluate() {
    receiveParameters();
    const Accuracies acc = schedule.evaluate();
    if (samplers.rank() != 0)
      return;
    double message[6];
    const std::optional<double> *splits[3] = {&acc.train, &acc.valid,
                                              &acc.test};
    for (int k = 0; k < 3; ++k) {
      message[2 * k] = splits[k]->has_value();
      message[2 * k + 1] = splits[k]->value_or(0);
    }
    for (int t = 0; t < ranks.numTrainers; ++t)
      ranks.world.send(message, sizeof message, t, kAccuracyTag);
  }

  /// --predict: the current parameters, then every part's rows, gathered
  /// over the samplers and written by sampler 0 as worker mode writes
  /// them; sampler 0 then tells trainer 0 the file is complete.
  void writePredictions() {
    receiveParameters();
    schedule.writePredictions(options.predictFile, samplers);
    if (samplers.rank() != 0)
      return;
    const int64_t rows = schedule.data().numGlobalNodes;
    ranks.world.send(&rows, sizeof rows, 0, kPredictionsTag);
  }

  void printStats(const SampledTraining &training) const {
    const double e = double(std::max<int64_t>(1, epochs));
    const SamplingTraffic &t = training.traffic();
    std::printf("stats: sampler rank %d (part %d) served %lld batches/epoch, "
                "%lld bytes/epoch, %.6f s/epoch sampling, %.6f s/epoch "
                "waiting for requests\n",
                ranks.world.rank(), samplers.rank(),
                (long long)(double(batchesSent) / e),
                (long long)(double(bytesSent) / e), t.seconds / e,
                requestWait / e);
  }

  const CompiledProgram &program;
  const DriverOptions &options;
  const SamplerRanks &ranks;
  Communicator &samplers;
  DistributedSampledSchedule schedule;
  std::unique_ptr<ParameterStore<float>> params;
  int64_t epochs = 0, batchesSent = 0, bytesSent = 0;
  double requestWait = 0;
};

} // namespace

void serveBatches(const CompiledProgram &program, const DriverOptions &options,
                  const SamplerRanks &ranks, Communicator &samplers) {
  BatchServer(program, options, ranks, samplers).run();
}

void stopSamplerRanks(const SamplerRanks &ranks) {
  const SamplerCommand stop{SamplerCommand::Stop, 0};
  for (int s = 0; s < ranks.numSamplers; ++s)
    ranks.world.send(&stop, sizeof stop, ranks.samplerRank(s), kCommandTag);
}

} // namespace gnnrt
