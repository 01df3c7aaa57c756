//===- TrainLoop.h - the epochs of training, for any Schedule ---*- C++ -*-===//
//
// Internal to gnnrt. The loop every way of training shares: per epoch the
// schedule's training steps, the train block's checkpoints, and, every
// evaluateEvery epochs and after the last, an evaluation that feeds the
// best-validation record; then the metrics line and the progress report.
// A loss that is not finite ends training with an error.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAINLOOP_H
#define GNNRT_LIB_TRAINLOOP_H

#include "Schedule.h"
#include "cli/CommandLine.h"
#include "gnnrt/comm/Communicator.h"
#include "gnnrt/train/Program.h"
#include "output/Checkpoint.h"
#include "output/Metrics.h"
#include "params/ParameterStore.h"

#include <cstdint>
#include <optional>

namespace gnnrt {

/// Trains `params` up to epoch program.settings.epochs of `schedule` (prepared
/// and bound to `params`), from epoch 1 or, with `resume`, from the epoch after
/// the checkpoint's with its optimizer state, with a fresh optimizer
/// otherwise; `params` hold the trained values on return (wherever they
/// lived meanwhile). `metrics` takes a line per epoch (the caller opens it:
/// the folds of a cross-validation write one file); `fold` is the fold the
/// schedule trains, which the metrics lines and checkpoints name. Rank 0
/// writes the checkpoints and the progress; the others train silently (and
/// pass a log that writes nothing). Throws std::runtime_error when the loss
/// diverges. Collective.
TrainingResult trainEpochs(const CompiledProgram &program,
                           const DriverOptions &options, Schedule &schedule,
                           ParameterStore<float> &params, Communicator &comm,
                           MetricsLog &metrics,
                           const ResumableCheckpoint *resume = nullptr,
                           std::optional<int64_t> fold = std::nullopt);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAINLOOP_H
