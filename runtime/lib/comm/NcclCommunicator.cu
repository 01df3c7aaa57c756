//===- NcclCommunicator.cu - collectives between GPUs over NCCL -----------===//
//
// See gnnrt/comm/NcclCommunicator.h.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/comm/NcclCommunicator.h"

#include "gnnrt/kernels/cuda/Stream.h"
#include "gnnrt/support/Error.h"

#include <cuda_runtime.h>

#if defined(GNNRT_CUDA_EMULATION) || defined(GNNRT_HAVE_NCCL)
#define GNNRT_WITH_NCCL 1
#include <nccl.h>
#endif

#include <algorithm>
#include <cstring>
#include <vector>

namespace gnnrt {

#ifndef GNNRT_WITH_NCCL

std::unique_ptr<Communicator> makeNcclCommunicator(Communicator &host) {
  (void)host;
  throw DeviceError("this trainer was built without NCCL, so its ranks "
                    "cannot share gradients on their GPUs (rebuild gnnc "
                    "with NCCL installed, or train in one process)");
}

std::string describeNcclCommunicator(const Communicator &) { return ""; }

#else

namespace {

void check(cudaError_t status, const char *what) {
  if (status != cudaSuccess)
    throw DeviceError(std::string("CUDA ") + what + ": " +
                      cudaGetErrorString(status));
}

void check(ncclResult_t status, const char *what) {
  if (status != ncclSuccess)
    throw CommError(std::string("NCCL ") + what + ": " +
                    ncclGetErrorString(status));
}

bool onDevice(const void *p) {
  if (!p)
    return false;
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError(); // an unknown pointer is host memory
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice ||
         attributes.type == cudaMemoryTypeManaged;
}

/// A device buffer that only grows.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { cudaFree(data); }
  char *get(size_t bytes) {
    if (bytes > capacity) {
      check(cudaFree(data), "free of a staging buffer");
      data = nullptr;
      check(cudaMalloc(reinterpret_cast<void **>(&data), bytes),
            "allocation of a staging buffer");
      capacity = bytes;
    }
    return data;
  }

private:
  char *data = nullptr;
  size_t capacity = 0;
};

/// Staging buffers kept for the next call (host buffers are staged on
/// every step: allocating each time would cost a cudaMalloc per
/// collective). One thread uses a communicator, so no lock.
class StagingPool {
public:
  std::unique_ptr<DeviceBuffer> take() {
    if (spare.empty())
      return std::make_unique<DeviceBuffer>();
    std::unique_ptr<DeviceBuffer> b = std::move(spare.back());
    spare.pop_back();
    return b;
  }
  void giveBack(std::vector<std::unique_ptr<DeviceBuffer>> &buffers) {
    for (auto &b : buffers)
      spare.push_back(std::move(b));
    buffers.clear();
  }

private:
  std::vector<std::unique_ptr<DeviceBuffer>> spare;
};

/// A buffer the collective reads or writes on the device: `user`'s own
/// when it is device memory, else a staging copy.
struct Staged {
  void *user = nullptr;
  char *device = nullptr;
  size_t bytes = 0;
  bool staged = false;
};

/// NCCL's type for T.
template <typename T> ncclDataType_t ncclTypeOf();
template <> ncclDataType_t ncclTypeOf<float>() { return ncclFloat32; }
template <> ncclDataType_t ncclTypeOf<double>() { return ncclFloat64; }
template <> ncclDataType_t ncclTypeOf<int64_t>() { return ncclInt64; }

class NcclCommunicator;

/// A transfer queued on the communicator's stream: wait() waits (bounded,
/// NcclCommunicator::await) until it is done and copies staged receive
/// buffers back.
class NcclTransfer : public PendingTransfer {
public:
  NcclTransfer(NcclCommunicator &owner, const char *what, cudaEvent_t done,
               std::vector<Staged> outputs,
               std::vector<std::unique_ptr<DeviceBuffer>> buffers,
               StagingPool &pool)
      : owner(owner), what(what), done(done), outputs(std::move(outputs)),
        buffers(std::move(buffers)), pool(pool) {}
  ~NcclTransfer() override;
  void wait() override;

private:
  NcclCommunicator &owner;
  const char *what;
  cudaEvent_t done;
  std::vector<Staged> outputs;
  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  StagingPool &pool;
};

class NcclCommunicator : public Communicator {
public:
  explicit NcclCommunicator(Communicator &host) : host(host) {
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
          "creation of the communication stream");
    check(cudaEventCreateWithFlags(&computeDone, cudaEventDisableTiming),
          "creation of an event");
    check(cudaEventCreateWithFlags(&collectiveDone, cudaEventDisableTiming),
          "creation of an event");
    all = initOver(host);
    // Node-local groups: which ranks share this one's node, and the nodes'
    // first ranks.
    nodeHost = host.splitByNode();
    const bool leader = nodeHost->rank() == 0;
    leadersHost = host.split(leader ? 0 : 1, host.rank());
    int64_t counts[2] = {leader ? 1 : 0,
                         int64_t(std::max(1, nodeHost->size()))};
    host.allReduceSum(counts, 2);
    nodes = int(counts[0]);
    hierarchical = nodes > 1 && nodes < host.size();
    if (hierarchical) {
      node = initOver(*nodeHost);
      if (leader)
        leaders = initOver(*leadersHost);
    }
  }
  ~NcclCommunicator() override {
    for (ncclComm_t c : {leaders, node, all})
      if (c)
        ncclCommDestroy(c);
    cudaEventDestroy(computeDone);
    cudaEventDestroy(collectiveDone);
    cudaStreamDestroy(stream);
  }

  int rank() const override { return host.rank(); }
  int size() const override { return host.size(); }

  void allReduceSum(float *data, int64_t n) override { reduce(data, n); }
  void allReduceSum(double *data, int64_t n) override { reduce(data, n); }
  void allReduceSum(int64_t *data, int64_t n) override { reduce(data, n); }

  void broadcast(float *data, int64_t n, int root) override {
    if (n <= 0)
      return;
    std::vector<std::unique_ptr<DeviceBuffer>> buffers;
    Staged s = stageIn(data, size_t(n) * sizeof(float), buffers);
    afterCompute();
    check(ncclBroadcast(s.device, s.device, size_t(n), ncclFloat32, root, all,
                        stream),
          "broadcast");
    finish("nccl_broadcast", {s}, buffers);
  }

  void allToAllV(const void *send, const std::vector<int64_t> &sendOffsets,
                 void *recv, const std::vector<int64_t> &recvOffsets) override {
    startAllToAllV(send, sendOffsets, recv, recvOffsets)->wait();
  }
  void sendRecv(const void *send, int64_t sendBytes, int dest, void *recv,
                int64_t recvBytes, int source) override {
    startSendRecv(send, sendBytes, dest, recv, recvBytes, source)->wait();
  }

  std::unique_ptr<PendingTransfer>
  startSendRecv(const void *send, int64_t sendBytes, int dest, void *recv,
                int64_t recvBytes, int source) override {
    std::vector<std::unique_ptr<DeviceBuffer>> buffers;
    const bool sends = dest != kNoPeer && sendBytes > 0;
    const bool receives = source != kNoPeer && recvBytes > 0;
    Staged in = sends ? stageIn(send, size_t(sendBytes), buffers) : Staged();
    Staged out =
        receives ? stageOut(recv, size_t(recvBytes), buffers) : Staged();
    afterCompute();
    check(ncclGroupStart(), "group start");
    if (sends)
      check(ncclSend(in.device, size_t(sendBytes), ncclChar, dest, all, stream),
            "send");
    if (receives)
      check(ncclRecv(out.device, size_t(recvBytes), ncclChar, source, all,
                     stream),
            "receive");
    check(ncclGroupEnd(), "group end");
    return started("nccl_send_recv", {out}, std::move(buffers));
  }

  std::unique_ptr<PendingTransfer>
  startAllToAllV(const void *send, const std::vector<int64_t> &sendOffsets,
                 void *recv, const std::vector<int64_t> &recvOffsets) override {
    const int P = size(), me = rank();
    std::vector<std::unique_ptr<DeviceBuffer>> buffers;
    Staged in = stageIn(send, size_t(sendOffsets[size_t(P)]), buffers);
    Staged out = stageOut(recv, size_t(recvOffsets[size_t(P)]), buffers);
    afterCompute();
    auto bytes = [](const std::vector<int64_t> &o, int q) {
      return o[size_t(q) + 1] - o[size_t(q)];
    };
    // This rank's own part is a copy; the others are one group of sends
    // and receives (pairs without bytes skip both ends alike).
    if (bytes(sendOffsets, me) > 0)
      check(cudaMemcpyAsync(out.device + recvOffsets[size_t(me)],
                            in.device + sendOffsets[size_t(me)],
                            size_t(bytes(sendOffsets, me)),
                            cudaMemcpyDeviceToDevice, stream),
            "copy of a rank's own rows");
    check(ncclGroupStart(), "group start");
    for (int q = 0; q < P; ++q) {
      if (q == me)
        continue;
      if (bytes(sendOffsets, q) > 0)
        check(ncclSend(in.device + sendOffsets[size_t(q)],
                       size_t(bytes(sendOffsets, q)), ncclChar, q, all,
                       stream),
              "send");
      if (bytes(recvOffsets, q) > 0)
        check(ncclRecv(out.device + recvOffsets[size_t(q)],
                       size_t(bytes(recvOffsets, q)), ncclChar, q, all,
                       stream),
              "receive");
    }
    check(ncclGroupEnd(), "group end");
    return started("nccl_all_to_all", {out}, std::move(buffers));
  }

  void barrier() override { host.barrier(); }
  std::unique_ptr<PendingTransfer> startSend(const void *data, int64_t bytes,
                                             int dest, int tag) override {
    return host.startSend(data, bytes, dest, tag);
  }
  std::vector<char> receive(int source, int tag) override {
    return host.receive(source, tag);
  }
  std::unique_ptr<Communicator> split(int color, int key) override {
    return host.split(color, key);
  }
  std::unique_ptr<Communicator> splitByNode() override {
    return host.splitByNode();
  }
  bool allowsConcurrentUse() const override {
    return host.allowsConcurrentUse();
  }
  bool carriesDeviceBuffers() const override { return true; }
  void setTimeout(double seconds) override { host.setTimeout(seconds); }
  void waitUntil(const char *what,
                 const std::function<bool()> &ready) override {
    host.waitUntil(what, ready);
  }

  /// Waits for `done` (recorded on the communication stream after a
  /// collective) as the MPI communicator waits: it polls the event and
  /// NCCL's asynchronous errors while answering the other ranks' liveness
  /// checks, and after its timeout without progress it aborts the NCCL
  /// communicators (ending their kernels, so nothing waits on them any
  /// more) and throws, naming the rank that went silent.
  void await(cudaEvent_t done, const char *what) {
    try {
      host.waitUntil(what, [&] {
        const cudaError_t status = cudaEventQuery(done);
        if (status == cudaSuccess)
          return true;
        if (status != cudaErrorNotReady)
          check(status, what);
        for (ncclComm_t c : {all, node, leaders}) {
          ncclResult_t asyncError = ncclSuccess;
          if (c)
            check(ncclCommGetAsyncError(c, &asyncError), what);
          if (asyncError != ncclSuccess && asyncError != ncclInProgress)
            check(asyncError, what);
        }
        return false;
      });
    } catch (...) {
      abort();
      throw;
    }
  }
  /// Whether a failed wait aborted the NCCL communicators.
  bool aborted() const { return abortedComms; }

  std::string describe() const {
    return "nccl: " + std::to_string(size()) + " ranks on " +
           std::to_string(nodes) + (nodes == 1 ? " node" : " nodes") +
           (hierarchical ? ", hierarchical all-reduce (reduce in each node, "
                           "all-reduce across nodes, broadcast)"
                         : ", flat all-reduce");
  }

private:
  /// An NCCL communicator over `group`'s ranks: its rank 0 makes the id,
  /// MPI carries it to the others.
  static ncclComm_t initOver(Communicator &group) {
    ncclUniqueId id;
    std::memset(&id, 0, sizeof(id));
    if (group.rank() == 0)
      check(ncclGetUniqueId(&id), "unique id");
    broadcastBytes(group, &id, int64_t(sizeof(id)), 0);
    ncclComm_t comm = nullptr;
    check(ncclCommInitRank(&comm, group.size(), id, group.rank()),
          "communicator start-up");
    return comm;
  }

  /// The communication stream waits for the work queued so far on this
  /// thread's compute stream.
  void afterCompute() {
    const cudaStream_t compute = kernels::cuda::currentStream();
    check(cudaEventRecord(computeDone, compute), "record of an event");
    check(cudaStreamWaitEvent(stream, computeDone, 0), "wait for an event");
  }

  Staged stageIn(const void *user, size_t bytes,
                 std::vector<std::unique_ptr<DeviceBuffer>> &buffers) {
    Staged s = stageOut(const_cast<void *>(user), bytes, buffers);
    if (s.staged && bytes > 0)
      check(cudaMemcpy(s.device, user, bytes, cudaMemcpyHostToDevice),
            "copy of a host buffer to the device");
    return s;
  }
  Staged stageOut(void *user, size_t bytes,
                  std::vector<std::unique_ptr<DeviceBuffer>> &buffers) {
    Staged s;
    s.user = user;
    s.bytes = bytes;
    if (onDevice(user) || bytes == 0) {
      s.device = static_cast<char *>(user);
      return s;
    }
    buffers.push_back(staging.take());
    s.device = buffers.back()->get(bytes);
    s.staged = true;
    return s;
  }

  std::unique_ptr<PendingTransfer>
  started(const char *what, std::vector<Staged> outputs,
          std::vector<std::unique_ptr<DeviceBuffer>> buffers) {
    cudaEvent_t done = nullptr;
    check(cudaEventCreateWithFlags(&done, cudaEventDisableTiming),
          "creation of an event");
    check(cudaEventRecord(done, stream), "record of an event");
    return std::make_unique<NcclTransfer>(*this, what, done, std::move(outputs),
                                          std::move(buffers), staging);
  }

  /// Ends every NCCL communicator's work (NCCL frees them: they are not
  /// destroyed again).
  void abort() {
    abortedComms = true;
    for (ncclComm_t *c : {&leaders, &node, &all})
      if (*c) {
        ncclCommAbort(*c);
        *c = nullptr;
      }
  }

  void finish(const char *what, std::vector<Staged> outputs,
              std::vector<std::unique_ptr<DeviceBuffer>> &buffers) {
    check(cudaEventRecord(collectiveDone, stream), "record of an event");
    await(collectiveDone, what);
    for (const Staged &s : outputs)
      if (s.staged && s.bytes > 0)
        check(cudaMemcpy(s.user, s.device, s.bytes, cudaMemcpyDeviceToHost),
              "copy of a result to the host");
    staging.giveBack(buffers);
  }

  template <typename T> void reduce(T *data, int64_t n) {
    if (n <= 0 || size() == 1)
      return;
    std::vector<std::unique_ptr<DeviceBuffer>> buffers;
    Staged s = stageIn(data, size_t(n) * sizeof(T), buffers);
    afterCompute();
    const ncclDataType_t type = ncclTypeOf<T>();
    if (!hierarchical) {
      check(ncclAllReduce(s.device, s.device, size_t(n), type, ncclSum, all,
                          stream),
            "all_reduce");
    } else {
      check(ncclReduce(s.device, s.device, size_t(n), type, ncclSum, 0, node,
                       stream),
            "reduce within a node");
      if (leaders)
        check(ncclAllReduce(s.device, s.device, size_t(n), type, ncclSum,
                            leaders, stream),
              "all_reduce across nodes");
      check(ncclBroadcast(s.device, s.device, size_t(n), type, 0, node,
                          stream),
            "broadcast within a node");
    }
    finish("nccl_all_reduce", {s}, buffers);
  }

  Communicator &host;
  std::unique_ptr<Communicator> nodeHost, leadersHost;
  ncclComm_t all = nullptr, node = nullptr, leaders = nullptr;
  int nodes = 1;
  bool hierarchical = false;
  cudaStream_t stream = nullptr;
  cudaEvent_t computeDone = nullptr, collectiveDone = nullptr;
  bool abortedComms = false;
  StagingPool staging;
};

NcclTransfer::~NcclTransfer() {
  if (done) {
    // On the way out after a failed wait nothing is waited for again.
    if (!owner.aborted()) {
      try {
        owner.await(done, what);
      } catch (...) {
      }
    }
    cudaEventDestroy(done);
  }
  pool.giveBack(buffers);
}

void NcclTransfer::wait() {
  if (!done)
    return;
  owner.await(done, what);
  cudaEventDestroy(done);
  done = nullptr;
  for (const Staged &s : outputs)
    if (s.staged && s.bytes > 0)
      check(cudaMemcpy(s.user, s.device, s.bytes, cudaMemcpyDeviceToHost),
            "copy of a received buffer to the host");
  pool.giveBack(buffers);
}

} // namespace

std::unique_ptr<Communicator> makeNcclCommunicator(Communicator &host) {
  return std::make_unique<NcclCommunicator>(host);
}

std::string describeNcclCommunicator(const Communicator &comm) {
  const auto *nccl = dynamic_cast<const NcclCommunicator *>(&comm);
  return nccl ? nccl->describe() : "";
}

#endif // GNNRT_WITH_NCCL

} // namespace gnnrt
