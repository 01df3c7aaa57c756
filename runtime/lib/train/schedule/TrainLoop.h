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
#include "params/ParameterStore.h"

namespace gnnrt {

/// Trains `params` up to epoch program.settings.epochs of `schedule` (prepared
/// and bound to `params`), from epoch 1 or, with `resume`, from the epoch after
/// the checkpoint's with its optimizer state; `params` hold the trained
/// values on return (wherever they lived meanwhile). Rank 0 writes the metrics,
/// the checkpoints and the progress; the others train silently. Throws
/// std::runtime_error when the loss diverges. Collective.
TrainingResult trainEpochs(const CompiledProgram &program,
                           const DriverOptions &options, Schedule &schedule,
                           ParameterStore<float> &params, Communicator &comm,
                           const ResumableCheckpoint *resume = nullptr);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAINLOOP_H
