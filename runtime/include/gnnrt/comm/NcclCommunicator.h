//===- NcclCommunicator.h - collectives between GPUs ------------*- C++ -*-===//
//
// The Communicator of a trainer whose ranks each drive one CUDA device:
// all-reduce, broadcast, all-to-all-v and send/receive run as NCCL calls on
// device buffers, on a stream of the communicator's own that waits (through
// an event) for the work queued on the calling thread's compute stream, so
// a collective reads what the kernels before it wrote. A buffer in host
// memory (the sampler's requests, the loss) is staged through device
// memory, so the whole trainer can talk over this communicator. Barriers,
// tagged messages and splits are the MPI communicator's it was built on.
// Its waits are that communicator's bounded ones (Communicator::waitUntil):
// they poll the collective's event and ncclCommGetAsyncError while
// answering the other ranks' liveness checks, and after the timeout abort
// the NCCL communicators (ncclCommAbort ends their kernels) and throw
// CommError naming the rank that went silent.
//
// MPI bootstraps NCCL: rank 0's ncclGetUniqueId goes to the others over the
// MPI communicator. When the ranks share nodes and there are several nodes
// (Communicator::splitByNode), all-reduce is hierarchical: a reduce to each
// node's first rank, an all-reduce among those, a broadcast within each
// node, so each node's data crosses the network once instead of once per
// rank.
//
// Built with the CUDA libraries only: under nvcc against the toolkit's NCCL
// (without NCCL, makeNcclCommunicator throws), under the emulation against
// its MPI stand-in (gnnrt/cudaemu/Nccl.h).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_COMM_NCCLCOMMUNICATOR_H
#define GNNRT_COMM_NCCLCOMMUNICATOR_H

#include "gnnrt/comm/Communicator.h"

#include <memory>
#include <string>

namespace gnnrt {

/// A device communicator over `host`'s ranks (collective over them; `host`
/// must outlive it). Throws DeviceError when the build has no NCCL or NCCL
/// fails to start.
std::unique_ptr<Communicator> makeNcclCommunicator(Communicator &host);

/// One line on how `comm` (made by makeNcclCommunicator) reduces: its
/// ranks, nodes, and whether its all-reduce is hierarchical.
std::string describeNcclCommunicator(const Communicator &comm);

} // namespace gnnrt

#endif // GNNRT_COMM_NCCLCOMMUNICATOR_H
