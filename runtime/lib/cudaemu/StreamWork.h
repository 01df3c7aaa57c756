//===- StreamWork.h - Work a stream completes later -------------*- C++ -*-===//
//
// Internal to lib/cudaemu. Launches and copies complete before their call
// returns, but the NCCL stand-in's collectives wait for other ranks, as a
// device's NCCL kernels do: they are queued on their stream as work that
// completes later. A stream is done, and an event recorded on it fires,
// only once the work queued before is done; cudaStreamQuery and
// cudaEventQuery advance the work and answer cudaErrorNotReady until then,
// and the synchronizing calls wait for it (forever, as on a device, if a
// peer never comes: a caller that must not hang polls the queries).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_CUDAEMU_STREAMWORK_H
#define GNNRT_LIB_CUDAEMU_STREAMWORK_H

#include "gnnrt/cudaemu/RuntimeApi.h"

#include <functional>

namespace gnnrt::cudaemu {

/// Queues `progress` on `stream` behind its earlier work: it is called
/// (from any thread that queries or waits on the stream) only once that
/// work is done, and again until it returns true (done).
void enqueueStreamWork(cudaStream_t stream, std::function<bool()> progress);

} // namespace gnnrt::cudaemu

#endif // GNNRT_LIB_CUDAEMU_STREAMWORK_H
