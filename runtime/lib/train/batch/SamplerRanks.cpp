//===- SamplerRanks.cpp - the sampler ranks' side -------------------------===//
//
// See SamplerRanks.h. A sampler rank is a worker rank of a sampled run that
// never trains: it loads its part as DistributedSampledSchedule does (on
// the samplers' communicator, so the partitioning is worker mode's with S
// ranks), samples with worker mode's collectives and draws, and evaluates
// with the parameters trainer 0 broadcasts. With learned input rows it owns
// its part's rows and updates them as a worker rank does. The trainers'
// side is RemoteSampledSchedule.
//
//===----------------------------------------------------------------------===//

#include "SamplerRanks.h"

#include "gnnrt/sample/BatchCodec.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/Stopwatch.h"
#include "params/OptimizerStep.h"
#include "params/ParameterStore.h"
#include "params/RowSums.h"
#include "schedule/SampledSchedule.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <optional>
#include <unordered_map>

namespace gnnrt {

SamplerRanks SamplerRanks::of(const CompiledProgram &program,
                              const DriverOptions &options,
                              Communicator &world) {
  const int S = int(program.settings.samplers), P = world.size();
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

/// A byte buffer written and read field by field (the snapshot codec).
void putBytes(std::vector<char> &out, const void *data, size_t bytes) {
  const char *from = static_cast<const char *>(data);
  out.insert(out.end(), from, from + bytes);
}
void putInt(std::vector<char> &out, int64_t value) {
  putBytes(out, &value, sizeof value);
}

struct MessageReader {
  const std::vector<char> &message;
  int from;
  size_t at = 0;
  void take(void *data, size_t bytes) {
    if (bytes > message.size() - at)
      throw CommError("learned rows from rank " + std::to_string(from) +
                      " end after " + std::to_string(message.size()) +
                      " bytes, inside a table");
    std::memcpy(data, message.data() + at, bytes);
    at += bytes;
  }
  int64_t integer() {
    int64_t value;
    take(&value, sizeof value);
    return value;
  }
};

} // namespace

std::vector<char> encodeLearnedRows(const LearnedInputsSnapshot &snapshot) {
  // steps, the state count, then per state its tables: the type's name,
  // count, width and values.
  std::vector<char> out;
  const std::vector<LearnedInputs::Table> *states[3] = {
      &snapshot.rows, &snapshot.expAvg, &snapshot.expAvgSq};
  const int64_t count = snapshot.expAvg.empty() ? 1 : 3;
  putInt(out, snapshot.steps);
  putInt(out, count);
  for (int64_t k = 0; k < count; ++k) {
    putInt(out, int64_t(states[k]->size()));
    for (const LearnedInputs::Table &t : *states[k]) {
      putInt(out, int64_t(t.nodeType.size()));
      putBytes(out, t.nodeType.data(), t.nodeType.size());
      putInt(out, t.count);
      putInt(out, t.dim);
      putBytes(out, t.values.data(), t.values.size() * sizeof(float));
    }
  }
  return out;
}

LearnedInputsSnapshot decodeLearnedRows(const std::vector<char> &message,
                                        int from) {
  MessageReader in{message, from};
  LearnedInputsSnapshot snapshot;
  std::vector<LearnedInputs::Table> *states[3] = {
      &snapshot.rows, &snapshot.expAvg, &snapshot.expAvgSq};
  snapshot.steps = in.integer();
  const int64_t count = in.integer();
  if (count != 1 && count != 3)
    throw CommError("learned rows from rank " + std::to_string(from) +
                    " with " + std::to_string(count) + " states");
  for (int64_t k = 0; k < count; ++k) {
    const int64_t tables = in.integer();
    for (int64_t i = 0; i < tables; ++i) {
      LearnedInputs::Table t;
      t.nodeType.resize(size_t(in.integer()));
      in.take(t.nodeType.data(), t.nodeType.size());
      t.count = in.integer();
      t.dim = in.integer();
      t.values.resize(size_t(t.count * t.dim));
      in.take(t.values.data(), t.values.size() * sizeof(float));
      states[k]->push_back(std::move(t));
    }
  }
  if (in.at != message.size())
    throw CommError("learned rows from rank " + std::to_string(from) +
                    " have " + std::to_string(message.size() - in.at) +
                    " bytes past their tables");
  return snapshot;
}

namespace {

/// One sampler rank: its part, loaded as a worker rank's, and the batches
/// it serves.
class BatchServer {
public:
  /// `resume`: the --resume checkpoint (the settings' seed is already its
  /// seed).
  BatchServer(const CompiledProgram &program, const DriverOptions &options,
              const SamplerRanks &ranks, Communicator &samplers,
              const ResumableCheckpoint *resume)
      : program(program), options(options), ranks(ranks), samplers(samplers),
        resume(resume),
        schedule(program, options, samplers,
                 std::ifstream(options.dataDir + "/manifest.json").good()) {}

  void run() {
    schedule.prepare();
    const TrainingData &data = schedule.data();
    params = std::make_unique<ParameterStore<float>>(program.params(
        {data.data.numFeatures, data.data.numClasses,
         int64_t(data.data.relations.size()), data.numGlobalNodes}));
    schedule.bind(*params);
    restoreLearnedRows();
    SampledTraining &training = schedule.sampling();
    if (samplers.rank() == 0) {
      const SampledDataInfo info{
          data.data.numFeatures, data.data.numClasses, data.numGlobalNodes,
          int64_t(data.data.relations.size()), training.batchesPerEpoch()};
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
      case SamplerCommand::SnapshotRows:
        sendLearnedRows(command.moments != 0);
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
  /// --load's or --resume's learned rows (the trainers load the weights):
  /// this sampler's rows of the file, and with --resume their Adam state.
  void restoreLearnedRows() {
    LearnedInputs *learned = schedule.learnedInputs();
    if (!learned)
      return;
    if (resume) {
      resume->restoreLearnedInputs(*learned);
    } else if (!options.loadFile.empty()) {
      ParameterStore<float> loaded = *params;
      const SafetensorsContents file = loadCheckpoint(
          options.loadFile, program.model, loaded, /*learnedInputs=*/true);
      restoreLearnedInputs(options.loadFile, file, *learned,
                           /*moments=*/false);
    }
  }

  /// Every sampler's learned rows (with `moments`, their Adam state)
  /// gathered on sampler 0, which sends them to trainer 0.
  void sendLearnedRows(bool moments) {
    const std::optional<LearnedInputsSnapshot> snapshot =
        schedule.learnedInputsSnapshot(moments);
    if (samplers.rank() != 0)
      return;
    const std::vector<char> message =
        encodeLearnedRows(snapshot ? *snapshot : LearnedInputsSnapshot{});
    ranks.world.send(message.data(), int64_t(message.size()), 0,
                     kLearnedRowsTag);
  }

  /// Serves every step of one epoch to this part's trainers.
  void serveEpoch(SampledTraining &training, int64_t epoch) {
    if (schedule.learnedInputs()) {
      serveEpochLearningRows(training, epoch);
      return;
    }
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

  /// serveEpoch for a program with learned input rows: step b's blocks are
  /// sampled while the trainers train step b - 1, but its input rows are
  /// gathered only after step b - 1's gradients updated them, as a worker
  /// rank's next batch reads them; the last step's update ends the epoch.
  void serveEpochLearningRows(SampledTraining &training, int64_t epoch) {
    const SampledTraining::EpochPlan plan = training.planEpoch(epoch);
    const int part = samplers.rank(), slices = ranks.slicesOf(part);
    const int64_t numFeatures = schedule.data().data.numFeatures;
    const int64_t steps = training.batchesPerEpoch();
    slots.resize(size_t(ranks.maxSlices()));
    readNodes.resize(size_t(slices));
    std::vector<char> message;
    for (int64_t b = 0; b < steps; ++b) {
      const std::vector<int64_t> seeds = plan.seedsOf(b);
      std::vector<double> lossScale(size_t(slices), 0.0);
      for (int slice = 0; slice < ranks.maxSlices(); ++slice) {
        const bool served = slice < slices;
        std::vector<int64_t> mine;
        if (served) {
          awaitRequest(part + slice * ranks.numSamplers, epoch, b);
          mine = sliceSeeds(seeds, slice, slices);
          lossScale[size_t(slice)] =
              double(mine.size()) /
              double(std::max<int64_t>(1, plan.globalSeeds[size_t(b)]));
        }
        training.assembleStep(plan, b, mine, slots[size_t(slice)],
                              MiniBatchAssembler::Inputs::Defer);
      }
      if (b > 0)
        updateLearnedRows(epoch, b - 1);
      for (int slice = 0; slice < ranks.maxSlices(); ++slice) {
        SampledBatch &batch = slots[size_t(slice)];
        training.gatherStepInputs(batch);
        if (slice >= slices)
          continue;
        // The trainer's gradient rows come back in this order.
        const int64_t rows =
            batch.numSeeds() > 0 ? batch.levelSizes.front() : 0;
        readNodes[size_t(slice)].assign(batch.nodes.begin(),
                                        batch.nodes.begin() + rows);
        const BatchHeader header{epoch, b, lossScale[size_t(slice)]};
        message.resize(sizeof header);
        std::memcpy(message.data(), &header, sizeof header);
        encodeBatch(batch, numFeatures, message);
        bytesSent += int64_t(message.size());
        ++batchesSent;
        // The trainer's reply (its gradients) needs this batch: no send
        // stays in flight past the next step.
        ranks.world.send(message.data(), int64_t(message.size()),
                         part + slice * ranks.numSamplers, kBatchTag);
      }
    }
    if (steps > 0)
      updateLearnedRows(epoch, steps - 1);
    ++epochs;
  }

  /// Step b's input-row gradients from this part's trainers (slice order;
  /// a row read by several slices gets their sum), then worker mode's
  /// update: the gradients go to the rows' owners among the samplers, each
  /// of which applies sparse Adam to its rows. Collective over the
  /// samplers.
  void updateLearnedRows(int64_t epoch, int64_t b) {
    const int part = samplers.rank(), slices = ranks.slicesOf(part);
    const int64_t width = schedule.data().data.numFeatures;
    std::vector<int64_t> ids;
    std::vector<float> grad;
    std::unordered_map<int64_t, int64_t> rowOf;
    for (int slice = 0; slice < slices; ++slice) {
      const int trainer = part + slice * ranks.numSamplers;
      const std::vector<char> message =
          ranks.world.receive(trainer, kRowGradientTag);
      RowGradientHeader header;
      if (message.size() >= sizeof header)
        std::memcpy(&header, message.data(), sizeof header);
      const std::vector<int64_t> &nodes = readNodes[size_t(slice)];
      const int64_t rows = int64_t(nodes.size());
      if (message.size() !=
              sizeof header + size_t(rows * width) * sizeof(float) ||
          header.epoch != epoch || header.step != b || header.rows != rows)
        throw CommError("rank " + std::to_string(trainer) + " sent " +
                        std::to_string(message.size()) +
                        " bytes of input-row gradients for step " +
                        std::to_string(header.step) + " of epoch " +
                        std::to_string(header.epoch) + ", expected " +
                        std::to_string(rows) + " rows of " +
                        std::to_string(width) + " for step " +
                        std::to_string(b) + " of epoch " +
                        std::to_string(epoch));
      const float *g =
          reinterpret_cast<const float *>(message.data() + sizeof header);
      for (int64_t i = 0; i < rows; ++i)
        if (addToRowSum(rowOf, grad, nodes[size_t(i)], g + i * width, width))
          ids.push_back(nodes[size_t(i)]);
    }
    LearnedInputs &learned = *schedule.learnedInputs();
    float *buffer = learned.beginStep(int64_t(ids.size()));
    std::copy(grad.begin(), grad.end(), buffer);
    learned.update(optimizerConfig, ids.data());
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
  const ResumableCheckpoint *resume;
  DistributedSampledSchedule schedule;
  std::unique_ptr<ParameterStore<float>> params;
  /// Learned input rows: the train block's optimizer at --lr (its sparse
  /// Adam rule), the step's batches per slice and the level-0 nodes each
  /// served slice read, whose gradients its trainer sends back.
  const OptimizerConfig optimizerConfig = optimizerConfigOf(program);
  std::vector<SampledBatch> slots;
  std::vector<std::vector<int64_t>> readNodes;
  int64_t epochs = 0, batchesSent = 0, bytesSent = 0;
  double requestWait = 0;
};

} // namespace

void serveBatches(const CompiledProgram &program, const DriverOptions &options,
                  const SamplerRanks &ranks, Communicator &samplers) {
  // A resumed run samples with the checkpoint's seed, as the trainers
  // train with it (Driver.cpp).
  std::optional<ResumableCheckpoint> resume;
  CompiledProgram serving = program;
  if (!options.resumeFile.empty()) {
    resume.emplace(options.resumeFile, program.model);
    serving.settings.seed = resume->point().seed;
  }
  BatchServer(serving, options, ranks, samplers, resume ? &*resume : nullptr)
      .run();
}

void stopSamplerRanks(const SamplerRanks &ranks) {
  const SamplerCommand stop{SamplerCommand::Stop, 0};
  for (int s = 0; s < ranks.numSamplers; ++s)
    ranks.world.send(&stop, sizeof stop, ranks.samplerRank(s), kCommandTag);
}

} // namespace gnnrt
