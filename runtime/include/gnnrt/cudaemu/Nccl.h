//===- Nccl.h - An MPI stand-in for NCCL ------------------------*- C++ -*-===//
//
// The part of nccl.h that gnnrt's device communicator uses
// (gnnrt/comm/NcclCommunicator.h), with NCCL's names, values and
// signatures, implemented over MPI so that the same communicator code runs
// in CI without a GPU: emulated device memory is host memory, so MPI moves
// it directly. Every ranks' process must have initialized MPI (the trainer's
// MpiCommunicator did) before ncclCommInitRank.
//
// How it maps: the unique id carries the world rank of the rank that made
// it and a number unique to that rank; ncclCommInitRank gathers the
// members' world ranks at that root over MPI_COMM_WORLD (tags above 30000,
// which gnnrt's MPI communicator never uses), and the members create an MPI
// communicator of their own (MPI_Comm_create_group, collective only over
// them). A call is queued on its stream, as NCCL's kernels are: its
// non-blocking MPI operation (MPI_Iallreduce, MPI_Ireduce, MPI_Ibcast; the
// ncclSend/ncclRecv between ncclGroupStart and ncclGroupEnd posted
// together) starts once the stream's earlier work is done, and the stream
// and the events recorded after it are done once it completes (advanced by
// cudaStreamQuery/cudaEventQuery, waited for by the synchronizing calls).
// So a collective whose peer stopped leaves its stream unfinished, as on a
// device: a caller that polls cudaEventQuery can give up, and
// ncclCommAbort then ends the communicator's work.
// ncclCommGetAsyncError reports the first MPI failure of its work.
//
// Not modelled: NCCL's own reduction order (MPI's is used), its own
// timeouts and error kinds, and CUDA graphs.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_CUDAEMU_NCCL_H
#define GNNRT_CUDAEMU_NCCL_H

#include "gnnrt/cudaemu/RuntimeApi.h"

#include <cstddef>

#define NCCL_MAJOR 2
#define NCCL_MINOR 0
#define NCCL_PATCH 0
#define NCCL_UNIQUE_ID_BYTES 128

typedef struct ncclComm *ncclComm_t;
typedef struct {
  char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7
} ncclResult_t;

typedef enum {
  ncclInt8 = 0, ncclChar = 0,
  ncclUint8 = 1,
  ncclInt32 = 2, ncclInt = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6, ncclHalf = 6,
  ncclFloat32 = 7, ncclFloat = 7,
  ncclFloat64 = 8, ncclDouble = 8
} ncclDataType_t;

typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3 } ncclRedOp_t;

ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId);
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id,
                              int rank);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
ncclResult_t ncclCommAbort(ncclComm_t comm);
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError);
ncclResult_t ncclCommCount(const ncclComm_t comm, int *count);
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank);
const char *ncclGetErrorString(ncclResult_t result);

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
                        ncclDataType_t datatype, ncclRedOp_t op, int root,
                        ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm,
                           cudaStream_t stream);
ncclResult_t ncclSend(const void *sendbuff, size_t count,
                      ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream);
ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype,
                      int peer, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclGroupStart();
ncclResult_t ncclGroupEnd();

#endif // GNNRT_CUDAEMU_NCCL_H
