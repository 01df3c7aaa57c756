//===- RankCollectives.h - Typed exchanges between ranks -------*- C++ -*-===//
//
// Internal to gnnrt. The distributed partitioner moves typed records
// between ranks (edges to their owners, ids to ask about, feature rows);
// exchangeRecords puts plain structs through the Communicator's byte
// all_to_all, in rounds when a rank's share would pass the 2 GiB an MPI
// count holds. `agreeOnFailure` is how a rank's bad input becomes the
// same located error on every rank instead of a hang: every phase that
// reads user data ends with it.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_PARTITION_RANKCOLLECTIVES_H
#define GNNRT_LIB_PARTITION_RANKCOLLECTIVES_H

#include "gnnrt/comm/Communicator.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace gnnrt {

/// Bytes exchanged per rank in one all_to_all round (below MPI's int).
constexpr int64_t kExchangeRoundBytes = int64_t(1) << 30;

/// The byte offsets, grouped by source rank, of what every rank sends this
/// one when it sends send[sendOffsets[q] .. sendOffsets[q + 1]) to rank q.
std::vector<int64_t> exchangeSizes(Communicator &comm,
                                   const std::vector<int64_t> &sendOffsets);

/// Sends the bytes send[sendOffsets[q] ..) to every rank q and receives
/// into recv at recvOffsets (from exchangeSizes), in rounds of at most
/// `roundBytes` sent or received per rank.
void exchangeBytes(Communicator &comm, const char *send,
                   const std::vector<int64_t> &sendOffsets, char *recv,
                   const std::vector<int64_t> &recvOffsets,
                   int64_t roundBytes = kExchangeRoundBytes);

/// Sends record make(i) to rank dest(i) for every i in [0, count) with
/// dest(i) >= 0, and returns the records every rank sent this one, grouped
/// by source rank in rank order (and within a source in i order).
/// `sources`, if given, receives each source's first record and the end.
/// Only one send buffer is built (two passes over i); `packed`, if given,
/// runs once it is, before the receive buffer is made (to free what make
/// read).
template <typename T, typename Dest, typename Make>
std::vector<T> exchangeRecords(Communicator &comm, int64_t count, Dest dest,
                               Make make,
                               std::vector<int64_t> *sources = nullptr,
                               const std::function<void()> &packed = {}) {
  static_assert(std::is_trivially_copyable_v<T>);
  const size_t p = size_t(comm.size());
  std::vector<int64_t> sendOffsets(p + 1, 0);
  for (int64_t i = 0; i < count; ++i)
    if (int q = dest(i); q >= 0)
      sendOffsets[size_t(q) + 1] += int64_t(sizeof(T));
  for (size_t q = 0; q < p; ++q)
    sendOffsets[q + 1] += sendOffsets[q];
  std::vector<T> send(size_t(sendOffsets[p]) / sizeof(T));
  {
    std::vector<int64_t> cursor(sendOffsets.begin(), sendOffsets.end() - 1);
    for (int64_t i = 0; i < count; ++i)
      if (int q = dest(i); q >= 0) {
        send[size_t(cursor[size_t(q)]) / sizeof(T)] = make(i);
        cursor[size_t(q)] += int64_t(sizeof(T));
      }
  }
  if (packed)
    packed();
  std::vector<int64_t> recvOffsets = exchangeSizes(comm, sendOffsets);
  std::vector<T> recv(size_t(recvOffsets[p]) / sizeof(T));
  exchangeBytes(comm, reinterpret_cast<const char *>(send.data()), sendOffsets,
                reinterpret_cast<char *>(recv.data()), recvOffsets);
  if (sources) {
    sources->resize(p + 1);
    for (size_t q = 0; q <= p; ++q)
      (*sources)[q] = recvOffsets[q] / int64_t(sizeof(T));
  }
  return recv;
}

/// Every rank's `value`, in rank order.
std::vector<int64_t> allGather(Communicator &comm, int64_t value);

/// Rank `root`'s `text` on every rank.
std::string broadcastString(Communicator &comm, std::string text, int root);

/// Runs `phase`; then, collectively, if any rank's phase threw, every rank
/// throws DataError with the message of the lowest such rank. Call it on
/// every rank with phases that do no communication themselves.
void agreeOnFailure(Communicator &comm, const std::function<void()> &phase);

} // namespace gnnrt

#endif // GNNRT_LIB_PARTITION_RANKCOLLECTIVES_H
