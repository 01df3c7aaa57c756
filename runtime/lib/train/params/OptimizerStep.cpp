//===- OptimizerStep.cpp - one optimizer step over all ranks --------------===//
//
// See OptimizerStep.h.
//
//===----------------------------------------------------------------------===//

#include "OptimizerStep.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace gnnrt {

OptimizerConfig optimizerConfigOf(const CompiledProgram &program) {
  return OptimizerConfig::fromSettings(program.settings);
}

OptimizerStep::OptimizerStep(const CompiledProgram &program,
                             const DriverOptions &options,
                             ParameterStore<float> &params, Communicator &comm)
    : program(program), comm(comm),
      optimizer(optimizerConfigOf(program), params.sizes(),
                paramUpdates(optimizerConfigOf(program), program.settings,
                             params.info)),
      residence(makeParameterResidence(program, params, optimizer)) {
  // Running statistics: the all-reduce sums the ranks' changes.
  optimizer.setBufferWeight(1.0 / double(comm.size()));
}

double OptimizerStep::operator()(ExecContext<float> *ctx) {
  residence->zeroGrads();
  // A sampled batch's input rows are its level-0 nodes (ids of the
  // single process's feature rows); a full-graph step reads every row.
  const bool batch = ctx && ctx->blocks;
  if (learned && ctx)
    ctx->inputGrad = learned->beginStep(batch ? ctx->blocks[0].numSrc : -1);
  double loss = ctx ? program.trainStepF32(*ctx) : 0.0;
  if (comm.size() > 1) {
    // Every rank's loss is its share of the global mean; the gradients
    // add up the same way, where they live. Then all ranks take the same
    // step.
    const auto reduceStart = std::chrono::steady_clock::now();
    reduceBytes += residence->allReduceGradients(comm);
    comm.allReduceSum(&loss, 1);
    reduceSeconds += std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - reduceStart)
                         .count();
    reduceBytes += int64_t(sizeof(double));
  }
  residence->update();
  // Each rank updates the learned rows it owns: from its own gradient, or,
  // when batches read other ranks' rows, from every rank's gradients of its
  // rows (collective: a rank without a batch this step joins with none).
  if (learned && learned->routesGradients()) {
    if (!ctx)
      learned->beginStep(0);
    learned->update(optimizer.config(), ctx ? ctx->nodeIds : nullptr);
  } else if (learned && ctx) {
    learned->update(optimizer.config(), batch ? ctx->nodeIds : nullptr);
  }
  if (observer)
    observer();
  return loss;
}

double OptimizerStep::operator()(const std::function<double()> &trainSteps) {
  if (comm.size() > 1)
    throw std::logic_error("OptimizerStep over trainSteps runs in one process");
  // The steps added every part's gradients into the same buffers: their
  // sum is what an all-reduce would give.
  residence->zeroGrads();
  const double loss = trainSteps();
  residence->update();
  if (observer)
    observer();
  return loss;
}

} // namespace gnnrt
