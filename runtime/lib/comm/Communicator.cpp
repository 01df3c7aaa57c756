//===- Communicator.cpp - MPI and serial communicators --------------------===//
//
// MPI stays inside this file: generated code and the rest of gnnrt see only
// the Communicator interface. Counts above 2^31 are split into chunks, since
// MPI's counts are int.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/comm/Communicator.h"

// The C API only: no C++ bindings to link.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace gnnrt {

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

bool launchedUnderMpi() {
  for (const char *var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                          "MPI_LOCALNRANKS"})
    if (std::getenv(var))
      return true;
  return false;
}

namespace {

class MpiCommunicator : public Communicator {
public:
  MpiCommunicator() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int provided;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &myRank);
    MPI_Comm_size(MPI_COMM_WORLD, &mySize);
  }
  ~MpiCommunicator() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
      MPI_Finalize();
  }

  int rank() const override { return myRank; }
  int size() const override { return mySize; }

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
      check(MPI_Bcast(data + done, count, MPI_FLOAT, root, MPI_COMM_WORLD),
            "broadcast");
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
    Layout l = layout(sendOffsets, recvOffsets);
    check(MPI_Alltoallv(send, l.sc.data(), l.sd.data(), MPI_BYTE, recv,
                        l.rc.data(), l.rd.data(), MPI_BYTE, MPI_COMM_WORLD),
          "all_to_all");
  }

  std::unique_ptr<PendingTransfer>
  startAllToAllV(const void *send, const std::vector<int64_t> &sendOffsets,
                 void *recv,
                 const std::vector<int64_t> &recvOffsets) override {
    auto transfer = std::make_unique<MpiTransfer>(*this);
    // The counts must outlive the request.
    transfer->layout = layout(sendOffsets, recvOffsets);
    Layout &l = transfer->layout;
    check(MPI_Ialltoallv(send, l.sc.data(), l.sd.data(), MPI_BYTE, recv,
                         l.rc.data(), l.rd.data(), MPI_BYTE, MPI_COMM_WORLD,
                         &transfer->requests[0]),
          "all_to_all");
    return transfer;
  }

  void sendRecv(const void *send, int64_t sendBytes, int dest, void *recv,
                int64_t recvBytes, int source) override {
    if (sendBytes > INT_MAX || recvBytes > INT_MAX)
      throw CommError("a point-to-point message of more than 2 GiB is not "
                      "supported");
    check(MPI_Sendrecv(send, int(sendBytes), MPI_BYTE, peer(dest), 0, recv,
                       int(recvBytes), MPI_BYTE, peer(source), 0,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "send_recv");
  }

  std::unique_ptr<PendingTransfer> startSendRecv(const void *send,
                                                 int64_t sendBytes, int dest,
                                                 void *recv, int64_t recvBytes,
                                                 int source) override {
    if (sendBytes > INT_MAX || recvBytes > INT_MAX)
      throw CommError("a point-to-point message of more than 2 GiB is not "
                      "supported");
    auto transfer = std::make_unique<MpiTransfer>(*this);
    check(MPI_Irecv(recv, int(recvBytes), MPI_BYTE, peer(source), 1,
                    MPI_COMM_WORLD, &transfer->requests[0]),
          "irecv");
    check(MPI_Isend(send, int(sendBytes), MPI_BYTE, peer(dest), 1,
                    MPI_COMM_WORLD, &transfer->requests[1]),
          "isend");
    return transfer;
  }

  void barrier() override { check(MPI_Barrier(MPI_COMM_WORLD), "barrier"); }

  /// kNoPeer as MPI's null process (the transfer completes at once).
  static int peer(int rank) { return rank < 0 ? MPI_PROC_NULL : rank; }

private:
  void reduce(void *data, int64_t n, MPI_Datatype type, size_t bytes) {
    char *p = static_cast<char *>(data);
    for (int64_t done = 0; done < n;) {
      const int count = int(std::min<int64_t>(n - done, INT_MAX / 2));
      check(MPI_Allreduce(MPI_IN_PLACE, p + done * int64_t(bytes), count, type,
                          MPI_SUM, MPI_COMM_WORLD),
            "all_reduce");
      done += count;
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

  int myRank = 0, mySize = 1;

  struct MpiTransfer : PendingTransfer {
    explicit MpiTransfer(MpiCommunicator &comm) : comm(comm) {}
    ~MpiTransfer() override {
      if (!done)
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    }
    void wait() override {
      done = true;
      comm.check(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), "wait");
    }
    MpiCommunicator &comm;
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    Layout layout;
    bool done = false;
  };
};

} // namespace

std::unique_ptr<Communicator> makeMpiCommunicator() {
  return std::make_unique<MpiCommunicator>();
}

void abortAllRanks(Communicator &comm, int exitCode) {
  if (comm.size() > 1)
    MPI_Abort(MPI_COMM_WORLD, exitCode);
}

} // namespace gnnrt
