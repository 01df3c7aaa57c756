//===- HaloExchange.cpp - boundary rows between partitions ----------------===//

#include "gnnrt/HaloExchange.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace gnnrt {

namespace {

std::vector<int64_t> scaled(const std::vector<int64_t> &offsets,
                            int64_t bytesPerRow) {
  std::vector<int64_t> out(offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i)
    out[i] = offsets[i] * bytesPerRow;
  return out;
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

} // namespace

HaloExchange::HaloExchange(Communicator &comm, int64_t numOwned,
                           std::vector<int64_t> recvOffsets,
                           std::vector<int64_t> sendOffsets,
                           std::vector<int64_t> sendNodes)
    : comm(comm), owned(numOwned), recvOffsets(std::move(recvOffsets)),
      sendOffsets(std::move(sendOffsets)), sendNodes(std::move(sendNodes)) {}

template <typename T>
void HaloExchange::forward(T *rows, int64_t width) const {
  const auto start = std::chrono::steady_clock::now();
  const int64_t rowBytes = width * int64_t(sizeof(T));
  std::vector<T> send(sendNodes.size() * size_t(width));
  for (size_t i = 0; i < sendNodes.size(); ++i)
    std::memcpy(send.data() + i * size_t(width), rows + sendNodes[i] * width,
                size_t(rowBytes));
  // Halo rows arrive straight into place: they are contiguous, by owner.
  comm.allToAllV(send.data(), scaled(sendOffsets, rowBytes),
                 rows + owned * width, scaled(recvOffsets, rowBytes));
  const int self = comm.rank();
  fwd.sentBytes += (sendOffsets.back() - (sendOffsets[self + 1] -
                                          sendOffsets[self])) * rowBytes;
  fwd.receivedBytes += (recvOffsets.back() - (recvOffsets[self + 1] -
                                              recvOffsets[self])) * rowBytes;
  fwd.seconds += since(start);
}

template <typename T>
void HaloExchange::backward(const T *grad, int64_t width, T *ownedGrad) const {
  const auto start = std::chrono::steady_clock::now();
  const int64_t rowBytes = width * int64_t(sizeof(T));
  std::vector<T> recv(sendNodes.size() * size_t(width));
  comm.allToAllV(grad + owned * width, scaled(recvOffsets, rowBytes),
                 recv.data(), scaled(sendOffsets, rowBytes));
  // In send-list order, so the sum order is fixed.
  for (size_t i = 0; i < sendNodes.size(); ++i) {
    T *row = ownedGrad + sendNodes[i] * width;
    const T *add = recv.data() + i * size_t(width);
    for (int64_t j = 0; j < width; ++j)
      row[j] += add[j];
  }
  const int self = comm.rank();
  bwd.sentBytes += (recvOffsets.back() - (recvOffsets[self + 1] -
                                          recvOffsets[self])) * rowBytes;
  bwd.receivedBytes += (sendOffsets.back() - (sendOffsets[self + 1] -
                                              sendOffsets[self])) * rowBytes;
  bwd.seconds += since(start);
}

void HaloExchange::splitBySourceOwner(const GraphView &local,
                                      std::vector<float> degrees) {
  const int parts = comm.size(), self = comm.rank();
  inDegree = std::move(degrees);
  // The part owning local source u, and u's row within that part's rows.
  auto ownerOf = [&](int64_t u) {
    if (u < owned)
      return self;
    const int64_t h = u - owned;
    return int(std::upper_bound(recvOffsets.begin(), recvOffsets.end(), h) -
               recvOffsets.begin()) -
           1;
  };
  std::vector<std::vector<int64_t>> src(static_cast<size_t>(parts)),
      dst(static_cast<size_t>(parts));
  for (int64_t v = 0; v < local.numDst; ++v)
    for (int64_t e = local.inOffsets[v]; e < local.inOffsets[v + 1]; ++e) {
      const int64_t u = local.edgeSrc[e];
      const int q = ownerOf(u);
      src[size_t(q)].push_back(q == self ? u : u - owned - recvOffsets[q]);
      dst[size_t(q)].push_back(v);
    }
  bySourceOwner.clear();
  for (int q = 0; q < parts; ++q) {
    const int64_t rows =
        q == self ? owned : recvOffsets[q + 1] - recvOffsets[q];
    bySourceOwner.push_back(GraphStorage::build(
        std::max(rows, owned), owned, src[size_t(q)], dst[size_t(q)]));
  }
}

template <typename T>
void HaloExchange::aggregate(Reduce reduce, bool selfLoops, const T *x,
                             int64_t width, T *out) const {
  const int parts = comm.size(), self = comm.rank();
  const int64_t n = owned * width;
  // Sums first; a mean divides by the whole graph's counts at the end.
  kernels::aggregate<T>(bySourceOwner[self].view(), Reduce::Sum, selfLoops, x,
                        width, nullptr, 1, out);
  std::vector<T> send, rows, partial(static_cast<size_t>(n));
  for (int k = 1; k < parts; ++k) {
    const auto start = std::chrono::steady_clock::now();
    const int to = (self + k) % parts, from = (self - k + parts) % parts;
    const int64_t sendRows = sendOffsets[to + 1] - sendOffsets[to];
    const int64_t recvRows = recvOffsets[from + 1] - recvOffsets[from];
    send.resize(size_t(sendRows * width));
    for (int64_t i = 0; i < sendRows; ++i)
      std::copy(x + sendNodes[size_t(sendOffsets[to] + i)] * width,
                x + (sendNodes[size_t(sendOffsets[to] + i)] + 1) * width,
                send.begin() + i * width);
    // Sized for the larger of the graph's sources and the rows received.
    rows.assign(size_t(std::max(recvRows, owned) * width), T(0));
    comm.sendRecv(send.data(), sendRows * width * int64_t(sizeof(T)), to,
                  rows.data(), recvRows * width * int64_t(sizeof(T)), from);
    fwd.sentBytes += sendRows * width * int64_t(sizeof(T));
    fwd.receivedBytes += recvRows * width * int64_t(sizeof(T));
    fwd.seconds += since(start);
    kernels::aggregate<T>(bySourceOwner[from].view(), Reduce::Sum, false,
                          rows.data(), width, nullptr, 1, partial.data());
    for (int64_t i = 0; i < n; ++i)
      out[i] += partial[size_t(i)];
  }
  if (reduce == Reduce::Mean)
    for (int64_t v = 0; v < owned; ++v) {
      const T count = T(inDegree[size_t(v)] + (selfLoops ? 1 : 0));
      if (count > 0)
        for (int64_t j = 0; j < width; ++j)
          out[v * width + j] /= count;
    }
}

template <typename T>
void HaloExchange::aggregateGrad(Reduce reduce, bool selfLoops, const T *dy,
                                 int64_t width, T *dx) const {
  const int parts = comm.size(), self = comm.rank();
  const int64_t n = owned * width;
  // The adjoint of the final division, then transposed sums.
  std::vector<T> scaled(dy, dy + n);
  if (reduce == Reduce::Mean)
    for (int64_t v = 0; v < owned; ++v) {
      const T count = T(inDegree[size_t(v)] + (selfLoops ? 1 : 0));
      if (count > 0)
        for (int64_t j = 0; j < width; ++j)
          scaled[size_t(v * width + j)] /= count;
    }
  kernels::aggregateGradInput<T>(bySourceOwner[self].view(), Reduce::Sum,
                                 selfLoops, scaled.data(), nullptr, nullptr,
                                 width, nullptr, 1, dx);
  std::vector<T> mine, theirs;
  for (int k = 1; k < parts; ++k) {
    const auto start = std::chrono::steady_clock::now();
    const int to = (self + k) % parts, from = (self - k + parts) % parts;
    // Gradients of the rows `to` sent this rank in the forward pass...
    const int64_t haloRows = recvOffsets[to + 1] - recvOffsets[to];
    const GraphView g = bySourceOwner[to].view();
    mine.assign(size_t(g.numSrc * width), T(0));
    kernels::aggregateGradInput<T>(g, Reduce::Sum, false, scaled.data(),
                                   nullptr, nullptr, width, nullptr, 1,
                                   mine.data());
    // ...go back to it; `from` returns those of the rows this rank sent it.
    const int64_t ownRows = sendOffsets[from + 1] - sendOffsets[from];
    theirs.resize(size_t(ownRows * width));
    comm.sendRecv(mine.data(), haloRows * width * int64_t(sizeof(T)), to,
                  theirs.data(), ownRows * width * int64_t(sizeof(T)), from);
    bwd.sentBytes += haloRows * width * int64_t(sizeof(T));
    bwd.receivedBytes += ownRows * width * int64_t(sizeof(T));
    bwd.seconds += since(start);
    for (int64_t i = 0; i < ownRows; ++i) {
      T *row = dx + sendNodes[size_t(sendOffsets[from] + i)] * width;
      const T *add = theirs.data() + i * width;
      for (int64_t j = 0; j < width; ++j)
        row[j] += add[j];
    }
  }
}

template void HaloExchange::forward<float>(float *, int64_t) const;
template void HaloExchange::forward<double>(double *, int64_t) const;
template void HaloExchange::backward<float>(const float *, int64_t,
                                            float *) const;
template void HaloExchange::backward<double>(const double *, int64_t,
                                             double *) const;
template void HaloExchange::aggregate<float>(Reduce, bool, const float *,
                                             int64_t, float *) const;
template void HaloExchange::aggregate<double>(Reduce, bool, const double *,
                                              int64_t, double *) const;
template void HaloExchange::aggregateGrad<float>(Reduce, bool, const float *,
                                                 int64_t, float *) const;
template void HaloExchange::aggregateGrad<double>(Reduce, bool,
                                                  const double *, int64_t,
                                                  double *) const;

} // namespace gnnrt
