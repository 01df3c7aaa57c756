//===- AsyncBatchCopies.cu - The next batch's copy during this step -------===//
//
// See AsyncBatchCopies.h.
//
//===----------------------------------------------------------------------===//

#include "AsyncBatchCopies.h"

#include <cstring>

namespace gnnrt::device {

namespace {

/// Lays a batch's arrays out in one buffer, 256-byte aligned: a sizing
/// pass (no buffers) and a packing pass that copies each array into the
/// pinned buffer and returns where it will be on the device.
struct Packer {
  char *pinned = nullptr, *device = nullptr;
  size_t offset = 0;

  template <typename T> T *place(const T *host, int64_t count) {
    if (!host)
      return nullptr;
    const size_t bytes = size_t(count < 0 ? 0 : count) * sizeof(T);
    const size_t at = offset;
    offset = (offset + bytes + 255) & ~size_t(255);
    if (!pinned)
      return nullptr;
    std::memcpy(pinned + at, host, bytes);
    return reinterpret_cast<T *>(device + at);
  }

  GraphView placeGraph(const GraphView &g) {
    GraphView d = g;
    d.inOffsets = place(g.inOffsets, g.numDst + 1);
    d.edgeSrc = place(g.edgeSrc, g.numEdges);
    d.edgeDst = place(g.edgeDst, g.numEdges);
    d.outOffsets = place(g.outOffsets, g.numSrc + 1);
    d.outEdges = place(g.outEdges, g.numEdges);
    d.outDst = place(g.outDst, g.numEdges);
    d.edgeType = place(g.edgeType, g.numEdges);
    return d;
  }
};

} // namespace

struct AsyncBatchCopies::Buffer {
  char *pinned = nullptr, *device = nullptr;
  size_t capacity = 0;
  cudaEvent_t copied = nullptr;
  /// A copy was issued and not yet waited for; a batch is staged here
  /// that no step has taken.
  bool copying = false, staged = false;
  /// What was staged: the host batch it came from, and its device arrays.
  uint64_t step = 0;
  const GraphView *hostBlocks = nullptr;
  const float *hostFeatures = nullptr;
  std::vector<GraphView> blocks;
  ExecContext<float> view;

  Buffer() { check(cudaEventCreate(&copied), "event creation"); }
  ~Buffer() { // at exit, errors are ignored
    cudaEventDestroy(copied);
    cudaFreeHost(pinned);
    cudaFree(device);
  }

  void reserve(size_t bytes) {
    if (capacity >= bytes)
      return;
    check(cudaFreeHost(pinned), "free of a pinned batch buffer");
    check(cudaFree(device), "free of a batch buffer");
    pinned = device = nullptr;
    capacity = 0;
    // Some headroom: batches vary in size from step to step.
    const size_t grown = bytes + bytes / 4;
    check(cudaMallocHost(reinterpret_cast<void **>(&pinned), grown),
          "allocation of a pinned batch buffer (" + std::to_string(grown) +
              " bytes)");
    check(cudaMalloc(reinterpret_cast<void **>(&device), grown),
          "allocation of a batch buffer (" + std::to_string(grown) +
              " bytes)");
    capacity = grown;
  }
};

AsyncBatchCopies::AsyncBatchCopies()
    : copyStream(std::make_unique<kernels::cuda::Stream>()) {
  buffers.push_back(std::make_unique<Buffer>());
  buffers.push_back(std::make_unique<Buffer>());
}

AsyncBatchCopies::~AsyncBatchCopies() = default;

void AsyncBatchCopies::stage(const ExecContext<float> &host, int numBlocks) {
  if (!host.blocks || numBlocks <= 0)
    return;
  Buffer &b = *buffers[size_t(nextBuffer)];
  nextBuffer = 1 - nextBuffer;
  // Two steps ago this buffer's copy was issued and its step ran: steps
  // end synchronized (their loss is read back), so only the copy may be
  // outstanding, and then only if that step never took it.
  if (b.copying)
    check(cudaEventSynchronize(b.copied), "wait for a batch copy");
  b.copying = b.staged = false;

  const GraphView &last = host.blocks[numBlocks - 1];
  const int64_t inputRows = host.blocks[0].numSrc, outputRows = last.numDst;
  // The same arrays the synchronous path mirrors (DeviceExecution.cu).
  auto layOut = [&](Packer &p) {
    b.blocks.clear();
    for (int k = 0; k < numBlocks; ++k)
      b.blocks.push_back(p.placeGraph(host.blocks[k]));
    ExecContext<float> &v = b.view;
    v.graph = host.graph.inOffsets == last.inOffsets ? b.blocks.back()
                                                     : p.placeGraph(host.graph);
    // Rows gathered on the device stay where they are.
    v.features = host.deviceFeatures
                     ? host.deviceFeatures
                     : p.place(host.features, inputRows * host.numFeatures);
    v.labels = p.place(host.labels, outputRows);
    v.lossMask = p.place(host.lossMask, outputRows);
    v.nodeIds = p.place(host.nodeIds, inputRows);
    v.edgeIds = p.place(host.edgeIds, host.graph.numEdges);
    v.srcDegree = p.place(host.srcDegree, host.graph.numSrc);
    v.dstDegree = p.place(host.dstDegree, host.graph.numDst);
  };
  Packer sizing;
  layOut(sizing);
  b.reserve(std::max<size_t>(sizing.offset, 1));
  Packer packing{b.pinned, b.device};
  layOut(packing);

  const cudaStream_t stream = copyStream->get();
  if (packing.offset > 0)
    check(cudaMemcpyAsync(b.device, b.pinned, packing.offset,
                          cudaMemcpyHostToDevice, stream),
          "asynchronous copy of a batch to the device");
  check(cudaEventRecord(b.copied, stream), "event record");
  b.copying = true;
  b.step = host.step;
  b.hostBlocks = host.blocks;
  b.hostFeatures = host.features;
  deviceState().transfers.batchBytes += int64_t(packing.offset);
  b.staged = true;
}

bool AsyncBatchCopies::take(const ExecContext<float> &host,
                            ExecContext<float> &d,
                            std::vector<GraphView> &blocks) {
  // Step b's batch was staged before step b - 1 ran; b + 1's since then.
  Buffer *b = nullptr;
  for (const std::unique_ptr<Buffer> &candidate : buffers)
    if (candidate->staged && candidate->step == host.step &&
        candidate->hostBlocks == host.blocks &&
        candidate->hostFeatures == host.features)
      b = candidate.get();
  if (!b)
    return false;
  b->staged = false;
  check(cudaStreamWaitEvent(kernels::cuda::currentStream(), b->copied, 0),
        "wait for a batch copy");
  b->copying = false;
  blocks = b->blocks;
  d.blocks = blocks.data();
  d.graph = b->view.graph;
  d.features = b->view.features;
  d.labels = b->view.labels;
  d.lossMask = b->view.lossMask;
  d.nodeIds = b->view.nodeIds;
  d.edgeIds = b->view.edgeIds;
  d.srcDegree = b->view.srcDegree;
  d.dstDegree = b->view.dstDegree;
  ++takenCount;
  return true;
}

} // namespace gnnrt::device
