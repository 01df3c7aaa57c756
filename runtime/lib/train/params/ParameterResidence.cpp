//===- ParameterResidence.cpp - Where parameters live between steps -------===//
//
// See ParameterResidence.h.
//
//===----------------------------------------------------------------------===//

#include "ParameterResidence.h"

#include <algorithm>

namespace gnnrt {

int64_t HostParameterResidence::allReduceGradients(Communicator &comm) {
  if (comm.size() == 1)
    return 0;
  const std::vector<int64_t> sizes = params.sizes();
  int64_t total = 0;
  for (int64_t n : sizes)
    total += n;
  reduceBuffer.resize(size_t(total));
  int64_t at = 0;
  for (size_t i = 0; i < grads.size(); ++i) {
    std::copy(grads[i], grads[i] + sizes[i], reduceBuffer.begin() + at);
    at += sizes[i];
  }
  comm.allReduceSum(reduceBuffer.data(), total);
  at = 0;
  for (size_t i = 0; i < grads.size(); ++i) {
    std::copy(reduceBuffer.begin() + at, reduceBuffer.begin() + at + sizes[i],
              grads[i]);
    at += sizes[i];
  }
  return total * int64_t(sizeof(float));
}

std::unique_ptr<ParameterResidence>
makeParameterResidence(const CompiledProgram &program,
                       ParameterStore<float> &params, Optimizer &optimizer) {
  if (program.useDevice && program.makeDeviceResidence)
    return program.makeDeviceResidence(params.info, params.valuePointers(),
                                       optimizer);
  return std::make_unique<HostParameterResidence>(params, optimizer);
}

} // namespace gnnrt
