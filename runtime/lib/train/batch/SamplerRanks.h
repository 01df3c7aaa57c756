//===- SamplerRanks.h - separate sampler and trainer ranks ------*- C++ -*-===//
//
// Internal to gnnrt. `--samplers S` under `mpirun -np P` (GraphLearn's
// server-client mode): the last S ranks are sampler ranks, which own the
// graph (partitioned into S parts) and serve sampled batches with their
// feature rows; the first T = P - S ranks are trainer ranks, which hold
// only the parameters, train data-parallel (gradients all-reduced among
// trainers, on a communicator of their own) and receive each batch ready
// to train on.
//
// The batches are worker mode's with S ranks on the same partitioning, so
// a run trains what `mpirun -np S` trains: per step b, sampler s assembles
// part s's batch b with worker rank s's draws (the samplers sample together,
// with the same collectives as worker ranks). With T = S trainer t takes
// exactly that batch. With T > S part s's batch is split into slices, one
// per trainer t with t mod S = s (slice t / S): a seed's sampled
// neighbourhood depends only on the step's draws, not on the other seeds of
// its batch, so the step's loss and gradient are the same sums of the same
// per-seed terms, only added in another order. T < S is refused.
//
// The conversation (tags below; all on MPI_COMM_WORLD, point to point):
//  - start: sampler rank 0 tells every trainer the data's dimensions and
//    the steps per epoch;
//  - trainer 0 sends each command (train an epoch, evaluate, stop) to every
//    sampler; evaluation broadcasts the parameters from rank 0 to all
//    ranks, the samplers infer on their parts, and sampler 0 sends the
//    accuracies to every trainer;
//  - in an epoch each trainer keeps `prefetch` requests in flight: one per
//    step it has not received yet, sent to the sampler of its part; a
//    sampler assembles step b once each of its trainers asked for it, so it
//    runs at most `prefetch` steps ahead of the slowest, and sends each
//    trainer its slice without waiting for it to be received.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_SAMPLERRANKS_H
#define GNNRT_LIB_TRAIN_SAMPLERRANKS_H

#include "cli/CommandLine.h"
#include "gnnrt/comm/Communicator.h"
#include "gnnrt/train/Program.h"
#include "output/Checkpoint.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gnnrt {

/// Who is who in a run with sampler ranks (ranks are MPI_COMM_WORLD's).
struct SamplerRanks {
  Communicator &world;
  int numTrainers = 0, numSamplers = 0;
  /// Requests each trainer keeps in flight (--prefetch).
  int prefetch = 2;

  /// Checks --samplers against the launch and the program (UsageError
  /// or DataError with what to change).
  static SamplerRanks of(const CompiledProgram &program,
                         const DriverOptions &options, Communicator &world);

  bool isSampler(int worldRank) const { return worldRank >= numTrainers; }
  /// The world rank of sampler s (0-based among the samplers).
  int samplerRank(int s) const { return numTrainers + s; }
  /// The part (sampler) whose batches trainer t trains, and which slice.
  int partOf(int trainer) const { return trainer % numSamplers; }
  int sliceOf(int trainer) const { return trainer / numSamplers; }
  /// How many trainers share part s's batches.
  int slicesOf(int part) const {
    return (numTrainers - part + numSamplers - 1) / numSamplers;
  }
  /// Slices of the part with the most trainers: every sampler assembles
  /// this many batches per step (empty ones past its own slice count).
  int maxSlices() const { return slicesOf(0); }
};

/// Message tags of the conversation.
enum SamplerTag : int {
  kDataInfoTag = 1,
  kCommandTag = 2,
  kBatchRequestTag = 3,
  kBatchTag = 4,
  kAccuracyTag = 5,
  kPredictionsTag = 6,
  kRowGradientTag = 7,
  kLearnedRowsTag = 8,
};

/// What trainer 0 asks of every sampler rank.
struct SamplerCommand {
  enum Kind : int64_t {
    TrainEpoch = 1,
    Evaluate = 2,
    Stop = 3,
    Predict = 4,
    /// The learned input rows to trainer 0 (a checkpoint or --save).
    SnapshotRows = 5,
  };
  int64_t kind = Stop;
  int64_t epoch = 0;
  /// SnapshotRows: with the rows' Adam state (a resumable checkpoint).
  int64_t moments = 0;
};

/// Sampler rank 0's first message to every trainer: what the parameters'
/// shapes and the epoch loop need.
struct SampledDataInfo {
  int64_t numFeatures = 0, numClasses = 0, numGlobalNodes = 0;
  /// A typed graph's relation count (R-GCN's weights are per relation).
  int64_t numRelations = 0;
  int64_t stepsPerEpoch = 0;
};

/// What precedes each batch: which one it is, and its seeds' share of the
/// step's loss (its seeds over all seeds of the step, as a worker rank's).
struct BatchHeader {
  int64_t epoch = 0, step = 0;
  double lossScale = 0;
};

/// A trainer's request for step `step` of `epoch`.
struct BatchRequest {
  int64_t epoch = 0, step = 0;
};

/// What precedes a trainer's input-row gradients of a step: `rows` rows of
/// the batch's width, gradient row i for the batch's level-0 node i.
struct RowGradientHeader {
  int64_t epoch = 0, step = 0, rows = 0;
};

/// A fixed-size message (one of the structs above) from rank `from`;
/// CommError when its length is not the struct's.
template <typename T>
T decodeMessage(const std::vector<char> &message, const char *what, int from) {
  T value;
  if (message.size() != sizeof value)
    throw CommError(std::string(what) + " from rank " + std::to_string(from) +
                    " has " + std::to_string(message.size()) +
                    " bytes, expected " + std::to_string(sizeof value));
  std::memcpy(&value, message.data(), sizeof value);
  return value;
}

/// The part of `seeds` that slice `slice` of `slices` takes: contiguous,
/// sizes differing by at most one.
std::vector<int64_t> sliceSeeds(const std::vector<int64_t> &seeds, int slice,
                                int slices);

/// Sampler 0's reply to SnapshotRows, and its decoding on trainer 0
/// (CommError for a message that does not add up).
std::vector<char> encodeLearnedRows(const LearnedInputsSnapshot &snapshot);
LearnedInputsSnapshot decodeLearnedRows(const std::vector<char> &message,
                                        int from);

/// A sampler rank's whole life: loads its part, then serves trainer 0's
/// commands until Stop. `samplers` is the sampler ranks' own communicator.
void serveBatches(const CompiledProgram &program, const DriverOptions &options,
                  const SamplerRanks &ranks, Communicator &samplers);

/// Trainer 0, once training is over: tells every sampler rank to stop.
void stopSamplerRanks(const SamplerRanks &ranks);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_SAMPLERRANKS_H
