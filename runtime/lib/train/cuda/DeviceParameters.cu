//===- DeviceParameters.cu - Parameters resident on the device ------------===//
//
// The device ParameterResidence (gnnrt/train/ParameterResidence.h): each parameter's
// values, gradient and optimizer state in device buffers allocated once;
// the gradients are consecutive parts of one array, so that under mpirun
// one all-reduce through the device communicator (NCCL) sums them in place.
// The first step copies the host's values and optimizer state in; from then
// on the device entry points read and accumulate into these buffers
// (DeviceState::resident), gnnrt's CUDA optimizer kernels update them --
// the same float operations as Optimizer::step, so a device run's
// parameters are the CPU's to rounding -- and nothing crosses per step.
// toHost() copies values and state back for checkpoints and --save.
//
//===----------------------------------------------------------------------===//

#include "DeviceState.h"

#include "gnnrt/comm/Communicator.h"

#include "gnnrt/kernels/cuda/Memory.h"
#include "gnnrt/kernels/cuda/Optimizer.h"
#include "gnnrt/train/Optimizer.h"
#include "gnnrt/train/ParameterResidence.h"

namespace gnnrt::device {

namespace {

/// `n` floats of device memory, freed with the owner.
struct DeviceFloats {
  float *data = nullptr;
  explicit DeviceFloats(int64_t n, const std::string &what) {
    if (n > 0)
      check(cudaMalloc(reinterpret_cast<void **>(&data),
                       size_t(n) * sizeof(float)),
            "allocation of " + what);
  }
  ~DeviceFloats() { cudaFree(data); } // at exit, errors are ignored
  DeviceFloats(const DeviceFloats &) = delete;
  DeviceFloats &operator=(const DeviceFloats &) = delete;
};

class DeviceParameterResidence final : public ParameterResidence {
public:
  DeviceParameterResidence(const std::vector<ParamInfo> &params,
                           const std::vector<float *> &hostValues,
                           Optimizer &optimizer)
      : info(params), hostValues(hostValues), optimizer(optimizer) {
    for (const ParamInfo &p : info) {
      int64_t n = 1;
      for (int64_t d : p.shape)
        n *= d;
      sizes.push_back(n);
    }
    for (int64_t n : sizes)
      gradElements += n;
    grads = std::make_unique<DeviceFloats>(gradElements, "the gradients");
    for (size_t i = 0, at = 0; i < info.size(); at += size_t(sizes[i]), ++i) {
      values.push_back(std::make_unique<DeviceFloats>(sizes[i], info[i].name));
      resident.values.push_back(values.back()->data);
      resident.grads.push_back(grads->data + at);
    }
    // Adam's two moments or SGD's momentum buffer (none for plain SGD),
    // as the host optimizer holds them.
    for (const Optimizer::StateKind &kind : optimizer.state()) {
      state.emplace_back();
      for (size_t i = 0; i < info.size(); ++i)
        state.back().push_back(std::make_unique<DeviceFloats>(
            sizes[i], info[i].name + "'s " + kind.name));
    }
  }

  ~DeviceParameterResidence() override {
    // The entry points go back to the host's parameters (toHost made them
    // current at the end of training).
    if (deviceState().resident == &resident)
      deviceState().resident = nullptr;
  }

  void zeroGrads() override {
    if (!deviceState().resident)
      toDevice();
    kernels::cuda::zero(grads->data, gradElements);
  }

  void update() override {
    const OptimizerConfig &c = optimizer.config();
    kernels::cuda::UpdateConfig u;
    u.beta1 = c.beta1;
    u.beta2 = c.beta2;
    u.eps = c.eps;
    u.momentum = c.momentum;
    // The host optimizer keeps the step count (checkpoints record it).
    const int64_t step = optimizer.steps() + 1;
    optimizer.setSteps(step);
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (optimizer.update(i).buffer) {
        // A running statistic adds its change (the host's rule).
        kernels::cuda::UpdateConfig add;
        add.lr = -optimizer.bufferChangeWeight();
        kernels::cuda::sgdUpdate(add, step, sizes[i], resident.values[i],
                                 resident.grads[i], nullptr);
        continue;
      }
      // Each parameter at its group's rate and decay; a frozen one (and
      // its state) untouched, as on the host.
      if (optimizer.update(i).frozen)
        continue;
      u.lr = optimizer.learningRate(i);
      u.weightDecay = optimizer.update(i).weightDecay;
      float *p = resident.values[i];
      const float *g = resident.grads[i];
      if (c.kind == OptimizerKind::Sgd)
        kernels::cuda::sgdUpdate(u, step, sizes[i], p, g,
                                 state.empty() ? nullptr : state[0][i]->data);
      else
        kernels::cuda::adamUpdate(u, c.kind == OptimizerKind::AdamW, step,
                                  sizes[i], p, g, state[0][i]->data,
                                  state[1][i]->data);
    }
  }

  bool gradientsOnHost() const override { return false; }

  int64_t allReduceGradients(Communicator &comm) override {
    if (comm.size() == 1)
      return 0;
    // The device communicator reduces a device array where it is, after
    // the train step's kernels on the compute stream.
    comm.allReduceSum(grads->data, gradElements);
    return gradElements * int64_t(sizeof(float));
  }

  void toHost() override {
    if (deviceState().resident != &resident)
      return; // no step yet: the host's copies are the current ones
    for (size_t i = 0; i < sizes.size(); ++i)
      move(hostValues[i], resident.values[i], sizes[i],
           cudaMemcpyDeviceToHost, info[i].name);
    std::vector<Optimizer::StateKind> kinds = optimizer.state();
    for (size_t k = 0; k < kinds.size(); ++k)
      for (size_t i = 0; i < sizes.size(); ++i)
        move((*kinds[k].tensors)[i].data(), state[k][i]->data, sizes[i],
             cudaMemcpyDeviceToHost, info[i].name + "'s " + kinds[k].name);
  }

private:
  /// The host's values and optimizer state become the resident ones.
  void toDevice() {
    for (size_t i = 0; i < sizes.size(); ++i)
      move(resident.values[i], hostValues[i], sizes[i],
           cudaMemcpyHostToDevice, info[i].name);
    std::vector<Optimizer::StateKind> kinds = optimizer.state();
    for (size_t k = 0; k < kinds.size(); ++k)
      for (size_t i = 0; i < sizes.size(); ++i)
        move(state[k][i]->data, (*kinds[k].tensors)[i].data(), sizes[i],
             cudaMemcpyHostToDevice, info[i].name + "'s " + kinds[k].name);
    deviceState().resident = &resident;
  }

  static void move(float *to, const float *from, int64_t n,
                   cudaMemcpyKind kind, const std::string &what) {
    deviceState().copy(to, from, size_t(n) * sizeof(float), kind,
                       Traffic::Parameters,
                       what + (kind == cudaMemcpyHostToDevice
                                   ? " to the device"
                                   : " to the host"));
  }

  const std::vector<ParamInfo> info;
  const std::vector<float *> hostValues;
  Optimizer &optimizer;
  std::vector<int64_t> sizes;
  std::vector<std::unique_ptr<DeviceFloats>> values;
  /// Every parameter's gradient, in parameter order.
  std::unique_ptr<DeviceFloats> grads;
  int64_t gradElements = 0;
  /// state[k][i]: the k-th kind of optimizer state of parameter i.
  std::vector<std::vector<std::unique_ptr<DeviceFloats>>> state;
  ResidentParameters resident;
};

} // namespace

std::unique_ptr<ParameterResidence>
makeDeviceResidence(const std::vector<ParamInfo> &params,
                    const std::vector<float *> &values, Optimizer &optimizer) {
  return std::make_unique<DeviceParameterResidence>(params, values, optimizer);
}

} // namespace gnnrt::device
