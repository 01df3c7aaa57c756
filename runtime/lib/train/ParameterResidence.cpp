//===- ParameterResidence.cpp - Where parameters live between steps -------===//
//
// See ParameterResidence.h.
//
//===----------------------------------------------------------------------===//

#include "ParameterResidence.h"

namespace gnnrt {

std::unique_ptr<ParameterResidence>
makeParameterResidence(const CompiledProgram &program,
                       ParameterStore<float> &params, Optimizer &optimizer,
                       const Communicator &comm) {
  // Several ranks all-reduce their gradients on the host, so their
  // parameters stay there (the adapters copy them per step).
  if (program.useDevice && program.makeDeviceResidence && comm.size() == 1)
    return program.makeDeviceResidence(params.info, params.valuePointers(),
                                       optimizer);
  return std::make_unique<HostParameterResidence>(params, optimizer);
}

} // namespace gnnrt
