//===- Communicator.cpp - MPI and serial communicators --------------------===//
//
// MPI stays inside this file: generated code and the rest of gnnrt see only
// the Communicator interface. Counts above 2^31 are split into chunks, since
// MPI's counts are int. Every wait is a non-blocking call completed by a
// polling loop with a deadline (MPI_Wait cannot be interrupted): a rank that
// stops (SIGSTOP, a deadlock) makes the others throw CommError naming it
// instead of waiting forever. The same reduction (MPI_SUM in the library's
// own order) runs either way, so results do not change. Communicators split
// from MPI_COMM_WORLD (the trainers', a sampling thread's) share its
// liveness check, so a wait in any of them can name any rank of the launch.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/comm/Communicator.h"
#include "gnnrt/support/Stopwatch.h"

// The C API only: no C++ bindings to link.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

namespace gnnrt {

std::unique_ptr<PendingTransfer> Communicator::startSend(const void *, int64_t,
                                                         int, int) {
  throw CommError("this communicator sends no tagged messages");
}

std::vector<char> Communicator::receive(int, int) {
  throw CommError("this communicator receives no tagged messages");
}

std::unique_ptr<Communicator> Communicator::split(int, int) {
  throw CommError("this communicator cannot be split");
}

void Communicator::waitUntil(const char *, const std::function<bool()> &ready) {
  std::chrono::microseconds sleep(20);
  while (!ready()) {
    std::this_thread::sleep_for(sleep);
    sleep = std::min(sleep * 2, std::chrono::microseconds(1000));
  }
}

void SerialCommunicator::allToAllV(const void *send,
                                   const std::vector<int64_t> &sendOffsets,
                                   void *recv,
                                   const std::vector<int64_t> &recvOffsets) {
  const int64_t n = sendOffsets[1] - sendOffsets[0];
  if (n > 0)
    std::memcpy(static_cast<char *>(recv) + recvOffsets[0],
                static_cast<const char *>(send) + sendOffsets[0], size_t(n));
}

void SerialCommunicator::sendRecv(const void *send, int64_t sendBytes,
                                  int dest, void *recv, int64_t, int source) {
  if (sendBytes > 0 && dest != kNoPeer && source != kNoPeer)
    std::memcpy(recv, send, size_t(sendBytes));
}

namespace {
/// A transfer that was complete when it started.
struct DoneTransfer : PendingTransfer {
  void wait() override {}
};
} // namespace

std::unique_ptr<PendingTransfer>
SerialCommunicator::startSendRecv(const void *send, int64_t sendBytes,
                                  int dest, void *recv, int64_t recvBytes,
                                  int source) {
  sendRecv(send, sendBytes, dest, recv, recvBytes, source);
  return std::make_unique<DoneTransfer>();
}

std::unique_ptr<PendingTransfer> SerialCommunicator::startAllToAllV(
    const void *send, const std::vector<int64_t> &sendOffsets, void *recv,
    const std::vector<int64_t> &recvOffsets) {
  allToAllV(send, sendOffsets, recv, recvOffsets);
  return std::make_unique<DoneTransfer>();
}

std::unique_ptr<PendingTransfer> SerialCommunicator::startSend(const void *data,
                                                               int64_t bytes,
                                                               int dest,
                                                               int tag) {
  if (dest != 0)
    throw CommError("send to rank " + std::to_string(dest) +
                    " of a single process");
  const char *p = static_cast<const char *>(data);
  mailbox.emplace_back(tag, std::vector<char>(p, p + bytes));
  return std::make_unique<DoneTransfer>();
}

std::vector<char> SerialCommunicator::receive(int source, int tag) {
  for (auto it = mailbox.begin(); source == 0 && it != mailbox.end(); ++it)
    if (it->first == tag) {
      std::vector<char> message = std::move(it->second);
      mailbox.erase(it);
      return message;
    }
  // Nobody else could send it: waiting would never end.
  throw CommError("receive from rank " + std::to_string(source) + " (tag " +
                  std::to_string(tag) + ") in a single process: no message");
}

bool launchedUnderMpi() {
  for (const char *var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                          "MPI_LOCALNRANKS"})
    if (std::getenv(var))
      return true;
  return false;
}

namespace {

using Clock = std::chrono::steady_clock;

/// "5 s", "0.5 s": a duration as a person reads it.
std::string formatSeconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

/// A wait shorter than this only polls, as MPI's blocking calls do: the
/// collectives of an epoch finish well within it, so the normal path costs
/// no sleeping. Longer waits sleep between polls, backing off to kMaxSleep,
/// so a rank waiting for a slow peer does not burn a core. (Non-blocking
/// collectives advance only inside MPI_Test, so the cap also bounds how
/// much a late collective is slowed.)
constexpr double kSpinSeconds = 0.01;
constexpr std::chrono::microseconds kFirstSleep{20}, kMaxSleep{1000};

/// The liveness check's messages, on a communicator of their own so that
/// they never match the training's.
constexpr int kPingTag = 1, kAnswerTag = 2;

/// Tags of the collectives' own point-to-point messages (sendRecv and its
/// non-blocking form); send()'s and receive()'s tags are shifted past them.
constexpr int kSendRecvTag = 0, kStartSendRecvTag = 1, kFirstUserTag = 16;

/// What a rank answers to a liveness check: the wait it is in.
struct Answer {
  int64_t waitNumber = 0; ///< how many waits this rank has begun
  char operation[24] = {};
};

/// The liveness check, one per process, shared by MPI_COMM_WORLD and every
/// communicator split from it: a rank answers checks while it waits in any
/// of them, and a timed-out wait in any of them asks every rank of the
/// launch, so a trainer waiting for a sampler rank names that rank even
/// though they share no collective. Ranks are MPI_COMM_WORLD's. Threads
/// that wait at the same time (a sampling thread beside the training
/// thread) take turns through `mutex`: a check probed by one must be
/// received by the same one.
struct LivenessWatch {
  LivenessWatch() {
    MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
    MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
    answers.resize(size_t(worldSize));
    answerRequests.assign(size_t(worldSize), MPI_REQUEST_NULL);
  }

  /// Answers every liveness check that has arrived with the wait this rank
  /// is in. A rank answers only while it waits: a stopped or deadlocked one
  /// (or one computing outside communication) stays silent.
  void answerChecks() {
    std::lock_guard<std::recursive_mutex> lock(mutex);
    for (;;) {
      int arrived = 0;
      MPI_Status status;
      if (MPI_Iprobe(MPI_ANY_SOURCE, kPingTag, watchComm, &arrived, &status) !=
              MPI_SUCCESS ||
          !arrived)
        return;
      const int from = status.MPI_SOURCE;
      int64_t token = 0;
      MPI_Recv(&token, 1, MPI_INT64_T, from, kPingTag, watchComm,
               MPI_STATUS_IGNORE);
      // One answer buffer per peer: the previous answer to it must have
      // gone before the buffer is reused.
      MPI_Request &pending = answerRequests[size_t(from)];
      if (pending != MPI_REQUEST_NULL) {
        int sent = 0;
        MPI_Test(&pending, &sent, MPI_STATUS_IGNORE);
        if (!sent)
          continue;
      }
      Answer &answer = answers[size_t(from)];
      answer.waitNumber = waitNumber;
      std::snprintf(answer.operation, sizeof answer.operation, "%s", waitingIn);
      MPI_Isend(&answer, int(sizeof answer), MPI_BYTE, from, kAnswerTag,
                watchComm, &pending);
    }
  }

  /// After a timed-out wait: asks every other rank whether it is there, for
  /// a short grace period (answering the others' checks meanwhile, since
  /// they time out too), and returns the error message: which ranks were
  /// silent, or, when all answered, where each waits (a deadlock).
  std::string findSilentRanks(const char *what, double waited,
                              double timeoutSeconds) {
    std::lock_guard<std::recursive_mutex> lock(mutex);
    const double grace = std::clamp(timeoutSeconds / 10, 0.5, 5.0);
    std::vector<MPI_Request> pings(size_t(worldSize), MPI_REQUEST_NULL),
        replies(size_t(worldSize), MPI_REQUEST_NULL);
    std::vector<Answer> received(static_cast<size_t>(worldSize));
    std::vector<char> answered(size_t(worldSize), 0);
    static const int64_t token = 0;
    for (int q = 0; q < worldSize; ++q) {
      if (q == worldRank)
        continue;
      MPI_Irecv(&received[size_t(q)], int(sizeof(Answer)), MPI_BYTE, q,
                kAnswerTag, watchComm, &replies[size_t(q)]);
      MPI_Isend(&token, 1, MPI_INT64_T, q, kPingTag, watchComm,
                &pings[size_t(q)]);
    }
    const Clock::time_point start = Clock::now();
    int missing = worldSize - 1;
    while (missing > 0 && secondsSince(start) < grace) {
      answerChecks();
      for (int q = 0; q < worldSize; ++q) {
        if (q == worldRank || answered[size_t(q)])
          continue;
        int got = 0;
        MPI_Test(&replies[size_t(q)], &got, MPI_STATUS_IGNORE);
        if (got) {
          answered[size_t(q)] = 1;
          --missing;
        }
      }
      std::this_thread::sleep_for(kMaxSleep);
    }
    // The unanswered requests stay posted: the run ends after this error.
    std::string silent, waiting;
    int numSilent = 0;
    for (int q = 0; q < worldSize; ++q) {
      if (q == worldRank)
        continue;
      if (!answered[size_t(q)]) {
        silent += (numSilent++ ? ", " : "") + std::to_string(q);
        continue;
      }
      const Answer &a = received[size_t(q)];
      waiting +=
          "; rank " + std::to_string(q) + " waits in " +
          std::string(a.operation, strnlen(a.operation, sizeof a.operation)) +
          " #" + std::to_string(a.waitNumber);
    }
    std::string message = std::string(what) + " made no progress for " +
                          formatSeconds(std::floor(waited * 10) / 10) +
                          " (--comm-timeout " + formatSeconds(timeoutSeconds) +
                          "): ";
    if (numSilent > 0)
      message += (numSilent == 1 ? "rank " + silent + " went silent"
                                 : "ranks " + silent + " went silent") +
                 " (no answer within " + formatSeconds(grace) +
                 ": stopped, hung or busy outside communication)";
    else
      message += "every rank answered, so the ranks wait for each other "
                 "(a deadlock); this rank waits in " +
                 std::string(what) + " #" + std::to_string(waitNumber);
    return message + waiting;
  }

  int worldRank = 0, worldSize = 1;
  /// The checks' channel (MPI_COMM_WORLD duplicated), this rank's answers
  /// in flight (one per peer) and the wait it is in.
  MPI_Comm watchComm = MPI_COMM_NULL;
  std::vector<Answer> answers;
  std::vector<MPI_Request> answerRequests;
  int64_t waitNumber = 0;
  const char *waitingIn = "";
  /// Set once a wait timed out: the run is ending, and transfers destroyed
  /// on the way out no longer wait.
  std::atomic<bool> timedOut{false};
  /// Whether MPI runs with MPI_THREAD_MULTIPLE.
  bool threadMultiple = false;
  std::recursive_mutex mutex;
};

class MpiCommunicator : public Communicator {
public:
  /// MPI_COMM_WORLD: initializes MPI, finalizes it on destruction.
  MpiCommunicator() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    // MPI_THREAD_MULTIPLE: a rank may sample on a thread of its own, with a
    // communicator of its own, while the training thread all-reduces.
    int provided = MPI_THREAD_SINGLE;
    if (!initialized)
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    else
      MPI_Query_thread(&provided);
    ownsMpi = true;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    comm = MPI_COMM_WORLD;
    MPI_Comm_rank(comm, &myRank);
    MPI_Comm_size(comm, &mySize);
    watch = std::make_shared<LivenessWatch>();
    watch->threadMultiple = provided == MPI_THREAD_MULTIPLE;
    check(MPI_Comm_dup(MPI_COMM_WORLD, &watch->watchComm), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(watch->watchComm, MPI_ERRORS_RETURN);
  }
  /// A communicator split from another: the same watch and timeout.
  MpiCommunicator(MPI_Comm comm, std::shared_ptr<LivenessWatch> watch,
                  double timeoutSeconds)
      : comm(comm), watch(std::move(watch)), timeoutSeconds(timeoutSeconds) {
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &myRank);
    MPI_Comm_size(comm, &mySize);
  }
  ~MpiCommunicator() override {
    if (!ownsMpi) {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized && comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
      return;
    }
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
      MPI_Finalize();
  }

  int rank() const override { return myRank; }
  int size() const override { return mySize; }
  void setTimeout(double seconds) override { timeoutSeconds = seconds; }
  void waitUntil(const char *what,
                 const std::function<bool()> &ready) override {
    waitFor(what, ready);
  }
  bool allowsConcurrentUse() const override { return watch->threadMultiple; }

  void allReduceSum(float *data, int64_t n) override {
    reduce(data, n, MPI_FLOAT, sizeof(float));
  }
  void allReduceSum(double *data, int64_t n) override {
    reduce(data, n, MPI_DOUBLE, sizeof(double));
  }
  void allReduceSum(int64_t *data, int64_t n) override {
    reduce(data, n, MPI_INT64_T, sizeof(int64_t));
  }

  void broadcast(float *data, int64_t n, int root) override {
    for (int64_t done = 0; done < n;) {
      const int count = int(std::min<int64_t>(n - done, INT_MAX / 2));
      MPI_Request request = MPI_REQUEST_NULL;
      check(MPI_Ibcast(data + done, count, MPI_FLOAT, root, comm, &request),
            "broadcast");
      complete(1, &request, "broadcast");
      done += count;
    }
  }

  /// MPI's int counts and displacements of byte offsets.
  struct Layout {
    std::vector<int> sc, sd, rc, rd;
  };
  Layout layout(const std::vector<int64_t> &sendOffsets,
                const std::vector<int64_t> &recvOffsets) const {
    if (sendOffsets[mySize] > INT_MAX || recvOffsets[mySize] > INT_MAX)
      throw CommError("all_to_all of more than 2 GiB per rank is not "
                      "supported");
    Layout l{std::vector<int>(mySize), std::vector<int>(mySize),
             std::vector<int>(mySize), std::vector<int>(mySize)};
    for (int q = 0; q < mySize; ++q) {
      l.sc[q] = int(sendOffsets[q + 1] - sendOffsets[q]);
      l.sd[q] = int(sendOffsets[q]);
      l.rc[q] = int(recvOffsets[q + 1] - recvOffsets[q]);
      l.rd[q] = int(recvOffsets[q]);
    }
    return l;
  }

  void allToAllV(const void *send, const std::vector<int64_t> &sendOffsets,
                 void *recv,
                 const std::vector<int64_t> &recvOffsets) override {
    startAllToAllV(send, sendOffsets, recv, recvOffsets)->wait();
  }

  std::unique_ptr<PendingTransfer>
  startAllToAllV(const void *send, const std::vector<int64_t> &sendOffsets,
                 void *recv,
                 const std::vector<int64_t> &recvOffsets) override {
    auto transfer = std::make_unique<MpiTransfer>(*this, "all_to_all");
    // The counts must outlive the request.
    transfer->layout = layout(sendOffsets, recvOffsets);
    Layout &l = transfer->layout;
    check(MPI_Ialltoallv(send, l.sc.data(), l.sd.data(), MPI_BYTE, recv,
                         l.rc.data(), l.rd.data(), MPI_BYTE, comm,
                         &transfer->requests[0]),
          "all_to_all");
    return transfer;
  }

  void sendRecv(const void *send, int64_t sendBytes, int dest, void *recv,
                int64_t recvBytes, int source) override {
    if (sendBytes > INT_MAX || recvBytes > INT_MAX)
      throw CommError("a point-to-point message of more than 2 GiB is not "
                      "supported");
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    check(MPI_Irecv(recv, int(recvBytes), MPI_BYTE, peer(source), kSendRecvTag,
                    comm, &requests[0]),
          "send_recv");
    check(MPI_Isend(send, int(sendBytes), MPI_BYTE, peer(dest), kSendRecvTag,
                    comm, &requests[1]),
          "send_recv");
    complete(2, requests, "send_recv");
  }

  std::unique_ptr<PendingTransfer> startSendRecv(const void *send,
                                                 int64_t sendBytes, int dest,
                                                 void *recv, int64_t recvBytes,
                                                 int source) override {
    if (sendBytes > INT_MAX || recvBytes > INT_MAX)
      throw CommError("a point-to-point message of more than 2 GiB is not "
                      "supported");
    auto transfer = std::make_unique<MpiTransfer>(*this, "send_recv");
    check(MPI_Irecv(recv, int(recvBytes), MPI_BYTE, peer(source),
                    kStartSendRecvTag, comm, &transfer->requests[0]),
          "irecv");
    check(MPI_Isend(send, int(sendBytes), MPI_BYTE, peer(dest),
                    kStartSendRecvTag, comm, &transfer->requests[1]),
          "isend");
    return transfer;
  }

  void barrier() override {
    MPI_Request request = MPI_REQUEST_NULL;
    check(MPI_Ibarrier(comm, &request), "barrier");
    complete(1, &request, "barrier");
  }

  std::unique_ptr<PendingTransfer> startSend(const void *data, int64_t bytes,
                                             int dest, int tag) override {
    if (bytes > INT_MAX)
      throw CommError("a message of more than 2 GiB is not supported (" +
                      std::to_string(bytes) + " bytes to rank " +
                      std::to_string(dest) + ")");
    auto transfer = std::make_unique<MpiTransfer>(*this, "send");
    check(MPI_Isend(data, int(bytes), MPI_BYTE, dest, kFirstUserTag + tag, comm,
                    &transfer->requests[0]),
          "send");
    return transfer;
  }

  std::vector<char> receive(int source, int tag) override {
    // The length is known once the message is there: probe (bounded, as
    // every wait), then receive it whole.
    MPI_Status status;
    int arrived = 0;
    waitFor("receive", [&] {
      check(MPI_Iprobe(source, kFirstUserTag + tag, comm, &arrived, &status),
            "receive");
      return arrived != 0;
    });
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    std::vector<char> message(static_cast<size_t>(bytes));
    MPI_Request request = MPI_REQUEST_NULL;
    check(MPI_Irecv(message.data(), bytes, MPI_BYTE, source,
                    kFirstUserTag + tag, comm, &request),
          "receive");
    complete(1, &request, "receive");
    return message;
  }

  std::unique_ptr<Communicator> split(int color, int key) override {
    MPI_Comm part = MPI_COMM_NULL;
    check(MPI_Comm_split(comm, color, key, &part), "split");
    return std::make_unique<MpiCommunicator>(part, watch, timeoutSeconds);
  }

  std::unique_ptr<Communicator> splitByNode() override {
    MPI_Comm node = MPI_COMM_NULL;
    if (const char *perNode = std::getenv("GNNRT_TEST_RANKS_PER_NODE")) {
      // Fake nodes for tests: consecutive ranks, K to a node.
      const int k = std::max(1, std::atoi(perNode));
      check(MPI_Comm_split(comm, myRank / k, myRank, &node), "split by node");
    } else {
      check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, myRank,
                                MPI_INFO_NULL, &node),
            "split by node");
    }
    return std::make_unique<MpiCommunicator>(node, watch, timeoutSeconds);
  }

  /// kNoPeer as MPI's null process (the transfer completes at once).
  static int peer(int rank) { return rank < 0 ? MPI_PROC_NULL : rank; }

private:
  void reduce(void *data, int64_t n, MPI_Datatype type, size_t bytes) {
    char *p = static_cast<char *>(data);
    for (int64_t done = 0; done < n;) {
      const int count = int(std::min<int64_t>(n - done, INT_MAX / 2));
      MPI_Request request = MPI_REQUEST_NULL;
      check(MPI_Iallreduce(MPI_IN_PLACE, p + done * int64_t(bytes), count, type,
                           MPI_SUM, comm, &request),
            "all_reduce");
      complete(1, &request, "all_reduce");
      done += count;
    }
  }

  /// Waits for `requests` as MPI_Waitall does, but bounded (waitFor).
  void complete(int count, MPI_Request *requests, const char *what) {
    int done = 0;
    waitFor(what, [&] {
      check(MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE), what);
      return done != 0;
    });
  }

  /// Polls `ready` until it returns true: while it waits it answers other
  /// ranks' liveness checks, and after timeoutSeconds without completion
  /// it throws CommError naming the silent ranks.
  template <typename Ready> void waitFor(const char *what, Ready ready) {
    if (ready())
      return;
    {
      std::lock_guard<std::recursive_mutex> lock(watch->mutex);
      ++watch->waitNumber;
      watch->waitingIn = what;
    }
    const Clock::time_point start = Clock::now();
    std::chrono::microseconds sleep = kFirstSleep;
    for (;;) {
      if (ready())
        return;
      const double waited = secondsSince(start);
      if (waited < kSpinSeconds)
        continue;
      watch->answerChecks();
      if (timeoutSeconds > 0 && waited >= timeoutSeconds) {
        watch->timedOut = true;
        throw CommError(watch->findSilentRanks(what, waited, timeoutSeconds));
      }
      std::this_thread::sleep_for(sleep);
      sleep = std::min(sleep * 2, kMaxSleep);
    }
  }

  void check(int code, const char *what) {
    if (code == MPI_SUCCESS)
      return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw CommError(std::string(what) + " failed on rank " +
                    std::to_string(myRank) + ": " +
                    std::string(text, size_t(length)));
  }

  MPI_Comm comm = MPI_COMM_NULL;
  /// Whether this is MPI_COMM_WORLD's communicator, which finalizes MPI.
  bool ownsMpi = false;
  std::shared_ptr<LivenessWatch> watch;
  int myRank = 0, mySize = 1;
  double timeoutSeconds = kDefaultCommTimeoutSeconds;

  struct MpiTransfer : PendingTransfer {
    MpiTransfer(MpiCommunicator &comm, const char *what)
        : comm(comm), what(what) {}
    ~MpiTransfer() override {
      // Unwinding from an error: wait (bounded) so that MPI no longer
      // touches the buffers, but throw nothing from a destructor.
      if (done || comm.watch->timedOut)
        return;
      try {
        comm.complete(2, requests, what);
      } catch (const CommError &) {
      }
    }
    void wait() override {
      done = true;
      comm.complete(2, requests, what);
    }
    MpiCommunicator &comm;
    const char *what;
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    Layout layout;
    bool done = false;
  };
};

/// Slurm's task count for this step and the variable it came from, or 0
/// outside srun/sbatch.
std::pair<int64_t, const char *> slurmTaskCount() {
  if (!std::getenv("SLURM_PROCID"))
    return {0, nullptr};
  for (const char *var :
       {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "SLURM_NPROCS"})
    if (const char *value = std::getenv(var)) {
      char *end = nullptr;
      long long n = std::strtoll(value, &end, 10);
      if (end != value && *end == '\0' && n > 0)
        return {n, var};
    }
  return {0, nullptr};
}

} // namespace

std::unique_ptr<Communicator> makeCommunicator() {
  // mpirun sets this before the process starts; under srun Open MPI is
  // wired through PMIx instead and sets no OMPI_ variables.
  const bool byMpirun = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
  const char *ignore = std::getenv("GNNRT_IGNORE_SLURM");
  const auto [slurmTasks, countVariable] =
      byMpirun || (ignore && std::strcmp(ignore, "1") == 0)
          ? std::pair<int64_t, const char *>{0, nullptr}
          : slurmTaskCount();
  std::unique_ptr<Communicator> comm =
      launchedUnderMpi() ? makeMpiCommunicator()
                         : std::make_unique<SerialCommunicator>();
  if (slurmTasks > 0 && comm->size() != slurmTasks) {
    const std::string procid = std::getenv("SLURM_PROCID");
    throw CommError(
        "Slurm started this process as task " + procid + " of " +
        std::to_string(slurmTasks) + " (SLURM_PROCID, " + countVariable +
        "), but " +
        (comm->size() == 1
             ? std::string("it is not part of an MPI world with the others")
             : "its MPI world has " + std::to_string(comm->size()) + " ranks") +
        ": each task would train alone. Start the ranks with `srun "
        "--mpi=pmix` (Open MPI is wired through PMIx) or with mpirun "
        "(GNNRT_IGNORE_SLURM=1 skips this check)");
  }
  return comm;
}

std::unique_ptr<Communicator> makeMpiCommunicator() {
  return std::make_unique<MpiCommunicator>();
}

std::vector<char> gatherToRoot(Communicator &comm, const void *data,
                               int64_t bytes, int root) {
  const int ranks = comm.size(), me = comm.rank();
  std::vector<int64_t> counts(size_t(ranks), 0);
  counts[size_t(me)] = bytes;
  comm.allReduceSum(counts.data(), ranks);
  // Everything goes to root: the send offsets put all bytes in its range.
  std::vector<int64_t> sendOffsets(size_t(ranks) + 1, 0),
      recvOffsets(size_t(ranks) + 1, 0);
  for (int q = 0; q < ranks; ++q) {
    sendOffsets[size_t(q) + 1] = q >= root ? bytes : 0;
    recvOffsets[size_t(q) + 1] =
        recvOffsets[size_t(q)] + (me == root ? counts[size_t(q)] : 0);
  }
  std::vector<char> all(size_t(recvOffsets.back()));
  comm.allToAllV(data, sendOffsets, all.data(), recvOffsets);
  return all;
}

void broadcastBytes(Communicator &comm, void *data, int64_t bytes, int root) {
  // An all-to-all in which only root sends, the same bytes to every rank.
  const int ranks = comm.size(), me = comm.rank();
  std::vector<int64_t> recvOffsets(size_t(ranks) + 1, 0);
  for (int q = 0; q < ranks; ++q)
    recvOffsets[size_t(q) + 1] = recvOffsets[size_t(q)] + (q == root ? bytes : 0);
  std::vector<char> send;
  std::vector<int64_t> sendOffsets(size_t(ranks) + 1, 0);
  if (me == root) {
    for (int q = 0; q < ranks; ++q) {
      send.insert(send.end(), static_cast<char *>(data),
                  static_cast<char *>(data) + bytes);
      sendOffsets[size_t(q) + 1] = int64_t(send.size());
    }
  }
  std::vector<char> received(static_cast<size_t>(bytes));
  comm.allToAllV(send.data(), sendOffsets, received.data(), recvOffsets);
  std::copy(received.begin(), received.end(), static_cast<char *>(data));
}

void abortAllRanks(Communicator &comm, int exitCode) {
  if (comm.size() > 1)
    MPI_Abort(MPI_COMM_WORLD, exitCode);
}

} // namespace gnnrt
