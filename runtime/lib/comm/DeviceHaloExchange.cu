//===- DeviceHaloExchange.cu - boundary rows between GPUs -----------------===//
//
// See gnnrt/comm/DeviceHaloExchange.h. The structure follows
// HaloExchange.cpp step for step (the ring's order is RingSchedule.h, shared
// with it); what differs is where rows live: packing, adding back and the
// mean's division are kernels here, and every buffer is device memory that
// only grows, kept across calls.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/comm/DeviceHaloExchange.h"

#include "RingSchedule.h"

#include "gnnrt/kernels/cuda/DeviceArray.h"
#include "gnnrt/kernels/cuda/Kernels.h"
#include "gnnrt/kernels/cuda/Launch.h"
#include "gnnrt/kernels/cuda/Memory.h"
#include "gnnrt/kernels/cuda/Stream.h"
#include "gnnrt/support/Error.h"

#include <cuda_runtime.h>

#include <chrono>
#include <map>

namespace gnnrt {

/// Members of DeviceHaloExchange::Mirror (a named namespace: the emulated
/// build compiles this file as an included one, where members of
/// anonymous-namespace types draw -Wsubobject-linkage).
namespace devicehalo {

using kernels::cuda::globalThread;
using DeviceBytes = kernels::cuda::DeviceArray;
/// Throws DeviceError("CUDA <what>: <the driver's message>").
inline void check(cudaError_t status, const char *what) {
  kernels::cuda::checkCuda(status, what);
}

/// A host GraphView's arrays on the device (the aggregate kernels read the
/// destination-major ones, their adjoints the source-major ones too).
struct DeviceGraph {
  DeviceBytes inOffsets, edgeSrc, edgeDst, outOffsets, outEdges, outDst;
  GraphView view;
  explicit DeviceGraph(const GraphView &g) : view(g) {
    view.inOffsets = inOffsets.upload(g.inOffsets, g.numDst + 1);
    view.edgeSrc = edgeSrc.upload(g.edgeSrc, g.numEdges);
    view.edgeDst = g.edgeDst ? edgeDst.upload(g.edgeDst, g.numEdges) : nullptr;
    view.outOffsets =
        g.outOffsets ? outOffsets.upload(g.outOffsets, g.numSrc + 1) : nullptr;
    view.outEdges = g.outEdges ? outEdges.upload(g.outEdges, g.numEdges) : nullptr;
    view.outDst = g.outDst ? outDst.upload(g.outDst, g.numEdges) : nullptr;
    view.edgeType = nullptr;
    view.relationIndex = nullptr;
  }
};

} // namespace devicehalo

using devicehalo::DeviceBytes;
using devicehalo::DeviceGraph;

namespace {

using devicehalo::check;
using devicehalo::globalThread;

cudaStream_t stream() { return kernels::cuda::currentStream(); }

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

std::vector<int64_t> scaled(const std::vector<int64_t> &offsets,
                            int64_t bytesPerRow) {
  std::vector<int64_t> out(offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i)
    out[i] = offsets[i] * bytesPerRow;
  return out;
}

/// out[i - first] = x[ids[i]] for i in [first, last), rows of `width`.
template <typename T>
__global__ void packRowsKernel(const int64_t *ids, int64_t first,
                               int64_t last, const T *x, int64_t width,
                               T *out) {
  const int64_t n = (last - first) * width;
  for (int64_t k = globalThread(); k < n;
       k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = k / width, j = k % width;
    out[k] = x[ids[first + i] * width + j];
  }
}

/// out[ids[i]] = rows[i] for i in [0, n), rows of `width`: a split graph's
/// per-edge rows written back to their local edges.
template <typename T>
__global__ void scatterRowsKernel(const int64_t *ids, int64_t n, const T *rows,
                                  int64_t width, T *out) {
  for (int64_t k = globalThread(); k < n * width;
       k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = k / width, j = k % width;
    out[ids[i] * width + j] = rows[k];
  }
}

/// out[v] += rows[p - first] for each position p in [first, last) of the
/// send list that names owned node v, positions in ascending order: the
/// host's addRows, which adds the list in order, gives the same bits.
template <typename T>
__global__ void addRowsKernel(const int64_t *ownerOffsets,
                              const int64_t *positions, int64_t owned,
                              int64_t first, int64_t last, const T *rows,
                              int64_t width, T *out) {
  const int64_t n = owned * width;
  for (int64_t k = globalThread(); k < n;
       k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t v = k / width, j = k % width;
    T acc = out[k];
    for (int64_t q = ownerOffsets[v]; q < ownerOffsets[v + 1]; ++q) {
      const int64_t p = positions[q];
      if (p >= first && p < last)
        acc = acc + rows[(p - first) * width + j];
    }
    out[k] = acc;
  }
}

/// rows[v] /= the number of messages v reduces (a mean's last step).
template <typename T>
__global__ void divideByCountsKernel(const float *inDegree, int64_t owned,
                                     bool selfLoops, int64_t width, T *rows) {
  const int64_t n = owned * width;
  for (int64_t k = globalThread(); k < n;
       k += int64_t(gridDim.x) * blockDim.x) {
    const T count = T(inDegree[k / width] + (selfLoops ? 1 : 0));
    if (count > 0)
      rows[k] = rows[k] / count;
  }
}

unsigned gridFor(int64_t items) {
  return kernels::cuda::generatedGrid(items);
}

} // namespace

struct DeviceHaloExchange::Mirror {
  int64_t owned = 0, numHalo = 0, numSent = 0;
  DeviceBytes sendNodes, ownerOffsets, ownerPositions, inDegree;
  std::unique_ptr<DeviceGraph> ownedSources, haloSources;
  /// Chunk graphs of the ring, by (part, chunk), mirrored on first use.
  std::map<std::pair<int, int64_t>, std::unique_ptr<DeviceGraph>> chunks;
  /// The local edge ids of the owned sources' and of each chunk's edges
  /// (weighted aggregations), mirrored on first use.
  std::unique_ptr<DeviceBytes> ownedEdgeIds;
  std::map<std::pair<int, int64_t>, std::unique_ptr<DeviceBytes>> chunkEdgeIds;
  /// A split graph's edge weights and their gradient, in its edge order.
  DeviceBytes weights, weightGrad;
  /// Buffers kept across calls: one-shot's send, halo and returned rows;
  /// the ring's two transfers' both ways; a mean adjoint's scaled dy.
  DeviceBytes send, halo, back, scaledDy;
  DeviceBytes ringSend[2], ringRecv[2];
  /// aggregateOver's owned and halo rows.
  DeviceBytes overRows;

  /// The owned sources' and the halo's in-edges, mirrored on first use.
  const GraphView &ownedGraph(const HaloExchange &host) {
    if (!ownedSources)
      ownedSources = std::make_unique<DeviceGraph>(host.ownedSourceGraph());
    return ownedSources->view;
  }
  const GraphView &haloGraph(const HaloExchange &host) {
    if (!haloSources)
      haloSources = std::make_unique<DeviceGraph>(host.haloSourceGraph());
    return haloSources->view;
  }

  const GraphView &chunk(const HaloExchange &host, int q, int64_t i) {
    std::unique_ptr<DeviceGraph> &g = chunks[{q, i}];
    if (!g)
      g = std::make_unique<DeviceGraph>(host.chunkGraph(q, i));
    return g->view;
  }

  /// The local edge ids of ownedGraph()'s edges and of chunk(q, i)'s.
  const int64_t *ownedEdges(const HaloExchange &host) {
    if (!ownedEdgeIds)
      ownedEdgeIds = upload(host.ownedSourceEdges());
    return ownedEdgeIds->get<int64_t>(0);
  }
  const int64_t *chunkEdges(const HaloExchange &host, int q, int64_t i) {
    std::unique_ptr<DeviceBytes> &ids = chunkEdgeIds[{q, i}];
    if (!ids)
      ids = upload(host.chunkEdges(q, i));
    return ids->get<int64_t>(0);
  }
  static std::unique_ptr<DeviceBytes> upload(const std::vector<int64_t> &v) {
    auto bytes = std::make_unique<DeviceBytes>();
    bytes->upload(v.data(), int64_t(v.size()));
    return bytes;
  }
  /// The weights of graph g's edges (`ids`: their local ids) in its edge
  /// order.
  template <typename T>
  const T *splitWeights(const GraphView &g, const int64_t *ids, const T *weight,
                        int64_t weightWidth) {
    T *out = weights.get<T>(g.numEdges * weightWidth);
    packBy(ids, 0, g.numEdges, weight, weightWidth, out);
    return out;
  }
  /// splitWeights of ownedGraph(), or of chunk(q, i); null without
  /// weights (no edge ids are mirrored then).
  template <typename T>
  const T *ownedWeights(const HaloExchange &host, const T *weight,
                        int64_t weightWidth) {
    return weight ? splitWeights(ownedGraph(host), ownedEdges(host), weight,
                                 weightWidth)
                  : nullptr;
  }
  template <typename T>
  const T *chunkWeights(const HaloExchange &host, int q, int64_t i,
                        const T *weight, int64_t weightWidth) {
    return weight ? splitWeights(chunk(host, q, i), chunkEdges(host, q, i),
                                 weight, weightWidth)
                  : nullptr;
  }
  template <typename T>
  void packBy(const int64_t *ids, int64_t first, int64_t last, const T *x,
              int64_t width, T *out) {
    if (last <= first || width <= 0)
      return;
    GNNRT_LAUNCH_WITHOUT_BARRIERS(gridFor((last - first) * width),
                                  kernels::cuda::kGeneratedBlock, 0, stream(),
                                  packRowsKernel<T>)
    (ids, first, last, x, width, out);
    kernels::cuda::checkLaunch("packRows");
  }
  template <typename T>
  void scatter(const int64_t *ids, int64_t n, const T *rows, int64_t width,
               T *out) {
    if (n <= 0 || width <= 0)
      return;
    GNNRT_LAUNCH_WITHOUT_BARRIERS(gridFor(n * width),
                                  kernels::cuda::kGeneratedBlock, 0, stream(),
                                  scatterRowsKernel<T>)
    (ids, n, rows, width, out);
    kernels::cuda::checkLaunch("scatterRows");
  }
  template <typename T>
  void pack(int64_t first, int64_t last, const T *x, int64_t width, T *out) {
    packBy(sendNodes.get<int64_t>(0), first, last, x, width, out);
  }
  template <typename T>
  void addBack(int64_t first, int64_t last, const T *rows, int64_t width,
               T *out) {
    if (last <= first || width <= 0 || owned == 0)
      return;
    GNNRT_LAUNCH_WITHOUT_BARRIERS(gridFor(owned * width),
                                  kernels::cuda::kGeneratedBlock, 0, stream(),
                                  addRowsKernel<T>)
    (ownerOffsets.get<int64_t>(0), ownerPositions.get<int64_t>(0), owned,
     first, last, rows, width, out);
    kernels::cuda::checkLaunch("addRows");
  }
  template <typename T>
  void divide(bool selfLoops, int64_t width, T *rows) {
    if (owned == 0 || width <= 0)
      return;
    GNNRT_LAUNCH_WITHOUT_BARRIERS(gridFor(owned * width),
                                  kernels::cuda::kGeneratedBlock, 0, stream(),
                                  divideByCountsKernel<T>)
    (inDegree.get<float>(0), owned, selfLoops, width, rows);
    kernels::cuda::checkLaunch("divideByCounts");
  }
  /// dy, or dy divided by the counts for a mean (the division's adjoint).
  template <typename T>
  const T *divisionAdjoint(Reduce reduce, bool selfLoops, const T *dy,
                           int64_t width) {
    if (reduce != Reduce::Mean)
      return dy;
    T *out = scaledDy.get<T>(owned * width);
    kernels::cuda::copy<T>(dy, owned * width, out);
    divide(selfLoops, width, out);
    return out;
  }
};

DeviceHaloExchange::DeviceHaloExchange(const HaloExchange &host)
    : host(host), mirror(std::make_unique<Mirror>()) {
  Mirror &m = *mirror;
  m.owned = host.numOwned();
  m.numHalo = host.numHalo();
  const std::vector<int64_t> &sent = host.sendList();
  m.numSent = int64_t(sent.size());
  m.sendNodes.upload(sent.data(), m.numSent);
  // Each owned node's positions in the send list, ascending (a counting
  // sort), so that rows come back in the host's order.
  std::vector<int64_t> offsets(size_t(m.owned) + 1, 0), positions(sent.size());
  for (int64_t v : sent)
    ++offsets[size_t(v) + 1];
  for (int64_t v = 0; v < m.owned; ++v)
    offsets[size_t(v) + 1] += offsets[size_t(v)];
  std::vector<int64_t> next(offsets.begin(), offsets.end() - 1);
  for (int64_t p = 0; p < m.numSent; ++p)
    positions[size_t(next[size_t(sent[size_t(p)])]++)] = p;
  m.ownerOffsets.upload(offsets.data(), int64_t(offsets.size()));
  m.ownerPositions.upload(positions.data(), int64_t(positions.size()));
  const std::vector<float> &degrees = host.ownedInDegrees();
  if (!degrees.empty())
    m.inDegree.upload(degrees.data(), int64_t(degrees.size()));
}

DeviceHaloExchange::~DeviceHaloExchange() = default;

namespace {

/// One one-shot exchange's bytes (forward: owners to halo holders), as
/// HaloExchange counts them.
CommTraffic oneShotTraffic(const HaloExchange &host, int64_t rowBytes,
                           bool toOwners) {
  const int self = host.communicator().rank();
  const std::vector<int64_t> &send = host.sendListOffsets(),
                             &recv = host.haloOffsets();
  const int64_t sendRows = send.back() - (send[self + 1] - send[self]);
  const int64_t haloRows = recv.back() - (recv[self + 1] - recv[self]);
  CommTraffic t;
  t.sentBytes = (toOwners ? haloRows : sendRows) * rowBytes;
  t.receivedBytes = (toOwners ? sendRows : haloRows) * rowBytes;
  return t;
}

bool sequential(HaloMode mode, int64_t haloBytes) {
  return mode == HaloMode::Sequential ||
         (mode == HaloMode::Auto &&
          haloBytes > HaloExchange::haloBudgetBytes());
}

} // namespace

template <typename T>
void DeviceHaloExchange::forward(T *rows, int64_t width) const {
  const auto start = std::chrono::steady_clock::now();
  Mirror &m = *mirror;
  const int64_t rowBytes = width * int64_t(sizeof(T));
  T *send = m.send.get<T>(m.numSent * width);
  m.pack(0, m.numSent, rows, width, send);
  // Halo rows arrive straight into place: they are contiguous, by owner.
  host.communicator().allToAllV(send, scaled(host.sendListOffsets(), rowBytes),
                                rows + m.owned * width,
                                scaled(host.haloOffsets(), rowBytes));
  CommTraffic fwd = oneShotTraffic(host, rowBytes, /*toOwners=*/false);
  fwd.seconds = since(start);
  host.addTraffic(fwd, CommTraffic());
}

template <typename T>
void DeviceHaloExchange::backward(const T *grad, int64_t width,
                                  T *ownedGrad) const {
  const auto start = std::chrono::steady_clock::now();
  Mirror &m = *mirror;
  const int64_t rowBytes = width * int64_t(sizeof(T));
  T *recv = m.back.get<T>(m.numSent * width);
  host.communicator().allToAllV(grad + m.owned * width,
                                scaled(host.haloOffsets(), rowBytes), recv,
                                scaled(host.sendListOffsets(), rowBytes));
  m.addBack(0, m.numSent, recv, width, ownedGrad);
  CommTraffic bwd = oneShotTraffic(host, rowBytes, /*toOwners=*/true);
  bwd.seconds = since(start);
  host.addTraffic(CommTraffic(), bwd);
}

template <typename T>
void DeviceHaloExchange::aggregate(Reduce reduce, bool selfLoops, const T *x,
                                   int64_t width, T *out,
                                   HaloMode mode) const {
  Mirror &m = *mirror;
  if (sequential(mode, m.numHalo * width * int64_t(sizeof(T)))) {
    aggregateSequential<T>(reduce, selfLoops, x, width, nullptr, 1, out);
    return;
  }
  // One-shot: the whole halo arrives while the owned sources are reduced.
  const int64_t bytes = width * int64_t(sizeof(T));
  T *send = m.send.get<T>(m.numSent * width);
  m.pack(0, m.numSent, x, width, send);
  const int64_t haloElements = std::max(m.numHalo, m.owned) * width;
  T *halo = m.halo.get<T>(haloElements);
  kernels::cuda::zero<T>(halo, haloElements);
  auto transfer = host.communicator().startAllToAllV(
      send, scaled(host.sendListOffsets(), bytes), halo,
      scaled(host.haloOffsets(), bytes));
  CommTraffic fwd = oneShotTraffic(host, bytes, /*toOwners=*/false);
  kernels::cuda::aggregate<T>(m.ownedGraph(host), Reduce::Sum, selfLoops,
                              x, width, nullptr, 1, out);
  const auto waitStart = std::chrono::steady_clock::now();
  transfer->wait();
  fwd.seconds = since(waitStart);
  host.addTraffic(fwd, CommTraffic());
  kernels::cuda::aggregate<T>(m.haloGraph(host), Reduce::Sum, false, halo,
                              width, nullptr, 1, out, /*accumulate=*/true);
  if (reduce == Reduce::Mean)
    m.divide(selfLoops, width, out);
}

template <typename T>
void DeviceHaloExchange::aggregateGrad(Reduce reduce, bool selfLoops,
                                       const T *dy, int64_t width, T *dx,
                                       HaloMode mode) const {
  Mirror &m = *mirror;
  if (sequential(mode, m.numHalo * width * int64_t(sizeof(T)))) {
    aggregateGradSequential<T>(reduce, selfLoops, dy, width, nullptr, 1, dx);
    return;
  }
  const int64_t bytes = width * int64_t(sizeof(T));
  const T *scaledDy = m.divisionAdjoint(reduce, selfLoops, dy, width);
  // The halo rows' gradients go to their owners while the owned sources'
  // gradient is computed.
  const GraphView &h = m.haloGraph(host);
  T *haloGrad = m.halo.get<T>(h.numSrc * width);
  kernels::cuda::zero<T>(haloGrad, h.numSrc * width);
  kernels::cuda::aggregateGradInput<T>(h, Reduce::Sum, false, scaledDy,
                                       nullptr, nullptr, width, nullptr, 1,
                                       haloGrad);
  T *back = m.back.get<T>(m.numSent * width);
  auto transfer = host.communicator().startAllToAllV(
      haloGrad, scaled(host.haloOffsets(), bytes), back,
      scaled(host.sendListOffsets(), bytes));
  CommTraffic bwd = oneShotTraffic(host, bytes, /*toOwners=*/true);
  kernels::cuda::aggregateGradInput<T>(m.ownedGraph(host), Reduce::Sum,
                                       selfLoops, scaledDy, nullptr, nullptr,
                                       width, nullptr, 1, dx);
  const auto waitStart = std::chrono::steady_clock::now();
  transfer->wait();
  bwd.seconds = since(waitStart);
  host.addTraffic(CommTraffic(), bwd);
  m.addBack(0, m.numSent, back, width, dx);
}

template <typename T, typename OwnedWork, typename OnChunk>
void DeviceHaloExchange::fetchInChunks(const T *x, int64_t width,
                                       CommTraffic &traffic,
                                       OwnedWork ownedWork,
                                       OnChunk onChunk) const {
  Mirror &m = *mirror;
  Communicator &comm = host.communicator();
  const int parts = comm.size(), self = comm.rank();
  const int64_t bytes = width * int64_t(sizeof(T)),
                chunkRows = host.ringChunkRows();
  const std::vector<int64_t> &sendOffsets = host.sendListOffsets();
  auto sendRows = [&](int q) { return sendOffsets[q + 1] - sendOffsets[q]; };
  const std::vector<RingTransfer> plan = ringSchedule(
      parts, self,
      [&](int to) { return (sendRows(to) + chunkRows - 1) / chunkRows; },
      [&](int from) { return host.numChunks(from); });
  // As HaloExchange::fetchInChunks: transfer t sends `to` a chunk of the
  // rows it needs and receives a chunk of `from`'s; the chunk received
  // last is used while the next is in flight.
  std::unique_ptr<PendingTransfer> transfers[2];
  T *received[2] = {nullptr, nullptr};
  auto post = [&](size_t t) {
    const RingTransfer &r = plan[t];
    int64_t sendBytes = 0, recvBytes = 0;
    T *send = nullptr;
    if (r.to != Communicator::kNoPeer) {
      auto [first, last] = chunkRange(sendOffsets[r.to], sendRows(r.to),
                                      r.chunk, chunkRows);
      send = m.ringSend[t % 2].get<T>((last - first) * width);
      m.pack(first, last, x, width, send);
      sendBytes = (last - first) * bytes;
    }
    received[t % 2] = nullptr;
    if (r.from != Communicator::kNoPeer) {
      const int64_t rows = host.chunkGraph(r.from, r.chunk).numSrc;
      received[t % 2] = m.ringRecv[t % 2].get<T>(rows * width);
      recvBytes = rows * bytes;
    }
    transfers[t % 2] = comm.startSendRecv(send, sendBytes, r.to,
                                          received[t % 2], recvBytes, r.from);
    traffic.sentBytes += sendBytes;
    traffic.receivedBytes += recvBytes;
  };
  if (!plan.empty())
    post(0);
  ownedWork();
  for (size_t t = 0; t < plan.size(); ++t) {
    const auto start = std::chrono::steady_clock::now();
    transfers[t % 2]->wait();
    traffic.seconds += since(start);
    if (t + 1 < plan.size())
      post(t + 1);
    if (plan[t].from != Communicator::kNoPeer)
      onChunk(plan[t].from, plan[t].chunk,
              static_cast<const T *>(received[t % 2]));
  }
}

template <typename T>
void DeviceHaloExchange::aggregateSequential(Reduce reduce, bool selfLoops,
                                             const T *x, int64_t width,
                                             const T *weight,
                                             int64_t weightWidth,
                                             T *out) const {
  Mirror &m = *mirror;
  // Sums first; a mean divides by the whole graph's counts at the end.
  CommTraffic fwd;
  fetchInChunks(
      x, width, fwd,
      [&] {
        kernels::cuda::aggregate<T>(
            m.ownedGraph(host), Reduce::Sum, selfLoops, x, width,
            m.ownedWeights(host, weight, weightWidth), weightWidth, out);
      },
      [&](int q, int64_t i, const T *rows) {
        kernels::cuda::aggregate<T>(
            m.chunk(host, q, i), Reduce::Sum, false, rows, width,
            m.chunkWeights(host, q, i, weight, weightWidth), weightWidth, out,
            /*accumulate=*/true);
      });
  host.addTraffic(fwd, CommTraffic());
  if (reduce == Reduce::Mean)
    m.divide(selfLoops, width, out);
}

template <typename T>
void DeviceHaloExchange::aggregateWeighted(Reduce reduce, bool selfLoops,
                                           const T *x, int64_t width,
                                           const T *weight, int64_t weightWidth,
                                           T *out) const {
  aggregateSequential(reduce, selfLoops, x, width, weight, weightWidth, out);
}

template <typename T>
void DeviceHaloExchange::aggregateWeightedGrad(Reduce reduce, bool selfLoops,
                                               const T *dy, int64_t width,
                                               const T *weight,
                                               int64_t weightWidth,
                                               T *dx) const {
  aggregateGradSequential(reduce, selfLoops, dy, width, weight, weightWidth,
                          dx);
}

template <typename T>
void DeviceHaloExchange::aggregateWeightGrad(Reduce reduce, bool selfLoops,
                                             const T *dy, const T *x,
                                             int64_t width, const T *weight,
                                             int64_t weightWidth,
                                             T *dweight) const {
  Mirror &m = *mirror;
  const T *scaledDy = m.divisionAdjoint(reduce, selfLoops, dy, width);
  // Each split graph's weight gradient in its edge order, then written to
  // its local edges (each local edge is in one split graph).
  auto gradOf = [&](const GraphView &g, const int64_t *ids, bool loops,
                    const T *rows) {
    T *dw = m.weightGrad.get<T>(g.numEdges * weightWidth);
    kernels::cuda::aggregateGradWeight<T>(
        g, Reduce::Sum, loops, scaledDy, rows, nullptr, width,
        m.splitWeights(g, ids, weight, weightWidth), weightWidth, dw);
    m.scatter(ids, g.numEdges, dw, weightWidth, dweight);
  };
  // The remote rows again, as the forward fetched them (rematerialized).
  CommTraffic bwd;
  fetchInChunks(
      x, width, bwd,
      [&] { gradOf(m.ownedGraph(host), m.ownedEdges(host), selfLoops, x); },
      [&](int q, int64_t i, const T *rows) {
        gradOf(m.chunk(host, q, i), m.chunkEdges(host, q, i), false, rows);
      });
  host.addTraffic(CommTraffic(), bwd);
}

template <typename T>
void DeviceHaloExchange::aggregateGradSequential(Reduce reduce, bool selfLoops,
                                                 const T *dy, int64_t width,
                                                 const T *weight,
                                                 int64_t weightWidth,
                                                 T *dx) const {
  Mirror &m = *mirror;
  Communicator &comm = host.communicator();
  const int parts = comm.size(), self = comm.rank();
  const int64_t bytes = width * int64_t(sizeof(T)),
                chunkRows = host.ringChunkRows();
  const std::vector<int64_t> &sendOffsets = host.sendListOffsets();
  const T *scaledDy = m.divisionAdjoint(reduce, selfLoops, dy, width);
  auto sendRows = [&](int q) { return sendOffsets[q + 1] - sendOffsets[q]; };
  // As HaloExchange::aggregateGradSequential: transfer t returns to `to`
  // the gradient of a chunk of the rows `to` sent, and receives from
  // `from` that of a chunk of the rows this rank sent it; the next
  // transfer's gradient is computed while one is in flight.
  const std::vector<RingTransfer> plan = ringSchedule(
      parts, self, [&](int to) { return host.numChunks(to); },
      [&](int from) { return (sendRows(from) + chunkRows - 1) / chunkRows; });
  CommTraffic bwd;
  std::unique_ptr<PendingTransfer> transfers[2];
  T *sent[2] = {nullptr, nullptr}, *received[2] = {nullptr, nullptr};
  int64_t sentRows[2] = {0, 0};
  auto compute = [&](size_t t) {
    const RingTransfer &r = plan[t];
    sent[t % 2] = nullptr;
    sentRows[t % 2] = 0;
    if (r.to == Communicator::kNoPeer)
      return;
    const GraphView &g = m.chunk(host, r.to, r.chunk);
    sentRows[t % 2] = g.numSrc;
    sent[t % 2] = m.ringSend[t % 2].get<T>(g.numSrc * width);
    kernels::cuda::zero<T>(sent[t % 2], g.numSrc * width);
    kernels::cuda::aggregateGradInput<T>(
        g, Reduce::Sum, false, scaledDy, nullptr, nullptr, width,
        m.chunkWeights(host, r.to, r.chunk, weight, weightWidth), weightWidth,
        sent[t % 2]);
  };
  auto start = [&](size_t t) {
    const RingTransfer &r = plan[t];
    int64_t recvRows = 0;
    if (r.from != Communicator::kNoPeer) {
      auto [first, last] = chunkRange(0, sendRows(r.from), r.chunk, chunkRows);
      recvRows = last - first;
    }
    received[t % 2] = m.ringRecv[t % 2].get<T>(recvRows * width);
    const int64_t sendBytes = sentRows[t % 2] * bytes;
    transfers[t % 2] =
        comm.startSendRecv(sent[t % 2], sendBytes, r.to, received[t % 2],
                           recvRows * bytes, r.from);
    bwd.sentBytes += sendBytes;
    bwd.receivedBytes += recvRows * bytes;
  };
  auto finish = [&](size_t t) {
    const RingTransfer &r = plan[t];
    const auto waitStart = std::chrono::steady_clock::now();
    transfers[t % 2]->wait();
    bwd.seconds += since(waitStart);
    if (r.from != Communicator::kNoPeer) {
      auto [first, last] = chunkRange(sendOffsets[r.from], sendRows(r.from),
                                      r.chunk, chunkRows);
      m.addBack(first, last, received[t % 2], width, dx);
    }
  };
  if (!plan.empty()) {
    compute(0);
    start(0);
  }
  kernels::cuda::aggregateGradInput<T>(
      m.ownedGraph(host), Reduce::Sum, selfLoops, scaledDy, nullptr, nullptr,
      width, m.ownedWeights(host, weight, weightWidth), weightWidth, dx);
  for (size_t t = 0; t < plan.size(); ++t) {
    if (t + 1 < plan.size())
      compute(t + 1);
    finish(t);
    if (t + 1 < plan.size())
      start(t + 1);
  }
  host.addTraffic(CommTraffic(), bwd);
}

template <typename T>
void DeviceHaloExchange::aggregateOver(const GraphView &graph, Reduce reduce,
                                       bool selfLoops, const T *x,
                                       int64_t width, T *out) const {
  // The owned rows, then the halo's from their owners, as on the host.
  Mirror &m = *mirror;
  T *rows = m.overRows.get<T>((m.owned + m.numHalo) * width);
  kernels::cuda::copy<T>(x, m.owned * width, rows);
  forward(rows, width);
  kernels::cuda::aggregate<T>(graph, reduce, selfLoops, rows, width, nullptr,
                              1, out);
}

template <typename T>
void DeviceHaloExchange::aggregateGradOver(const GraphView &graph,
                                           Reduce reduce, bool selfLoops,
                                           const T *dy, int64_t width,
                                           T *dx) const {
  // Every source row's share, then the halo rows' sent to their owners.
  Mirror &m = *mirror;
  T *rows = m.overRows.get<T>((m.owned + m.numHalo) * width);
  kernels::cuda::aggregateGradInput<T>(graph, reduce, selfLoops, dy, nullptr,
                                       nullptr, width, nullptr, 1, rows);
  kernels::cuda::copy<T>(rows, m.owned * width, dx);
  backward(rows, width, dx);
}

#define GNNRT_INSTANTIATE(T)                                                   \
  template void DeviceHaloExchange::aggregateOver<T>(                          \
      const GraphView &, Reduce, bool, const T *, int64_t, T *) const;         \
  template void DeviceHaloExchange::aggregateGradOver<T>(                      \
      const GraphView &, Reduce, bool, const T *, int64_t, T *) const;         \
  template void DeviceHaloExchange::forward<T>(T *, int64_t) const;            \
  template void DeviceHaloExchange::backward<T>(const T *, int64_t, T *)       \
      const;                                                                   \
  template void DeviceHaloExchange::aggregate<T>(                              \
      Reduce, bool, const T *, int64_t, T *, HaloMode) const;                  \
  template void DeviceHaloExchange::aggregateGrad<T>(                          \
      Reduce, bool, const T *, int64_t, T *, HaloMode) const;                  \
  template void DeviceHaloExchange::aggregateWeighted<T>(                      \
      Reduce, bool, const T *, int64_t, const T *, int64_t, T *) const;        \
  template void DeviceHaloExchange::aggregateWeightedGrad<T>(                  \
      Reduce, bool, const T *, int64_t, const T *, int64_t, T *) const;        \
  template void DeviceHaloExchange::aggregateWeightGrad<T>(                    \
      Reduce, bool, const T *, const T *, int64_t, const T *, int64_t, T *)    \
      const;
GNNRT_INSTANTIATE(float)
GNNRT_INSTANTIATE(double)
#undef GNNRT_INSTANTIATE

} // namespace gnnrt
