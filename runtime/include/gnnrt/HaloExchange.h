//===- HaloExchange.h - boundary rows between partitions --------*- C++ -*-===//
//
// A rank's node tensors in the source space have one row per local node:
// its owned nodes first, then its halo (remote sources of its in-edges).
// forward() fills the halo rows from their owners, as each aggregation over
// a partitioned graph needs; backward() is its adjoint: each halo row's
// gradient goes back to its owner and is added to the owner's row. Each
// boundary row crosses the network once per remote part that needs it: the
// halo lower bound.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_HALOEXCHANGE_H
#define GNNRT_HALOEXCHANGE_H

#include "gnnrt/Communicator.h"

#include <cstdint>
#include <vector>

namespace gnnrt {

class HaloExchange {
public:
  /// `recvOffsets` (size + 1): halo positions received from each rank;
  /// `sendOffsets`/`sendNodes`: the owned local ids each rank receives, in
  /// its halo order (gnnrt::Partition's exchange lists).
  HaloExchange(Communicator &comm, int64_t numOwned,
               std::vector<int64_t> recvOffsets,
               std::vector<int64_t> sendOffsets,
               std::vector<int64_t> sendNodes);

  int64_t numOwned() const { return owned; }
  int64_t numHalo() const { return recvOffsets.back(); }

  /// rows [numOwned + numHalo, width]: fills the halo rows.
  template <typename T> void forward(T *rows, int64_t width) const;
  /// grad [numOwned + numHalo, width]: adds each halo row into its owner's
  /// row of `ownedGrad` [numOwned, width] (on the owning rank).
  template <typename T>
  void backward(const T *grad, int64_t width, T *ownedGrad) const;

  /// Traffic of forward() and backward() calls so far.
  const CommTraffic &forwardTraffic() const { return fwd; }
  const CommTraffic &backwardTraffic() const { return bwd; }
  void resetTraffic() const { fwd = bwd = CommTraffic(); }

private:
  Communicator &comm;
  int64_t owned;
  std::vector<int64_t> recvOffsets, sendOffsets, sendNodes;
  mutable CommTraffic fwd, bwd;
};

} // namespace gnnrt

#endif // GNNRT_HALOEXCHANGE_H
