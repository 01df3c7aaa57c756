//===- ParameterResidence.h - Where parameters live between steps -*- C++ -*-===//
//
// The seam between the trainer's optimizer step and the memory the model's
// parameters, gradients and optimizer state live in while training: the
// host (every CPU trainer; lib/train/params/ParameterResidence.h) or a CUDA device
// (a trainer built with gnnc --target=cuda, one process or each rank under
// mpirun; lib/train/cuda/DeviceParameters.cu, made through
// CompiledProgram::makeDeviceResidence). On the device the entry points
// read and accumulate into device buffers directly, the ranks' gradients
// are summed in place through the device communicator (NCCL), and gnnrt's
// CUDA optimizer kernels update them, so that per step only the loss
// crosses; the host's copies are refreshed only on demand (toHost).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_TRAIN_PARAMETERRESIDENCE_H
#define GNNRT_TRAIN_PARAMETERRESIDENCE_H

#include <cstdint>

namespace gnnrt {

class Communicator;

class ParameterResidence {
public:
  virtual ~ParameterResidence() = default;

  /// Zeroes the gradients before a step (trainStep accumulates). The first
  /// call takes the host's values and optimizer state as they are then
  /// (initialized, --load'ed or --resume'd).
  virtual void zeroGrads() = 0;
  /// One optimizer update of the parameters from the gradients; advances
  /// the optimizer's step count.
  virtual void update() = 0;
  /// Whether the gradients are in the host's buffers after trainStep.
  virtual bool gradientsOnHost() const = 0;
  /// Sums every rank's gradients where they live, in one all-reduce over
  /// `comm` (collective; device buffers go to a device communicator as
  /// they are). Returns the bytes this rank reduced.
  virtual int64_t allReduceGradients(Communicator &comm) = 0;
  /// Makes the host's parameter values and the Optimizer's state current
  /// (a no-op where they live there).
  virtual void toHost() = 0;
};

} // namespace gnnrt

#endif // GNNRT_TRAIN_PARAMETERRESIDENCE_H
