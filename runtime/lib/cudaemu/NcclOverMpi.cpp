//===- NcclOverMpi.cpp - NCCL's calls served by MPI -----------------------===//
//
// See gnnrt/cudaemu/Nccl.h. The only file of the emulation that includes
// mpi.h. A call starts its MPI operation as work on its stream
// (StreamWork.h), non-blocking, once the stream's earlier work is done, and
// completes when the stream is queried or waited on: like NCCL's kernels,
// a collective whose peers never come leaves its stream unfinished, and
// ncclCommAbort ends it.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/cudaemu/Nccl.h"

#include "StreamWork.h"

// The C API only: no C++ bindings to link.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

struct ncclComm {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  /// ncclCommAbort was called: its work ends without completing.
  bool aborted = false;
  /// The first failure of its work (ncclCommGetAsyncError).
  ncclResult_t asyncError = ncclSuccess;
};

namespace {

/// What a unique id holds: who made it, and which of its ids it is.
struct IdContents {
  int worldRank = 0;
  int serial = 0;
};

/// Tags of the start-up exchange on MPI_COMM_WORLD: above any tag gnnrt's
/// MPI communicator uses, one per id of the creating rank.
constexpr int kFirstInitTag = 30000;
constexpr int kInitTags = 2000;

/// A grouped point-to-point call, posted at ncclGroupEnd.
struct Pending {
  bool send = false;
  void *buffer = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_BYTE;
  int peer = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
};

/// This thread's open groups (NCCL's groups are per thread).
thread_local int groupDepth = 0;
thread_local std::vector<Pending> grouped;

ncclResult_t failed(const char *call, const char *why) {
  std::fprintf(stderr, "nccl (MPI stand-in): %s: %s\n", call, why);
  return ncclInvalidArgument;
}

ncclResult_t mpiResult(int code, const char *call) {
  if (code == MPI_SUCCESS)
    return ncclSuccess;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  std::fprintf(stderr, "nccl (MPI stand-in): %s: %.*s\n", call, length, text);
  return ncclSystemError;
}

/// Queues on `stream` the work of one call on `comm`: `start` posts its
/// non-blocking MPI operations (adding their requests) once the stream's
/// earlier work is done; the work is done when they all complete, or at
/// once when the communicator is aborted. A failure becomes the
/// communicator's asynchronous error.
ncclResult_t enqueue(
    ncclComm_t comm, cudaStream_t stream, const char *call,
    std::function<int(std::vector<MPI_Request> &)> start) {
  struct State {
    bool started = false;
    std::vector<MPI_Request> requests;
  };
  auto state = std::make_shared<State>();
  gnnrt::cudaemu::enqueueStreamWork(
      stream, [comm, call, state, start = std::move(start)] {
        if (comm->aborted || comm->asyncError != ncclSuccess)
          return true;
        if (!state->started) {
          state->started = true;
          if (const int code = start(state->requests); code != MPI_SUCCESS) {
            comm->asyncError = mpiResult(code, call);
            return true;
          }
        }
        int done = 0;
        if (const int code =
                MPI_Testall(int(state->requests.size()),
                            state->requests.data(), &done, MPI_STATUSES_IGNORE);
            code != MPI_SUCCESS) {
          comm->asyncError = mpiResult(code, call);
          return true;
        }
        return done != 0;
      });
  return ncclSuccess;
}

/// MPI's type for `type` (null for the types the stand-in lacks).
MPI_Datatype mpiType(ncclDataType_t type) {
  switch (type) {
  case ncclInt8:
    return MPI_INT8_T;
  case ncclUint8:
    return MPI_UINT8_T;
  case ncclInt32:
    return MPI_INT32_T;
  case ncclUint32:
    return MPI_UINT32_T;
  case ncclInt64:
    return MPI_INT64_T;
  case ncclUint64:
    return MPI_UINT64_T;
  case ncclFloat32:
    return MPI_FLOAT;
  case ncclFloat64:
    return MPI_DOUBLE;
  default:
    return MPI_DATATYPE_NULL;
  }
}

MPI_Op mpiOp(ncclRedOp_t op) {
  switch (op) {
  case ncclSum:
    return MPI_SUM;
  case ncclProd:
    return MPI_PROD;
  case ncclMax:
    return MPI_MAX;
  case ncclMin:
    return MPI_MIN;
  }
  return MPI_OP_NULL;
}

int typeBytes(MPI_Datatype type) {
  int bytes = 0;
  MPI_Type_size(type, &bytes);
  return bytes;
}

/// Checks a call's communicator, type and count; sets `type` and `count`.
ncclResult_t checkArguments(const char *call, ncclComm_t comm,
                            ncclDataType_t datatype, size_t n,
                            MPI_Datatype &type, int &count) {
  if (!comm)
    return failed(call, "null communicator");
  type = mpiType(datatype);
  if (type == MPI_DATATYPE_NULL)
    return failed(call, "data type not supported by the MPI stand-in");
  if (n > size_t(INT_MAX))
    return failed(call, "more than 2^31-1 elements in one call");
  count = int(n);
  return ncclSuccess;
}

} // namespace

ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId) {
  static int serial = 0;
  if (!uniqueId)
    return failed("ncclGetUniqueId", "null id");
  IdContents id;
  MPI_Comm_rank(MPI_COMM_WORLD, &id.worldRank);
  id.serial = serial++ % kInitTags;
  std::memset(uniqueId, 0, sizeof(*uniqueId));
  std::memcpy(uniqueId->internal, &id, sizeof(id));
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id,
                              int rank) {
  if (!comm || nranks < 1 || rank < 0 || rank >= nranks)
    return failed("ncclCommInitRank", "bad communicator, size or rank");
  IdContents contents;
  std::memcpy(&contents, id.internal, sizeof(contents));
  const int tag = kFirstInitTag + contents.serial;
  int worldRank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
  // The id's maker learns every member's world rank, in NCCL rank order,
  // and tells them.
  std::vector<int> members(size_t(nranks), -1);
  if (worldRank == contents.worldRank) {
    members[size_t(rank)] = worldRank;
    for (int i = 1; i < nranks; ++i) {
      int pair[2];
      MPI_Status status;
      if (ncclResult_t r = mpiResult(MPI_Recv(pair, 2, MPI_INT, MPI_ANY_SOURCE,
                                              tag, MPI_COMM_WORLD, &status),
                                     "ncclCommInitRank");
          r != ncclSuccess)
        return r;
      if (pair[0] < 0 || pair[0] >= nranks || members[size_t(pair[0])] >= 0)
        return failed("ncclCommInitRank", "two members claim one rank");
      members[size_t(pair[0])] = pair[1];
    }
    for (int member : members)
      if (member != worldRank)
        MPI_Send(members.data(), nranks, MPI_INT, member, tag, MPI_COMM_WORLD);
  } else {
    const int pair[2] = {rank, worldRank};
    MPI_Send(pair, 2, MPI_INT, contents.worldRank, tag, MPI_COMM_WORLD);
    MPI_Recv(members.data(), nranks, MPI_INT, contents.worldRank, tag,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Group world, group;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, nranks, members.data(), &group);
  auto *made = new ncclComm;
  const int code =
      MPI_Comm_create_group(MPI_COMM_WORLD, group, tag, &made->comm);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  if (code != MPI_SUCCESS) {
    delete made;
    return mpiResult(code, "ncclCommInitRank");
  }
  MPI_Comm_set_errhandler(made->comm, MPI_ERRORS_RETURN);
  made->rank = rank;
  made->size = nranks;
  *comm = made;
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (!comm)
    return ncclSuccess;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm->comm != MPI_COMM_NULL)
    MPI_Comm_free(&comm->comm);
  delete comm;
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (!comm)
    return ncclSuccess;
  // Its work in flight ends now. The MPI requests stay posted and the
  // object stays (the work still refers to it): the run is ending.
  comm->aborted = true;
  return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError) {
  if (!comm || !asyncError)
    return failed("ncclCommGetAsyncError", "null argument");
  *asyncError = comm->asyncError;
  return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count) {
  if (!comm || !count)
    return failed("ncclCommCount", "null argument");
  *count = comm->size;
  return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank) {
  if (!comm || !rank)
    return failed("ncclCommUserRank", "null argument");
  *rank = comm->rank;
  return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t result) {
  switch (result) {
  case ncclSuccess:
    return "no error";
  case ncclSystemError:
    return "unhandled system error (the MPI stand-in's MPI call failed)";
  case ncclInvalidArgument:
    return "invalid argument";
  case ncclInvalidUsage:
    return "invalid usage";
  default:
    return "internal error";
  }
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream) {
  MPI_Datatype type;
  int n = 0;
  if (ncclResult_t r =
          checkArguments("ncclAllReduce", comm, datatype, count, type, n);
      r != ncclSuccess)
    return r;
  const void *send = sendbuff == recvbuff ? MPI_IN_PLACE : sendbuff;
  return enqueue(comm, stream, "ncclAllReduce",
                 [=](std::vector<MPI_Request> &requests) {
                   requests.emplace_back();
                   return MPI_Iallreduce(send, recvbuff, n, type, mpiOp(op),
                                         comm->comm, &requests.back());
                 });
}

ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
                        ncclDataType_t datatype, ncclRedOp_t op, int root,
                        ncclComm_t comm, cudaStream_t stream) {
  MPI_Datatype type;
  int n = 0;
  if (ncclResult_t r =
          checkArguments("ncclReduce", comm, datatype, count, type, n);
      r != ncclSuccess)
    return r;
  const bool inPlace = comm->rank == root && sendbuff == recvbuff;
  const void *send = inPlace ? MPI_IN_PLACE : sendbuff;
  return enqueue(comm, stream, "ncclReduce",
                 [=](std::vector<MPI_Request> &requests) {
                   requests.emplace_back();
                   return MPI_Ireduce(send, recvbuff, n, type, mpiOp(op), root,
                                      comm->comm, &requests.back());
                 });
}

ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm,
                           cudaStream_t stream) {
  MPI_Datatype type;
  int n = 0;
  if (ncclResult_t r =
          checkArguments("ncclBroadcast", comm, datatype, count, type, n);
      r != ncclSuccess)
    return r;
  return enqueue(comm, stream, "ncclBroadcast",
                 [=](std::vector<MPI_Request> &requests) {
                   if (comm->rank == root && sendbuff != recvbuff)
                     std::memmove(recvbuff, sendbuff,
                                  count * size_t(typeBytes(type)));
                   requests.emplace_back();
                   return MPI_Ibcast(recvbuff, n, type, root, comm->comm,
                                     &requests.back());
                 });
}

ncclResult_t ncclGroupStart() {
  ++groupDepth;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd() {
  if (groupDepth == 0)
    return failed("ncclGroupEnd", "no group is open");
  if (--groupDepth > 0)
    return ncclSuccess;
  // Every call of the group at once, so that a rank's sends and receives
  // never wait for each other; the group is one piece of work on the first
  // call's stream.
  std::vector<Pending> calls;
  calls.swap(grouped);
  if (calls.empty())
    return ncclSuccess;
  return enqueue(calls.front().comm, calls.front().stream, "ncclGroupEnd",
                 [calls](std::vector<MPI_Request> &requests) {
                   for (const Pending &c : calls) {
                     requests.emplace_back();
                     const int code =
                         c.send ? MPI_Isend(c.buffer, c.count, c.type, c.peer,
                                            0, c.comm->comm, &requests.back())
                                : MPI_Irecv(c.buffer, c.count, c.type, c.peer,
                                            0, c.comm->comm, &requests.back());
                     if (code != MPI_SUCCESS)
                       return code;
                   }
                   return int(MPI_SUCCESS);
                 });
}

namespace {

ncclResult_t pointToPoint(bool send, void *buffer, size_t count,
                          ncclDataType_t datatype, int peer, ncclComm_t comm,
                          cudaStream_t stream) {
  const char *call = send ? "ncclSend" : "ncclRecv";
  MPI_Datatype type;
  int n = 0;
  if (ncclResult_t r = checkArguments(call, comm, datatype, count, type, n);
      r != ncclSuccess)
    return r;
  if (peer < 0 || peer >= comm->size)
    return failed(call, "peer out of range");
  // Outside a group a call is a group of its own.
  const bool alone = groupDepth == 0;
  if (alone)
    ncclGroupStart();
  grouped.push_back({send, buffer, n, type, peer, comm, stream});
  return alone ? ncclGroupEnd() : ncclSuccess;
}

} // namespace

ncclResult_t ncclSend(const void *sendbuff, size_t count,
                      ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  return pointToPoint(true, const_cast<void *>(sendbuff), count, datatype,
                      peer, comm, stream);
}

ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype,
                      int peer, ncclComm_t comm, cudaStream_t stream) {
  return pointToPoint(false, recvbuff, count, datatype, peer, comm, stream);
}
