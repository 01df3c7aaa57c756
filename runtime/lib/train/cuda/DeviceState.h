//===- DeviceState.h - The device side of a CUDA trainer --------*- C++ -*-===//
//
// Internal to the trainer's device part (DeviceExecution.cu, the adapters of
// gnnrt/train/DeviceProgram.h, and DeviceParameters.cu, the parameters'
// device residence). One per process: the installed program, the device
// buffers that mirror the host's arrays (keyed by what they hold, grown
// only), the memory plan's workspace, the parameters resident on the device
// while training, and the count of bytes copied each way, by what they
// were (--stats).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_CUDA_DEVICESTATE_H
#define GNNRT_LIB_TRAIN_CUDA_DEVICESTATE_H

#include "gnnrt/comm/DeviceHaloExchange.h"
#include "gnnrt/kernels/cuda/Workspace.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/train/DeviceBatchSource.h"
#include "gnnrt/train/DeviceProgram.h"

#include <cuda_runtime.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gnnrt::device {

/// Throws DeviceError("CUDA <what>: <CUDA's message>") unless `status` is
/// success.
inline void check(cudaError_t status, const std::string &what) {
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

/// Where a host<->device copy's bytes are counted.
enum class Traffic {
  Once,       ///< a full-graph array, copied on its first use only
  Batch,      ///< what a step's batch brings (blocks, features, input rows)
  Parameters, ///< parameters, gradients, optimizer state
  Evaluation, ///< forward's logits
};

class AsyncBatchCopies;

/// The parameters the device entry points train in place while a device
/// residence is active (DeviceParameters.cu): trainStep accumulates into
/// `grads`, and nothing crosses per step.
struct ResidentParameters {
  std::vector<float *> values, grads;
};

struct DeviceState {
  DeviceEntryPoints entries;
  std::vector<ParamInfo> (*params)(const DataDims &) = nullptr;
  int numBlocks = 0;
  /// The relations the program selects by name (relation(g, "name")),
  /// whose subgraphs each call copies beside its graphs.
  std::vector<std::string> relationNames;
  std::map<std::string, DeviceBuffer> buffers;
  kernels::cuda::DeviceWorkspace workspace;
  /// Non-null while the float32 parameters live on the device.
  const ResidentParameters *resident = nullptr;
  DeviceTransfers transfers;
  /// Batch bytes copied by sampler threads (rows other ranks sent), added
  /// to transfers.batchBytes when read.
  std::atomic<int64_t> sampledRowBytes{0};
  /// Sampled batches copied while the step before runs (made by the first
  /// CompiledProgram::stageBatch).
  std::unique_ptr<AsyncBatchCopies> batchCopies;
  /// A distributed run's halo exchange over device rows, made for the
  /// host exchange it mirrors.
  const HaloExchange *haloSource = nullptr;
  std::unique_ptr<DeviceHaloExchange> halo;

  /// The device mirror of a link batch's pairs exchange: a new host
  /// exchange every batch, so mirrored again on every call.
  std::unique_ptr<DeviceHaloExchange> pairHalo;
  const DeviceHaloExchange *devicePairHalo(const HaloExchange *host) {
    pairHalo = host ? std::make_unique<DeviceHaloExchange>(*host) : nullptr;
    return pairHalo.get();
  }

  /// The device mirror of `host` (null for null), made on first use.
  const DeviceHaloExchange *deviceHalo(const HaloExchange *host) {
    if (!host)
      return nullptr;
    if (haloSource != host) {
      halo = std::make_unique<DeviceHaloExchange>(*host);
      haloSource = host;
    }
    return halo.get();
  }

  DeviceState();
  ~DeviceState();

  /// `bytes` of device memory under `key` (its contents kept only while
  /// it does not grow).
  void *buffer(const std::string &key, size_t bytes);

  /// Copies `bytes` between host and device (`kind`: cudaMemcpyHostToDevice
  /// or DeviceToHost), counted under `traffic`.
  void copy(void *to, const void *from, size_t bytes, cudaMemcpyKind kind,
            Traffic traffic, const std::string &what);

  /// The device copy of host[0..count) under `key`. With `fixed`, a
  /// buffer that already mirrors the same host array is not copied again
  /// (full-graph arrays never change during a run).
  template <typename U>
  U *mirror(const std::string &key, const U *host, int64_t count, bool fixed,
            Traffic traffic) {
    if (!host)
      return nullptr;
    const size_t bytes = size_t(count < 0 ? 0 : count) * sizeof(U);
    DeviceBuffer &existing = buffers[key];
    if (fixed && existing.source == host && existing.sourceBytes == bytes)
      return static_cast<U *>(existing.data);
    void *device = buffer(key, bytes > 0 ? bytes : 1);
    copy(device, host, bytes, cudaMemcpyHostToDevice,
         fixed ? Traffic::Once : traffic, key + " to the device");
    // Only a fixed copy vouches for later fixed calls: after a per-call
    // copy (learned input rows rewrote the features), the next fixed call
    // copies again.
    DeviceBuffer &b = buffers[key];
    b.source = fixed ? host : nullptr;
    b.sourceBytes = bytes;
    return static_cast<U *>(device);
  }

  GraphView mirrorGraph(const std::string &key, const GraphView &g,
                        bool fixed);
};

/// The process's device state.
DeviceState &deviceState();

/// The device side of sampled batches (CompiledProgram::
/// makeDeviceBatchSource; DeviceBatchSource.cu).
std::unique_ptr<DeviceBatchSource>
makeDeviceBatchSource(const Adjacency &adj, int64_t numGlobalNodes,
                      bool replace);

/// The device residence of `params` and `optimizer`'s state
/// (CompiledProgram::makeDeviceResidence; DeviceParameters.cu).
std::unique_ptr<ParameterResidence>
makeDeviceResidence(const std::vector<ParamInfo> &params,
                    const std::vector<float *> &values, Optimizer &optimizer);

} // namespace gnnrt::device

#endif // GNNRT_LIB_TRAIN_CUDA_DEVICESTATE_H
