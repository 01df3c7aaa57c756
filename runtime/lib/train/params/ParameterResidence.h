//===- ParameterResidence.h - Host residence and the choice -----*- C++ -*-===//
//
// Internal to gnnrt. The host implementation of gnnrt/train/
// ParameterResidence.h, and the choice between it and the device's. The
// seam between the optimizer step and the memory the
// model's parameters, gradients and optimizer state live in while training:
//
//  - on the host (every CPU trainer): the ParameterStore's buffers and the
//    Optimizer's own state, updated by Optimizer::step; the host copies
//    are always current. Several ranks' gradients are packed into one
//    buffer for one all-reduce.
//  - on the CUDA device (a trainer built with gnnc --target=cuda, in one
//    process or each rank under mpirun): device buffers that the device
//    entry points read and accumulate into directly, the gradients one
//    array that the device communicator all-reduces in place, updated by
//    gnnrt's CUDA optimizer kernels, so that per step only the loss (and
//    evaluation's logits) cross to the host. The host's copies are
//    refreshed only on demand (toHost): for a checkpoint, --save, or the
//    end of training.
//
// OptimizerStep owns one, made by makeParameterResidence; schedules,
// checkpoints and the gradient check never see which.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_PARAMETERRESIDENCE_H
#define GNNRT_LIB_TRAIN_PARAMETERRESIDENCE_H

#include "ParameterStore.h"
#include "gnnrt/comm/Communicator.h"
#include "gnnrt/train/Optimizer.h"
#include "gnnrt/train/ParameterResidence.h"
#include "gnnrt/train/Program.h"

#include <memory>

namespace gnnrt {

/// Host residence: the ParameterStore's and Optimizer's own buffers.
class HostParameterResidence final : public ParameterResidence {
public:
  HostParameterResidence(ParameterStore<float> &params, Optimizer &optimizer)
      : params(params), optimizer(optimizer), values(params.valuePointers()),
        grads(params.gradPointers()) {}
  void zeroGrads() override { params.zeroGrads(); }
  void update() override { optimizer.step(values, grads); }
  bool gradientsOnHost() const override { return true; }
  int64_t allReduceGradients(Communicator &comm) override;
  void toHost() override {}

private:
  ParameterStore<float> &params;
  Optimizer &optimizer;
  const std::vector<float *> values, grads;
  std::vector<float> reduceBuffer; ///< all gradients, packed
};

/// On the device when `program` runs on one (CompiledProgram::useDevice,
/// with its CompiledProgram::makeDeviceResidence); on the host otherwise.
/// `params` and `optimizer` outlive it.
std::unique_ptr<ParameterResidence>
makeParameterResidence(const CompiledProgram &program,
                       ParameterStore<float> &params, Optimizer &optimizer);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_PARAMETERRESIDENCE_H
