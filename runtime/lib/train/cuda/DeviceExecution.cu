//===- DeviceExecution.cu - Host contexts run by device entry points ------===//
//
// See gnnrt/train/DeviceProgram.h. Each adapter call builds a device
// ExecContext from the trainer's host one: scalars copied, arrays mirrored
// into device buffers, parameters and gradients copied in; then it runs the
// device entry point and copies back what the trainer reads (gradients, the
// input rows' gradient, the logits). The device buffers live for the
// process, keyed by what they hold.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/train/DeviceProgram.h"

#include "gnnrt/comm/DeviceHaloExchange.h"
#include "gnnrt/comm/NcclCommunicator.h"
#include "gnnrt/kernels/cuda/Workspace.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/train/DeviceSelection.h"

#include <cstdio>
#include <memory>

#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace gnnrt {

namespace {

void check(cudaError_t status, const std::string &what) {
  if (status != cudaSuccess)
    throw DeviceError("CUDA " + what + ": " + cudaGetErrorString(status));
}

/// A device buffer that only grows, and the host array it last mirrored.
struct DeviceBuffer {
  void *data = nullptr;
  size_t capacity = 0;
  const void *source = nullptr;
  size_t sourceBytes = 0;
};

/// The process's device state: the installed program and its buffers.
struct DeviceState {
  DeviceEntryPoints entries;
  std::vector<ParamInfo> (*params)(const DataDims &) = nullptr;
  int numBlocks = 0;
  std::map<std::string, DeviceBuffer> buffers;
  kernels::cuda::DeviceWorkspace workspace;
  /// A distributed run's halo exchange over device rows, made for the
  /// host exchange it mirrors.
  const HaloExchange *haloSource = nullptr;
  std::unique_ptr<DeviceHaloExchange> halo;

  const DeviceHaloExchange *deviceHalo(const HaloExchange *host) {
    if (!host)
      return nullptr;
    if (haloSource != host) {
      halo = std::make_unique<DeviceHaloExchange>(*host);
      haloSource = host;
    }
    return halo.get();
  }

  ~DeviceState() {
    // At exit the driver may already be gone: errors are ignored.
    for (auto &entry : buffers)
      cudaFree(entry.second.data);
  }

  /// `bytes` of device memory under `key` (its contents kept only while
  /// it does not grow).
  void *buffer(const std::string &key, size_t bytes) {
    DeviceBuffer &b = buffers[key];
    if (b.capacity < bytes) {
      check(cudaFree(b.data), "free of " + key);
      b = DeviceBuffer();
      check(cudaMalloc(&b.data, bytes),
            "allocation of " + key + " (" + std::to_string(bytes) + " bytes)");
      b.capacity = bytes;
    }
    return b.data;
  }

  /// The device copy of host[0..count) under `key`. With `fixed`, a
  /// buffer that already mirrors the same host array is not copied again
  /// (full-graph arrays never change during a run).
  template <typename U>
  U *mirror(const std::string &key, const U *host, int64_t count, bool fixed) {
    if (!host)
      return nullptr;
    const size_t bytes = size_t(count < 0 ? 0 : count) * sizeof(U);
    DeviceBuffer &existing = buffers[key];
    if (fixed && existing.source == host && existing.sourceBytes == bytes)
      return static_cast<U *>(existing.data);
    void *device = buffer(key, bytes > 0 ? bytes : 1);
    if (bytes > 0)
      check(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice),
            "copy of " + key + " to the device");
    DeviceBuffer &b = buffers[key];
    b.source = host;
    b.sourceBytes = bytes;
    return static_cast<U *>(device);
  }

  GraphView mirrorGraph(const std::string &key, const GraphView &g,
                        bool fixed) {
    GraphView d = g;
    d.inOffsets = mirror(key + ".inOffsets", g.inOffsets, g.numDst + 1, fixed);
    d.edgeSrc = mirror(key + ".edgeSrc", g.edgeSrc, g.numEdges, fixed);
    d.edgeDst = mirror(key + ".edgeDst", g.edgeDst, g.numEdges, fixed);
    d.outOffsets =
        mirror(key + ".outOffsets", g.outOffsets, g.numSrc + 1, fixed);
    d.outEdges = mirror(key + ".outEdges", g.outEdges, g.numEdges, fixed);
    d.outDst = mirror(key + ".outDst", g.outDst, g.numEdges, fixed);
    d.edgeType = mirror(key + ".edgeType", g.edgeType, g.numEdges, fixed);
    return d;
  }
};

DeviceState &state() {
  static DeviceState s;
  return s;
}

int64_t elementsOf(const ParamInfo &p) {
  int64_t n = 1;
  for (int64_t d : p.shape)
    n *= d;
  return n;
}

/// A call's device context and what it needs to copy back.
template <typename T> struct DeviceCall {
  ExecContext<T> ctx;
  std::vector<GraphView> blocks;
  std::vector<int64_t> paramElements;
  int64_t outputRows = 0, inputRows = 0, featureRows = 0;
};

template <typename T>
void prepareCall(const ExecContext<T> &host, bool training,
                 DeviceCall<T> &call) {
  DeviceState &s = state();
  // Full-graph contexts point at the same arrays for the whole run, unless
  // learned input rows rewrite the features between steps.
  const bool fixed = host.blocks == nullptr && host.inputGrad == nullptr;
  const int numBlocks = host.blocks ? s.numBlocks : 0;
  ExecContext<T> &d = call.ctx;
  d.numFeatures = host.numFeatures;
  d.numClasses = host.numClasses;
  d.numRelations = host.numRelations;
  d.numGlobalNodes = host.numGlobalNodes;
  d.seed = host.seed;
  d.step = host.step;
  d.lossScale = host.lossScale;
  d.graph = s.mirrorGraph("graph", host.graph, fixed);
  for (int k = 0; k < numBlocks; ++k)
    call.blocks.push_back(
        s.mirrorGraph("block" + std::to_string(k), host.blocks[k], fixed));
  d.blocks = numBlocks ? call.blocks.data() : nullptr;
  call.inputRows = numBlocks ? host.blocks[0].numSrc : host.graph.numSrc;
  call.outputRows =
      numBlocks ? host.blocks[numBlocks - 1].numDst : host.graph.numDst;
  // A rank's full-graph features are its owned rows (destinations); its
  // halo's arrive through the exchange.
  call.featureRows = numBlocks ? call.inputRows : host.graph.numDst;
  d.features = s.mirror("features", host.features,
                        call.featureRows * host.numFeatures, fixed);
  d.deviceHalo = s.deviceHalo(host.halo);
  d.labels = s.mirror("labels", host.labels, call.outputRows, fixed);
  d.lossMask = s.mirror("lossMask", host.lossMask, call.outputRows, fixed);
  d.nodeIds = s.mirror("nodeIds", host.nodeIds, call.inputRows, fixed);
  d.edgeIds = s.mirror("edgeIds", host.edgeIds, host.graph.numEdges, fixed);
  d.srcDegree = s.mirror("srcDegree", host.srcDegree, host.graph.numSrc, fixed);
  d.dstDegree = s.mirror("dstDegree", host.dstDegree, host.graph.numDst, fixed);

  // Parameters every call (the optimizer updated them on the host); the
  // gradients too, since the entry point adds to the caller's.
  DataDims dims;
  dims.features = host.numFeatures;
  dims.classes = host.numClasses;
  dims.relations = host.numRelations;
  dims.nodes = host.numGlobalNodes;
  const std::vector<ParamInfo> infos = s.params(dims);
  if (infos.size() != host.params.size())
    throw DeviceError(
        "the context holds " + std::to_string(host.params.size()) +
        " parameters, the program declares " + std::to_string(infos.size()));
  for (size_t i = 0; i < infos.size(); ++i) {
    const int64_t n = elementsOf(infos[i]);
    call.paramElements.push_back(n);
    d.params.push_back(s.mirror("param" + std::to_string(i),
                                static_cast<const T *>(host.params[i]), n,
                                /*fixed=*/false));
    if (training)
      d.grads.push_back(s.mirror("grad" + std::to_string(i),
                                 static_cast<const T *>(host.grads[i]), n,
                                 /*fixed=*/false));
  }
  if (training && host.inputGrad)
    d.inputGrad = s.mirror("inputGrad", static_cast<const T *>(host.inputGrad),
                           call.featureRows * host.numFeatures, false);
  d.deviceWorkspace = &s.workspace;
}

template <typename T>
void copyToHost(T *host, const T *device, int64_t count, const char *what) {
  if (count > 0)
    check(cudaMemcpy(host, device, size_t(count) * sizeof(T),
                     cudaMemcpyDeviceToHost),
          std::string("copy of ") + what + " to the host");
}

template <typename T>
void runForward(ExecContext<T> &host, void (*entry)(ExecContext<T> &)) {
  if (!entry)
    throw DeviceError("the program has no device forward for this type");
  DeviceCall<T> call;
  prepareCall(host, /*training=*/false, call);
  const int64_t outputs = call.outputRows * host.numClasses;
  call.ctx.output = static_cast<T *>(state().buffer(
      "output", size_t(std::max<int64_t>(outputs, 1)) * sizeof(T)));
  entry(call.ctx);
  copyToHost(host.output, call.ctx.output, outputs, "the logits");
  host.unplannedBytes = call.ctx.unplannedBytes;
}

template <typename T>
T runTrainStep(ExecContext<T> &host, T (*entry)(ExecContext<T> &)) {
  if (!entry)
    throw DeviceError("the program has no device train step for this type");
  DeviceCall<T> call;
  prepareCall(host, /*training=*/true, call);
  const T loss = entry(call.ctx);
  for (size_t i = 0; i < call.paramElements.size(); ++i)
    copyToHost(host.grads[i], call.ctx.grads[i], call.paramElements[i],
               "a gradient");
  if (host.inputGrad)
    copyToHost(host.inputGrad, call.ctx.inputGrad,
               call.featureRows * host.numFeatures, "the input gradient");
  host.unplannedBytes = call.ctx.unplannedBytes;
  return loss;
}

void forwardF32(ExecContext<float> &ctx) {
  runForward(ctx, state().entries.forwardF32);
}
float trainStepF32(ExecContext<float> &ctx) {
  return runTrainStep(ctx, state().entries.trainStepF32);
}
void forwardF64(ExecContext<double> &ctx) {
  runForward(ctx, state().entries.forwardF64);
}
double trainStepF64(ExecContext<double> &ctx) {
  return runTrainStep(ctx, state().entries.trainStepF64);
}

std::unique_ptr<Communicator> useDevice(int device, Communicator &comm) {
  selectDevice(device, comm);
  if (comm.size() == 1)
    return nullptr;
  // The ranks' collectives between their devices, bootstrapped over MPI.
  std::unique_ptr<Communicator> nccl = makeNcclCommunicator(comm);
  if (comm.rank() == 0) {
    std::printf("%s\n", describeNcclCommunicator(*nccl).c_str());
    std::fflush(stdout);
  }
  return nccl;
}

int64_t workspaceBytes() { return state().workspace.bytes(); }

} // namespace

void installDeviceEntryPoints(CompiledProgram &program,
                              const DeviceEntryPoints &device) {
  DeviceState &s = state();
  s.entries = device;
  s.params = program.params;
  s.numBlocks = program.numBlocks;
  program.forwardF32 = &forwardF32;
  program.trainStepF32 = &trainStepF32;
  program.forwardF64 = device.forwardF64 ? &forwardF64 : nullptr;
  program.trainStepF64 = device.trainStepF64 ? &trainStepF64 : nullptr;
  program.useDevice = &useDevice;
  program.deviceWorkspaceBytes = &workspaceBytes;
}

} // namespace gnnrt
