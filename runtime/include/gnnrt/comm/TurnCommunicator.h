//===- TurnCommunicator.h - ranks as threads that take turns ----*- C++ -*-===//
//
// SAR's single-node mode in one process: P ranks are P threads of this
// process, and exactly one of them runs at a time. A rank keeps the turn
// until it must wait for another (a collective that not every rank has
// reached, a transfer whose peer has not posted its side); then it hands
// the turn to the next rank, in rank order, that can go on, and calls the
// schedule's `onHandOver` hook (out-of-core training drops pages there). Data moves by memcpy between the ranks' own buffers: the last rank
// to reach a collective performs it, and the later of a transfer's two
// sides copies it, so nothing is buffered in between.
//
// Results are the MPI communicator's: sums run in rank order, transfers
// between a pair of ranks match in posting order.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_COMM_TURNCOMMUNICATOR_H
#define GNNRT_COMM_TURNCOMMUNICATOR_H

#include "gnnrt/comm/Communicator.h"

#include <functional>
#include <memory>

namespace gnnrt {

/// The turns of `size` ranks, shared by their communicators.
class TurnTaking {
public:
  /// `onHandOver(from, to)` runs on rank `from`'s thread whenever it gives
  /// the turn to rank `to` (waiting, or done with a stage: then `to` is -1
  /// when no rank is left), before `to` runs. `onForeignBytes(p, n)` runs
  /// after the running rank copied from or into another rank's buffer
  /// [p, p + n) (out-of-core training drops those pages again).
  TurnTaking(int size, std::function<void(int, int)> onHandOver,
             std::function<void(const void *, size_t)> onForeignBytes =
                 [](const void *, size_t) {});
  ~TurnTaking();

  int size() const;
  /// The communicator of `rank`, for use on that rank's thread only.
  Communicator &communicator(int rank);

  /// Runs `work(rank)` on one thread per rank, taking turns (rank 0
  /// first), and returns when all are done. The first exception thrown by
  /// a rank is rethrown here after every thread has ended; the others then
  /// stop at their next wait.
  void run(const std::function<void(int)> &work);

  struct State;

private:
  std::unique_ptr<State> state;
  std::vector<std::unique_ptr<Communicator>> comms;
};

} // namespace gnnrt

#endif // GNNRT_COMM_TURNCOMMUNICATOR_H
