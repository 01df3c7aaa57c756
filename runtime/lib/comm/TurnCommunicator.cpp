//===- TurnCommunicator.cpp - ranks as threads that take turns ------------===//
//
// See TurnCommunicator.h. One mutex guards everything; the rank that holds
// the turn is the only one not blocked on the condition variable, so the
// copies made under the mutex never race with computation.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/comm/TurnCommunicator.h"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

namespace gnnrt {

namespace {

/// One side of a point-to-point transfer, until its peer posts the other.
struct Post {
  const void *send = nullptr;
  void *recv = nullptr;
  int64_t bytes = 0;
  bool *done = nullptr; ///< the posting rank's flag for this side
};

/// What each rank passed to the collective in progress.
struct CollectiveArgs {
  const void *send = nullptr;
  void *recv = nullptr;
  const std::vector<int64_t> *sendOffsets = nullptr, *recvOffsets = nullptr;
};

enum class Phase { Ready, Running, Waiting, Done };

} // namespace

struct TurnTaking::State {
  int size;
  std::function<void(int, int)> onHandOver;
  std::function<void(const void *, size_t)> onForeignBytes;
  std::mutex mutex;
  std::condition_variable turnChanged;
  int turn = 0;
  std::vector<Phase> phase;
  /// A waiting rank's condition to go on.
  std::vector<std::function<bool()>> canGoOn;
  /// Set when a rank failed (`origin`): every wait throws from then on.
  std::string failure;
  int origin = -1;

  /// The collective in progress: its name, the ranks that reached it and
  /// their arguments; `generation` counts completed collectives.
  const char *collective = nullptr;
  int arrived = 0;
  uint64_t generation = 0;
  std::vector<CollectiveArgs> args;

  /// Posted, unmatched sends and receives per (from, to) pair.
  std::map<std::pair<int, int>, std::deque<Post>> sends, recvs;

  State(int size, std::function<void(int, int)> onHandOver,
        std::function<void(const void *, size_t)> onForeignBytes)
      : size(size), onHandOver(std::move(onHandOver)),
        onForeignBytes(std::move(onForeignBytes)), phase(size_t(size)),
        canGoOn(size_t(size)), args(size_t(size)) {}

  void throwIfFailed() const {
    if (!failure.empty())
      throw CommError(failure);
  }

  /// Copies `bytes` from rank `srcRank`'s buffer to rank `dstRank`'s on
  /// the thread of rank `self`, and reports the other ranks' sides.
  void copy(void *dst, int dstRank, const void *src, int srcRank,
            int64_t bytes, int self) {
    if (bytes <= 0)
      return;
    std::memcpy(dst, src, size_t(bytes));
    if (srcRank != self)
      onForeignBytes(src, size_t(bytes));
    if (dstRank != self)
      onForeignBytes(dst, size_t(bytes));
  }

  /// Records the first failure and wakes every rank to stop.
  void fail(int rank, std::string message) {
    if (failure.empty()) {
      failure = std::move(message);
      origin = rank;
    }
    turnChanged.notify_all();
  }

  /// Hands the turn to the next rank after `rank` that can go on; false if
  /// none can.
  bool passTurn(int rank) {
    for (int i = 1; i <= size; ++i) {
      const int next = (rank + i) % size;
      const Phase p = phase[size_t(next)];
      if (p == Phase::Ready ||
          (p == Phase::Waiting && canGoOn[size_t(next)]())) {
        onHandOver(rank, next);
        turn = next;
        turnChanged.notify_all();
        return true;
      }
    }
    return false;
  }

  /// Blocks `rank` (which holds the turn) until `ready()`; others run
  /// meanwhile.
  void waitUntil(std::unique_lock<std::mutex> &lock, int rank,
                 std::function<bool()> ready, const char *what) {
    throwIfFailed();
    if (ready())
      return;
    phase[size_t(rank)] = Phase::Waiting;
    canGoOn[size_t(rank)] = std::move(ready);
    if (!passTurn(rank)) {
      fail(rank, std::string(what) + " can never complete: every rank "
                                     "waits for another (a deadlock)");
      throw CommError(failure);
    }
    turnChanged.wait(lock,
                     [&] { return turn == rank || !failure.empty(); });
    phase[size_t(rank)] = Phase::Running;
    canGoOn[size_t(rank)] = nullptr;
    throwIfFailed();
  }

  /// Every rank calls it with its arguments; the last to arrive runs
  /// `perform` over all of them.
  void collectiveCall(int rank, const char *name, CollectiveArgs mine,
                      const std::function<void()> &perform) {
    std::unique_lock<std::mutex> lock(mutex);
    throwIfFailed();
    if (arrived > 0 && std::strcmp(collective, name) != 0) {
      fail(rank, std::string("rank ") + std::to_string(rank) + " called " +
                     name + " while the others are in " + collective);
      throw CommError(failure);
    }
    collective = name;
    args[size_t(rank)] = mine;
    const uint64_t mineGeneration = generation;
    if (++arrived == size) {
      perform();
      arrived = 0;
      ++generation;
      return;
    }
    waitUntil(lock, rank, [this, mineGeneration] {
      return generation != mineGeneration;
    }, name);
  }
};

namespace {

/// A transfer posted by startSendRecv; wait() gives up the turn until both
/// of its sides are copied.
class TurnTransfer : public PendingTransfer {
public:
  TurnTransfer(TurnTaking::State &state, int rank)
      : state(state), rank(rank) {}
  ~TurnTransfer() override {
    // Destroyed by an exception of this rank (say a full --offload disk):
    // its buffers go with the unwinding, so no peer may copy into them, and
    // waiting would hand the turn to peers that wait for this rank forever.
    // Fail the run at once; the exception names the cause.
    if (std::uncaught_exceptions() > 0) {
      std::lock_guard<std::mutex> lock(state.mutex);
      state.fail(rank, "rank " + std::to_string(rank) + " failed");
      return;
    }
    // After a failure the peer will never copy: nothing to wait for.
    try {
      wait();
    } catch (const CommError &) {
    }
  }
  void wait() override {
    std::unique_lock<std::mutex> lock(state.mutex);
    state.waitUntil(lock, rank, [this] { return sent && received; },
                    "send_recv");
  }

  bool sent = true, received = true;

private:
  TurnTaking::State &state;
  int rank;
};

class TurnCommunicator : public Communicator {
public:
  TurnCommunicator(TurnTaking::State &state, int rank)
      : state(state), self(rank) {}
  int rank() const override { return self; }
  int size() const override { return state.size; }

  void allReduceSum(float *data, int64_t n) override { sum(data, n); }
  void allReduceSum(double *data, int64_t n) override { sum(data, n); }
  void allReduceSum(int64_t *data, int64_t n) override { sum(data, n); }

  void broadcast(float *data, int64_t n, int root) override {
    CollectiveArgs mine;
    mine.recv = data;
    state.collectiveCall(self, "broadcast", mine, [&] {
      const void *from = state.args[size_t(root)].recv;
      for (int r = 0; r < state.size; ++r)
        if (r != root)
          state.copy(state.args[size_t(r)].recv, r, from, root,
                     n * int64_t(sizeof(float)), self);
    });
  }

  void allToAllV(const void *send, const std::vector<int64_t> &sendOffsets,
                 void *recv,
                 const std::vector<int64_t> &recvOffsets) override {
    CollectiveArgs mine{send, recv, &sendOffsets, &recvOffsets};
    state.collectiveCall(self, "all_to_all", mine, [&] {
      for (int to = 0; to < state.size; ++to)
        for (int from = 0; from < state.size; ++from) {
          const CollectiveArgs &s = state.args[size_t(from)];
          const CollectiveArgs &d = state.args[size_t(to)];
          const int64_t bytes =
              (*s.sendOffsets)[size_t(to) + 1] - (*s.sendOffsets)[size_t(to)];
          const int64_t room = (*d.recvOffsets)[size_t(from) + 1] -
                               (*d.recvOffsets)[size_t(from)];
          if (bytes != room)
            throw CommError("all_to_all: rank " + std::to_string(from) +
                            " sends " + std::to_string(bytes) +
                            " bytes to rank " + std::to_string(to) +
                            ", which expects " + std::to_string(room));
          state.copy(static_cast<char *>(d.recv) +
                         (*d.recvOffsets)[size_t(from)],
                     to,
                     static_cast<const char *>(s.send) +
                         (*s.sendOffsets)[size_t(to)],
                     from, bytes, self);
        }
    });
  }

  void sendRecv(const void *send, int64_t sendBytes, int dest, void *recv,
                int64_t recvBytes, int source) override {
    startSendRecv(send, sendBytes, dest, recv, recvBytes, source)->wait();
  }

  std::unique_ptr<PendingTransfer>
  startSendRecv(const void *send, int64_t sendBytes, int dest, void *recv,
                int64_t recvBytes, int source) override {
    auto transfer = std::make_unique<TurnTransfer>(state, self);
    std::lock_guard<std::mutex> lock(state.mutex);
    state.throwIfFailed();
    if (dest != kNoPeer) {
      transfer->sent = false;
      match(state.recvs, state.sends, {self, dest},
            {send, nullptr, sendBytes, &transfer->sent}, /*isSend=*/true);
    }
    if (source != kNoPeer) {
      transfer->received = false;
      match(state.sends, state.recvs, {source, self},
            {nullptr, recv, recvBytes, &transfer->received},
            /*isSend=*/false);
    }
    return transfer;
  }

  std::unique_ptr<PendingTransfer>
  startAllToAllV(const void *send, const std::vector<int64_t> &sendOffsets,
                 void *recv,
                 const std::vector<int64_t> &recvOffsets) override {
    // Everything happens when the last rank arrives: there is nothing to
    // overlap with.
    allToAllV(send, sendOffsets, recv, recvOffsets);
    return std::make_unique<CompletedTransfer>();
  }

  void barrier() override {
    state.collectiveCall(self, "barrier", {}, [] {});
  }

private:
  struct CompletedTransfer : PendingTransfer {
    void wait() override {}
  };

  template <typename T> void sum(T *data, int64_t n) {
    CollectiveArgs mine;
    mine.recv = data;
    state.collectiveCall(self, "all_reduce", mine, [&] {
      // In rank order, as the interface promises, into rank 0's buffer,
      // then copied to the others.
      T *total = static_cast<T *>(state.args[0].recv);
      for (int r = 1; r < state.size; ++r) {
        const T *add = static_cast<const T *>(state.args[size_t(r)].recv);
        for (int64_t i = 0; i < n; ++i)
          total[i] += add[i];
      }
      for (int r = 1; r < state.size; ++r)
        std::memcpy(state.args[size_t(r)].recv, total, size_t(n) * sizeof(T));
    });
  }

  /// Pairs `post` with the oldest opposite side of the same pair of ranks
  /// in `opposite`, copying the bytes, or queues it in `own`.
  void match(std::map<std::pair<int, int>, std::deque<Post>> &opposite,
             std::map<std::pair<int, int>, std::deque<Post>> &own,
             std::pair<int, int> pair, Post post, bool isSend) {
    std::deque<Post> &waiting = opposite[pair];
    if (waiting.empty()) {
      own[pair].push_back(post);
      return;
    }
    Post other = waiting.front();
    waiting.pop_front();
    const Post &s = isSend ? post : other;
    const Post &r = isSend ? other : post;
    if (s.bytes != r.bytes)
      throw CommError("send_recv: rank " + std::to_string(pair.first) +
                      " sends " + std::to_string(s.bytes) + " bytes to rank " +
                      std::to_string(pair.second) + ", which expects " +
                      std::to_string(r.bytes));
    state.copy(r.recv, pair.second, s.send, pair.first, s.bytes, self);
    *post.done = *other.done = true;
  }

  TurnTaking::State &state;
  int self;
};

} // namespace

TurnTaking::TurnTaking(
    int size, std::function<void(int, int)> onHandOver,
    std::function<void(const void *, size_t)> onForeignBytes)
    : state(std::make_unique<State>(size, std::move(onHandOver),
                                    std::move(onForeignBytes))) {
  for (int r = 0; r < size; ++r)
    comms.push_back(std::make_unique<TurnCommunicator>(*state, r));
}

TurnTaking::~TurnTaking() = default;

int TurnTaking::size() const { return state->size; }

Communicator &TurnTaking::communicator(int rank) {
  return *comms[size_t(rank)];
}

void TurnTaking::run(const std::function<void(int)> &work) {
  State &s = *state;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    std::fill(s.phase.begin(), s.phase.end(), Phase::Ready);
    s.turn = 0;
    s.failure.clear();
    s.origin = -1;
    s.arrived = 0;
    s.sends.clear();
    s.recvs.clear();
  }
  std::vector<std::exception_ptr> errors(size_t(s.size));
  std::vector<std::thread> threads;
  for (int rank = 0; rank < s.size; ++rank)
    threads.emplace_back([&, rank] {
      std::unique_lock<std::mutex> lock(s.mutex);
      s.turnChanged.wait(lock,
                         [&] { return s.turn == rank || !s.failure.empty(); });
      if (!s.failure.empty()) {
        s.phase[size_t(rank)] = Phase::Done;
        return;
      }
      s.phase[size_t(rank)] = Phase::Running;
      lock.unlock();
      try {
        work(rank);
      } catch (...) {
        errors[size_t(rank)] = std::current_exception();
      }
      lock.lock();
      s.phase[size_t(rank)] = Phase::Done;
      if (errors[size_t(rank)])
        s.fail(rank, "rank " + std::to_string(rank) + " failed");
      bool allDone = true;
      for (Phase p : s.phase)
        allDone = allDone && p == Phase::Done;
      if (allDone || !s.failure.empty())
        s.onHandOver(rank, -1);
      else if (!s.passTurn(rank))
        s.fail(rank, "rank " + std::to_string(rank) +
                         " finished while the others wait for it (a "
                         "deadlock)");
      s.turnChanged.notify_all();
    });
  for (std::thread &t : threads)
    t.join();
  // The rank that failed first names the cause; the others only stopped.
  if (s.origin >= 0 && errors[size_t(s.origin)])
    std::rethrow_exception(errors[size_t(s.origin)]);
  if (!s.failure.empty())
    throw CommError(s.failure);
}

} // namespace gnnrt
