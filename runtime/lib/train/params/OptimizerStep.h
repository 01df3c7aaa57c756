//===- OptimizerStep.h - one optimizer step over all ranks ------*- C++ -*-===//
//
// Internal to gnnrt. The step every schedule takes per batch or per
// full-graph pass: zero the gradients, run the compiled trainStep, sum the
// gradients and the loss over the ranks (one all-reduce each), then update
// the parameters with the optimizer. Every rank takes the same number of
// steps, so the all-reduces pair up; a rank with no rows in a step passes
// no context and only joins them. The all-reduce's time and bytes are
// counted for --stats. Where the parameters, gradients and optimizer state
// live meanwhile -- host or device -- is its ParameterResidence's concern.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_OPTIMIZERSTEP_H
#define GNNRT_LIB_OPTIMIZERSTEP_H

#include "LearnedInputs.h"
#include "ParameterResidence.h"
#include "ParameterStore.h"
#include "cli/CommandLine.h"
#include "gnnrt/comm/Communicator.h"
#include "gnnrt/train/Optimizer.h"
#include "gnnrt/train/Program.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace gnnrt {

/// The optimizer of the effective settings (the train block's, --lr
/// applied): the parameters' rule, and that of the learned input rows'
/// sparse updates (LearnedInputs::update).
OptimizerConfig optimizerConfigOf(const CompiledProgram &program);

class OptimizerStep {
public:
  /// The optimizer of the program's train block at --lr, over `params`.
  OptimizerStep(const CompiledProgram &program, const DriverOptions &options,
                ParameterStore<float> &params, Communicator &comm);

  /// One step on `ctx`'s rows (null: this rank has none this step). Returns
  /// the loss summed over ranks: each rank's is its share of the global
  /// mean (ExecContext::lossScale), so the sum is the step's loss.
  /// Collective.
  double operator()(ExecContext<float> *ctx);
  /// One step in one process whose gradients `trainSteps` accumulates and
  /// whose loss it returns: out-of-core training runs one trainStep per
  /// partition into the same gradients, whose sum needs no all-reduce.
  double operator()(const std::function<double()> &trainSteps);

  /// Called after every step (the progress report of long epochs).
  void observe(std::function<void()> afterStep) {
    observer = std::move(afterStep);
  }

  /// Learned input rows to update after each step (null: none).
  void learnInputs(LearnedInputs *inputs) { learned = inputs; }

  /// The optimizer, for checkpoints of its state (current after
  /// parametersToHost()).
  Optimizer &state() { return optimizer; }

  /// Makes the ParameterStore's values and the optimizer's state current
  /// on the host: before a checkpoint or --save, and after training.
  void parametersToHost() { residence->toHost(); }

  /// Time in, and bytes per rank through, the all-reduces so far.
  double allReduceSeconds() const { return reduceSeconds; }
  int64_t allReduceBytes() const { return reduceBytes; }

private:
  const CompiledProgram &program;
  Communicator &comm;
  Optimizer optimizer;
  std::unique_ptr<ParameterResidence> residence;
  double reduceSeconds = 0;
  int64_t reduceBytes = 0;
  std::function<void()> observer;
  LearnedInputs *learned = nullptr;
};

} // namespace gnnrt

#endif // GNNRT_LIB_OPTIMIZERSTEP_H
