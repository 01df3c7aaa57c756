//===- Streams.cpp - The emulated device, its streams and events ----------===//
//
// One device, number 0. Streams and events are checked handles; since every
// launch and copy completes before its call returns, synchronizing is a
// check of the handle and of the sticky error, and an event records the
// host time at which the work before it was done. The exception is work
// that completes later (StreamWork.h: the NCCL stand-in's collectives),
// counted per stream: an event fires once its stream has completed as
// much work as it had queued when the event was recorded.
//
//===----------------------------------------------------------------------===//

#include "Errors.h"
#include "StreamWork.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <thread>

struct CUstream_st {
  unsigned int flags;
  /// Work that completes later, oldest first; items queued and completed.
  std::deque<std::function<bool()>> work;
  uint64_t queued = 0, completed = 0;
};

struct CUevent_st {
  unsigned int flags;
  bool recorded = false;
  std::chrono::steady_clock::time_point at;
  /// Done once `stream` has completed `target` items (null: at once).
  cudaStream_t stream = nullptr;
  uint64_t target = 0;
};

namespace gnnrt::cudaemu {

namespace {

struct Handles {
  std::mutex mutex;
  std::set<cudaStream_t> streams;
  std::set<cudaEvent_t> events;
};

Handles &handles() {
  static Handles *table = new Handles; // outlives static destructors
  return *table;
}

bool isValidEvent(cudaEvent_t event) {
  Handles &table = handles();
  std::lock_guard<std::mutex> lock(table.mutex);
  return table.events.count(event) != 0;
}

cudaError_t badStream(const char *call) {
  return fail(cudaErrorInvalidResourceHandle,
              std::string(call) +
                  ": the stream was destroyed or never created");
}

cudaError_t badEvent(const char *call) {
  return fail(cudaErrorInvalidResourceHandle,
              std::string(call) + ": the event was destroyed or never created");
}

/// The default stream's queue (the null handle and its aliases).
CUstream_st &defaultStream() {
  static CUstream_st *stream = new CUstream_st{0}; // outlives destructors
  return *stream;
}

cudaStream_t resolve(cudaStream_t stream) {
  return stream == nullptr || stream == cudaStreamLegacy ||
                 stream == cudaStreamPerThread
             ? &defaultStream()
             : stream;
}

/// Guards every stream's queue and runs their work, one pass at a time
/// (recursive: waiting for another stream's event advances that stream
/// from inside a pass). A pass is short (MPI_Test calls), so a thread that
/// waits sleeps between passes, outside it.
std::recursive_mutex workMutex;

/// Advances `stream`'s work as far as it goes now; returns how many items
/// it has completed.
uint64_t advance(cudaStream_t stream) {
  std::lock_guard<std::recursive_mutex> lock(workMutex);
  while (!stream->work.empty()) {
    if (!stream->work.front()())
      break;
    stream->work.pop_front();
    ++stream->completed;
  }
  return stream->completed;
}

/// Waits until `stream` has completed `target` items.
void waitForWork(cudaStream_t stream, uint64_t target) {
  std::chrono::microseconds sleep(1);
  while (advance(stream) < target) {
    std::this_thread::sleep_for(sleep);
    sleep = std::min(sleep * 2, std::chrono::microseconds(1000));
  }
}

} // namespace

void enqueueStreamWork(cudaStream_t stream, std::function<bool()> progress) {
  cudaStream_t s = resolve(stream);
  {
    std::lock_guard<std::recursive_mutex> lock(workMutex);
    s->work.push_back(std::move(progress));
    ++s->queued;
  }
  advance(s); // starts it at once when nothing is ahead
}

bool isValidStream(cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamLegacy ||
      stream == cudaStreamPerThread)
    return true;
  Handles &table = handles();
  std::lock_guard<std::mutex> lock(table.mutex);
  return table.streams.count(stream) != 0;
}

} // namespace gnnrt::cudaemu

using namespace gnnrt::cudaemu;

namespace {

/// Devices the emulation reports: $GNNRT_CUDAEMU_DEVICES, else 1. They
/// share one memory; several exist only so that device selection (a rank's
/// node-local pick, --device) can be tested.
int emulatedDevices() {
  static const int count = [] {
    const char *text = std::getenv("GNNRT_CUDAEMU_DEVICES");
    const int n = text ? std::atoi(text) : 1;
    return n > 0 ? n : 1;
  }();
  return count;
}

/// The device this host thread selected, as CUDA's per-thread current one.
thread_local int currentDevice = 0;

} // namespace

cudaError_t cudaGetDeviceCount(int *count) {
  if (!count)
    return fail(cudaErrorInvalidValue, "cudaGetDeviceCount: null pointer");
  *count = emulatedDevices();
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device) {
  if (!device)
    return fail(cudaErrorInvalidValue, "cudaGetDevice: null pointer");
  *device = currentDevice;
  return stickyError();
}

cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= emulatedDevices())
    return fail(cudaErrorInvalidDevice,
                "cudaSetDevice(" + std::to_string(device) +
                    "): the emulation has " +
                    std::to_string(emulatedDevices()) +
                    " device(s) (GNNRT_CUDAEMU_DEVICES)");
  currentDevice = device;
  return stickyError();
}

cudaError_t cudaDeviceSynchronize() { return stickyError(); }

cudaError_t cudaStreamCreate(cudaStream_t *stream) {
  return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream,
                                      unsigned int flags) {
  if (stickyError())
    return stickyError();
  if (!stream)
    return fail(cudaErrorInvalidValue, "cudaStreamCreate: null pointer");
  *stream = new CUstream_st{flags};
  Handles &table = handles();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.streams.insert(*stream);
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  {
    Handles &table = handles();
    std::lock_guard<std::mutex> lock(table.mutex);
    if (!table.streams.erase(stream))
      return badStream("cudaStreamDestroy");
  }
  delete stream;
  return stickyError();
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (!isValidStream(stream))
    return badStream("cudaStreamSynchronize");
  cudaStream_t s = resolve(stream);
  uint64_t target;
  {
    std::lock_guard<std::recursive_mutex> lock(workMutex);
    target = s->queued;
  }
  waitForWork(s, target);
  return stickyError();
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  if (!isValidStream(stream))
    return badStream("cudaStreamQuery");
  cudaStream_t s = resolve(stream);
  const uint64_t done = advance(s);
  std::lock_guard<std::recursive_mutex> lock(workMutex);
  if (done < s->queued)
    return cudaErrorNotReady;
  return stickyError();
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                unsigned int) {
  if (!isValidStream(stream))
    return badStream("cudaStreamWaitEvent");
  if (!isValidEvent(event))
    return badEvent("cudaStreamWaitEvent");
  // Later work on `stream` waits for the event's stream to get as far.
  if (event->stream && advance(event->stream) < event->target) {
    const cudaStream_t other = event->stream;
    const uint64_t target = event->target;
    enqueueStreamWork(stream,
                      [other, target] { return advance(other) >= target; });
  }
  return stickyError();
}

cudaError_t cudaEventCreate(cudaEvent_t *event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
  if (stickyError())
    return stickyError();
  if (!event)
    return fail(cudaErrorInvalidValue, "cudaEventCreate: null pointer");
  *event = new CUevent_st{flags};
  Handles &table = handles();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.events.insert(*event);
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  {
    Handles &table = handles();
    std::lock_guard<std::mutex> lock(table.mutex);
    if (!table.events.erase(event))
      return badEvent("cudaEventDestroy");
  }
  delete event;
  return stickyError();
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (!isValidEvent(event))
    return badEvent("cudaEventRecord");
  if (!isValidStream(stream))
    return badStream("cudaEventRecord");
  event->recorded = true;
  event->at = std::chrono::steady_clock::now();
  cudaStream_t s = resolve(stream);
  {
    std::lock_guard<std::recursive_mutex> lock(workMutex);
    event->stream = s->completed < s->queued ? s : nullptr;
    event->target = s->queued;
  }
  return stickyError();
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (!isValidEvent(event))
    return badEvent("cudaEventSynchronize");
  if (event->stream)
    waitForWork(event->stream, event->target);
  return stickyError();
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (!isValidEvent(event))
    return badEvent("cudaEventQuery");
  if (event->stream && advance(event->stream) < event->target)
    return cudaErrorNotReady;
  return stickyError();
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start,
                                 cudaEvent_t end) {
  if (!ms)
    return fail(cudaErrorInvalidValue, "cudaEventElapsedTime: null pointer");
  if (!isValidEvent(start) || !isValidEvent(end))
    return badEvent("cudaEventElapsedTime");
  if ((start->flags | end->flags) & cudaEventDisableTiming)
    return fail(cudaErrorInvalidResourceHandle,
                "cudaEventElapsedTime: an event was created with "
                "cudaEventDisableTiming");
  if (!start->recorded || !end->recorded)
    return fail(cudaErrorInvalidResourceHandle,
                "cudaEventElapsedTime: an event was never recorded");
  *ms = std::chrono::duration<float, std::milli>(end->at - start->at).count();
  return stickyError();
}
