//===- HaloExchange.cpp - boundary rows between partitions ----------------===//

#include "gnnrt/HaloExchange.h"

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

template void HaloExchange::forward<float>(float *, int64_t) const;
template void HaloExchange::forward<double>(double *, int64_t) const;
template void HaloExchange::backward<float>(const float *, int64_t,
                                            float *) const;
template void HaloExchange::backward<double>(const double *, int64_t,
                                             double *) const;

} // namespace gnnrt
