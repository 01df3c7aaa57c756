//===- RemoteSampledSchedule.cpp - training on batches from samplers ------===//
//
// See RemoteSampledSchedule.h and SamplerRanks.h (the conversation).
//
//===----------------------------------------------------------------------===//

#include "RemoteSampledSchedule.h"

#include "batch/SampledTraining.h"
#include "gnnrt/sample/BatchCodec.h"
#include "gnnrt/support/Error.h"
#include "params/OptimizerStep.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace gnnrt {

TrainingData RemoteSampledSchedule::loadData() {
  const int from = ranks.samplerRank(0);
  const auto info = decodeMessage<SampledDataInfo>(
      ranks.world.receive(from, kDataInfoTag), "the data's dimensions", from);
  TrainingData t;
  t.data.numFeatures = info.numFeatures;
  t.data.numClasses = info.numClasses;
  t.numGlobalNodes = info.numGlobalNodes;
  // The parameters' shapes need only the count; the batches carry each
  // edge's relation.
  t.data.relations.resize(size_t(info.numRelations));
  steps = info.stepsPerEpoch;
  return t;
}

void RemoteSampledSchedule::command(SamplerCommand::Kind kind, int64_t epoch,
                                    int64_t moments) {
  if (comm.rank() != 0)
    return;
  const SamplerCommand c{kind, epoch, moments};
  for (int s = 0; s < ranks.numSamplers; ++s)
    ranks.world.send(&c, sizeof c, ranks.samplerRank(s), kCommandTag);
}

void RemoteSampledSchedule::requestBatch(int64_t epoch, int64_t step) {
  const BatchRequest request{epoch, step};
  ranks.world.send(&request, sizeof request,
                   ranks.samplerRank(ranks.partOf(comm.rank())),
                   kBatchRequestTag);
}

void RemoteSampledSchedule::sendRowGradients(int64_t epoch, int64_t step,
                                             const float *grad, int64_t rows) {
  const int64_t width = trainingData.data.numFeatures;
  const RowGradientHeader header{epoch, step, rows};
  std::vector<char> message(sizeof header +
                            size_t(rows * width) * sizeof(float));
  std::memcpy(message.data(), &header, sizeof header);
  if (rows > 0)
    std::memcpy(message.data() + sizeof header, grad,
                size_t(rows * width) * sizeof(float));
  gradientBytesSent += int64_t(message.size());
  ranks.world.send(message.data(), int64_t(message.size()),
                   ranks.samplerRank(ranks.partOf(comm.rank())),
                   kRowGradientTag);
}

double RemoteSampledSchedule::trainEpoch(int64_t epoch, OptimizerStep &step) {
  command(SamplerCommand::TrainEpoch, epoch);
  const int sampler = ranks.samplerRank(ranks.partOf(comm.rank()));
  // The bounded queue: `prefetch` requests in flight, one more sent as
  // each batch arrives, so the sampler works on the next ones meanwhile.
  const int64_t ahead = std::min<int64_t>(ranks.prefetch, steps);
  for (int64_t b = 0; b < ahead; ++b)
    requestBatch(epoch, b);
  double lossSum = 0;
  for (int64_t b = 0; b < steps; ++b) {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<char> message = ranks.world.receive(sampler, kBatchTag);
    waitSeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (b + ahead < steps)
      requestBatch(epoch, b + ahead);
    BatchHeader header;
    if (message.size() < sizeof header)
      throw CommError("a batch message of " + std::to_string(message.size()) +
                      " bytes from rank " + std::to_string(sampler));
    std::memcpy(&header, message.data(), sizeof header);
    if (header.epoch != epoch || header.step != b)
      throw CommError("rank " + std::to_string(sampler) + " sent step " +
                      std::to_string(header.step) + " of epoch " +
                      std::to_string(header.epoch) + " for step " +
                      std::to_string(b) + " of epoch " + std::to_string(epoch));
    decodeBatch(message.data() + sizeof header,
                int64_t(message.size() - sizeof header), batch);
    ++batchesReceived;
    bytesReceived += int64_t(message.size());
    // The step's draws and dropout masks are worker mode's.
    trainCtx.step = uint64_t((epoch - 1) * steps + b);
    trainCtx.lossScale = header.lossScale;
    // Learned input rows: the sampler updates them from every trainer's
    // gradients before it gathers the next step's (an empty batch sends
    // none).
    const bool learnsRows = program.settings.embedDim > 0;
    if (batch.numSeeds() == 0) {
      lossSum += step(nullptr);
      if (learnsRows)
        sendRowGradients(epoch, b, nullptr, 0);
      continue;
    }
    bindBatch(trainCtx, batch);
    const int64_t rows = batch.views.front().numSrc;
    if (learnsRows) {
      rowGradients.assign(size_t(rows * trainingData.data.numFeatures), 0.0f);
      trainCtx.inputGrad = rowGradients.data();
    }
    lossSum += step(&trainCtx);
    if (learnsRows)
      sendRowGradients(epoch, b, rowGradients.data(), rows);
  }
  return lossSum / double(std::max<int64_t>(1, steps));
}

void RemoteSampledSchedule::sendParameters() {
  // Every rank joins: the samplers infer with rank 0's parameters (every
  // trainer holds the same; a copy, since the others' are received into).
  for (const auto &values : params->values) {
    std::vector<float> copy = values;
    ranks.world.broadcast(copy.data(), int64_t(copy.size()), 0);
  }
}

Accuracies RemoteSampledSchedule::evaluate() {
  command(SamplerCommand::Evaluate, 0);
  sendParameters();
  const int from = ranks.samplerRank(0);
  const std::vector<char> message = ranks.world.receive(from, kAccuracyTag);
  double values[6];
  if (message.size() != sizeof values)
    throw CommError("accuracies of " + std::to_string(message.size()) +
                    " bytes from rank " + std::to_string(from));
  std::memcpy(values, message.data(), sizeof values);
  auto split = [&](int k) {
    return values[2 * k] != 0 ? std::optional<double>(values[2 * k + 1])
                              : std::nullopt;
  };
  return {split(0), split(1), split(2)};
}

std::optional<LearnedInputsSnapshot>
RemoteSampledSchedule::learnedInputsSnapshot(bool moments) {
  if (program.settings.embedDim == 0)
    return std::nullopt;
  command(SamplerCommand::SnapshotRows, 0, moments);
  // Rank 0 writes the file; the other trainers hold no rows.
  if (comm.rank() != 0)
    return LearnedInputsSnapshot{};
  const int from = ranks.samplerRank(0);
  return decodeLearnedRows(ranks.world.receive(from, kLearnedRowsTag), from);
}

const std::vector<float> &RemoteSampledSchedule::predict() {
  throw CommError("a trainer rank holds no graph to predict on: the sampler "
                  "ranks write the predictions (writePredictions)");
}

void RemoteSampledSchedule::writePredictions(const std::string &path,
                                             Communicator &) {
  (void)path; // every rank has it from the command line
  command(SamplerCommand::Predict, 0);
  sendParameters();
  if (comm.rank() != 0)
    return;
  // The file is complete once sampler 0 says so: the run ends after it.
  const int from = ranks.samplerRank(0);
  const std::vector<char> message = ranks.world.receive(from, kPredictionsTag);
  if (message.size() != sizeof(int64_t))
    throw CommError("a predictions reply of " + std::to_string(message.size()) +
                    " bytes from rank " + std::to_string(from));
}

void RemoteSampledSchedule::printStats(const TrainingResult &result) const {
  printPlanStats(result);
  const double e = double(std::max<int64_t>(1, result.last.epoch));
  std::printf("stats: rank %d received %lld batches/epoch, %lld bytes/epoch; "
              "waited for batches %.6f s/epoch of %.6f s/epoch training "
              "(%.1f%%)\n",
              comm.rank(), (long long)(double(batchesReceived) / e),
              (long long)(double(bytesReceived) / e), waitSeconds / e,
              result.trainSeconds / e,
              100 * waitSeconds / std::max(1e-9, result.trainSeconds));
  if (program.settings.embedDim > 0)
    std::printf("stats: rank %d sent learned-row gradients %lld bytes/epoch\n",
                comm.rank(), (long long)(double(gradientBytesSent) / e));
  printRankStats(result, waitSeconds);
}

} // namespace gnnrt
