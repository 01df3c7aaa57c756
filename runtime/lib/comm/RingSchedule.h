//===- RingSchedule.h - the transfers of SAR's sequential ring --*- C++ -*-===//
//
// Internal to lib/comm: the order in which the sequential aggregation moves
// remote parts' rows, shared by the host halo exchange (HaloExchange.cpp)
// and the device one (DeviceHaloExchange.cu), so that both send the
// same messages in the same order.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_COMM_RINGSCHEDULE_H
#define GNNRT_LIB_COMM_RINGSCHEDULE_H

#include "gnnrt/comm/Communicator.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace gnnrt {

/// Transfer t of the ring: in step k (1 .. P-1) a rank sends to rank + k and
/// receives from rank - k, chunk by chunk. A direction whose chunks are
/// used up has no peer, so both ends of a pair agree on every message.
struct RingTransfer {
  int to = Communicator::kNoPeer, from = Communicator::kNoPeer;
  int64_t chunk = 0; ///< chunk index within the step
  int toPart = 0, fromPart = 0;
};

/// The ring's transfers: per step, as many as the longer direction has
/// chunks (`sendChunks(to)`, `recvChunks(from)`).
template <typename SendChunks, typename RecvChunks>
std::vector<RingTransfer> ringSchedule(int parts, int self,
                                       SendChunks sendChunks,
                                       RecvChunks recvChunks) {
  std::vector<RingTransfer> plan;
  for (int k = 1; k < parts; ++k) {
    const int to = (self + k) % parts, from = (self - k + parts) % parts;
    const int64_t sends = sendChunks(to), recvs = recvChunks(from);
    for (int64_t i = 0; i < std::max(sends, recvs); ++i) {
      RingTransfer t;
      t.to = i < sends ? to : Communicator::kNoPeer;
      t.from = i < recvs ? from : Communicator::kNoPeer;
      t.chunk = i;
      t.toPart = to;
      t.fromPart = from;
      plan.push_back(t);
    }
  }
  return plan;
}

/// Rows [first, last) of chunk i of a run of `rows` rows starting at `base`.
inline std::pair<int64_t, int64_t> chunkRange(int64_t base, int64_t rows,
                                              int64_t i, int64_t chunkRows) {
  const int64_t begin = std::min(rows, i * chunkRows);
  return {base + begin, base + std::min(rows, begin + chunkRows)};
}

} // namespace gnnrt

#endif // GNNRT_LIB_COMM_RINGSCHEDULE_H
