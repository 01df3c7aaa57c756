//===- Communicator.h - collectives between training ranks ------*- C++ -*-===//
//
// The interface the trainer and the halo exchange talk to. MpiCommunicator
// implements it over MPI; NcclCommunicator (gnnrt/comm/NcclCommunicator.h)
// over NCCL for the ranks of a CUDA trainer. A single-process run uses
// SerialCommunicator, so the trainer has one code path. Every MPI
// collective throws CommError when the transport reports a failure (a rank
// died) or when it makes no progress for the communication timeout (a rank
// stopped or deadlocked), so a run never hangs silently.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_COMM_COMMUNICATOR_H
#define GNNRT_COMM_COMMUNICATOR_H

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gnnrt {

/// A failed collective: the message names the operation and the transport's
/// error.
class CommError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Bytes a rank sent and received, per phase of an epoch.
struct CommTraffic {
  int64_t sentBytes = 0, receivedBytes = 0;
  double seconds = 0;
};

/// A non-blocking transfer in flight; wait() completes it (the buffers must
/// stay alive until then). Destroying it waits too.
class PendingTransfer {
public:
  virtual ~PendingTransfer() = default;
  virtual void wait() = 0;
};

class Communicator {
public:
  /// The peer of a send/receive direction that does not happen.
  static constexpr int kNoPeer = -1;
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  /// Element-wise sums across ranks, in place. Every rank gets the same
  /// result, summed in rank order (deterministic for a given rank count).
  virtual void allReduceSum(float *data, int64_t n) = 0;
  virtual void allReduceSum(double *data, int64_t n) = 0;
  virtual void allReduceSum(int64_t *data, int64_t n) = 0;
  /// Copies `root`'s buffer to every rank.
  virtual void broadcast(float *data, int64_t n, int root) = 0;
  /// Personalized exchange of bytes: rank r sends
  /// send[sendOffsets[q] .. sendOffsets[q + 1]) to q and receives what q
  /// sends it into recv[recvOffsets[q] ..]. Offsets have size() + 1 entries.
  virtual void allToAllV(const void *send, const std::vector<int64_t> &sendOffsets,
                         void *recv,
                         const std::vector<int64_t> &recvOffsets) = 0;
  /// Sends `sendBytes` to `dest` while receiving `recvBytes` from `source`
  /// (a step of a ring: every rank calls it with matching peers). A
  /// negative peer (kNoPeer) skips that direction.
  virtual void sendRecv(const void *send, int64_t sendBytes, int dest,
                        void *recv, int64_t recvBytes, int source) = 0;
  /// sendRecv() that returns at once, so that computation overlaps it.
  virtual std::unique_ptr<PendingTransfer>
  startSendRecv(const void *send, int64_t sendBytes, int dest, void *recv,
                int64_t recvBytes, int source) = 0;
  /// allToAllV() that returns at once.
  virtual std::unique_ptr<PendingTransfer>
  startAllToAllV(const void *send, const std::vector<int64_t> &sendOffsets,
                 void *recv, const std::vector<int64_t> &recvOffsets) = 0;
  virtual void barrier() = 0;

  /// Tagged point-to-point messages of any length, for ranks in different
  /// roles (a trainer asking a sampler rank for batches). Messages from one
  /// rank with one tag arrive in the order sent. send() returns once the
  /// buffer may be reused; startSend() at once (`data` must stay alive
  /// until the transfer completes). receive() waits for the next message
  /// from `source` with `tag`, whatever its length. A communicator without
  /// such messages (a test double) throws CommError.
  void send(const void *data, int64_t bytes, int dest, int tag) {
    startSend(data, bytes, dest, tag)->wait();
  }
  virtual std::unique_ptr<PendingTransfer>
  startSend(const void *data, int64_t bytes, int dest, int tag);
  virtual std::vector<char> receive(int source, int tag);

  /// The ranks with the same `color` as a communicator of their own,
  /// ordered by `key` (ties: by rank here). Collective over this
  /// communicator. Its waits are bounded by the same timeout, and a
  /// timed-out wait in it asks every rank of the launch which are there.
  virtual std::unique_ptr<Communicator> split(int color, int key);

  /// The ranks of this communicator that share this rank's node (machine),
  /// ordered by rank: what picks each rank's GPU and groups a hierarchical
  /// all-reduce. Collective. The default: every rank on a node of its own.
  /// Tests emulate several nodes on one machine with
  /// GNNRT_TEST_RANKS_PER_NODE=K (ranks 0..K-1 form node 0, and so on).
  virtual std::unique_ptr<Communicator> splitByNode() {
    return split(rank(), 0);
  }

  /// Whether this communicator and those split from it may be used by
  /// different threads at the same time (MPI_THREAD_MULTIPLE): a sampling
  /// thread on a split communicator beside the training thread.
  virtual bool allowsConcurrentUse() const { return false; }

  /// Whether allToAllV and the other transfers take device buffers as they
  /// are (a device communicator, NCCL), so that data made on a GPU can be
  /// exchanged without crossing to the host. Host buffers always work.
  virtual bool carriesDeviceBuffers() const { return false; }

  /// Bounds every wait of a collective or transfer: one that makes no
  /// progress for `seconds` checks which ranks still answer and throws
  /// CommError naming the silent ones. 0 waits forever. A communicator of
  /// one rank never waits, so the default ignores it.
  virtual void setTimeout(double seconds) { (void)seconds; }

  /// Waits until `ready()` returns true, bounded as this communicator's
  /// own waits are: meanwhile it answers the other ranks' liveness checks,
  /// and after the timeout it throws CommError naming the silent ranks.
  /// For work that another layer completes (a device communicator's
  /// collectives on a stream); `what` names the wait in messages (a string
  /// literal). The default polls without a bound.
  virtual void waitUntil(const char *what, const std::function<bool()> &ready);
};

/// Every rank's `bytes` of `data`, concatenated in rank order on `root` (an
/// empty vector on the other ranks). Collective.
std::vector<char> gatherToRoot(Communicator &comm, const void *data,
                               int64_t bytes, int root = 0);

/// Copies `root`'s `bytes` of `data` to every rank. Collective.
void broadcastBytes(Communicator &comm, void *data, int64_t bytes,
                    int root = 0);

/// The timeout a communicator starts with: the train settings' default
/// (gnnrt/train/TrainSettings.def), which the train block and the trainer's
/// flag override.
constexpr double kDefaultCommTimeoutSeconds = 60;

/// The one-rank communicator: every collective is the identity.
class SerialCommunicator : public Communicator {
public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void allReduceSum(float *, int64_t) override {}
  void allReduceSum(double *, int64_t) override {}
  void allReduceSum(int64_t *, int64_t) override {}
  void broadcast(float *, int64_t, int) override {}
  void allToAllV(const void *send, const std::vector<int64_t> &sendOffsets,
                 void *recv, const std::vector<int64_t> &recvOffsets) override;
  void sendRecv(const void *send, int64_t sendBytes, int, void *recv,
                int64_t, int) override;
  std::unique_ptr<PendingTransfer> startSendRecv(const void *send,
                                                 int64_t sendBytes, int dest,
                                                 void *recv, int64_t recvBytes,
                                                 int source) override;
  std::unique_ptr<PendingTransfer>
  startAllToAllV(const void *send, const std::vector<int64_t> &sendOffsets,
                 void *recv, const std::vector<int64_t> &recvOffsets) override;
  void barrier() override {}
  /// A message to itself: kept until received.
  std::unique_ptr<PendingTransfer> startSend(const void *data, int64_t bytes,
                                             int dest, int tag) override;
  std::vector<char> receive(int source, int tag) override;
  std::unique_ptr<Communicator> split(int, int) override {
    return std::make_unique<SerialCommunicator>();
  }
  std::unique_ptr<Communicator> splitByNode() override {
    return std::make_unique<SerialCommunicator>();
  }

private:
  std::vector<std::pair<int, std::vector<char>>> mailbox; ///< (tag, bytes)
};

/// Whether this process was started by an MPI launcher (mpirun sets the
/// rank variables); a plain run never touches MPI.
bool launchedUnderMpi();

/// The communicator of this launch: MPI_COMM_WORLD under an MPI launcher,
/// SerialCommunicator otherwise. Throws CommError when Slurm's variables
/// (SLURM_PROCID with SLURM_STEP_NUM_TASKS or SLURM_NTASKS) describe tasks
/// that the MPI world does not match, e.g. copies started by hand with
/// SLURM_PROCID=0/1 or `srun` without PMIx wiring: each would otherwise
/// train the whole graph alone. Under mpirun (which sets
/// OMPI_COMM_WORLD_SIZE) Slurm's counts describe mpirun's daemons, not the
/// ranks, and are not checked. GNNRT_IGNORE_SLURM=1 turns the check off.
std::unique_ptr<Communicator> makeCommunicator();

/// MPI_COMM_WORLD. Initializes MPI on construction (errors returned, not
/// fatal, so that they become CommError) and finalizes it on destruction.
std::unique_ptr<Communicator> makeMpiCommunicator();

/// Ends every rank's process after an error on one: MPI_Abort under MPI,
/// so that no rank waits forever in a collective.
void abortAllRanks(Communicator &comm, int exitCode);

} // namespace gnnrt

#endif // GNNRT_COMM_COMMUNICATOR_H
