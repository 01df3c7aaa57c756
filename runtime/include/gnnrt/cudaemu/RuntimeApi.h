//===- RuntimeApi.h - The CUDA runtime API on the host ----------*- C++ -*-===//
//
// The part of cuda_runtime_api.h that gnnrt and generated code use, with the
// real names, values and signatures. Device memory is host memory (so
// AddressSanitizer sees every device allocation at its exact size), tracked
// in a table so that copies check their direction and bounds: a host pointer
// passed as a device one, or a copy past the end of an allocation, is
// cudaErrorInvalidValue with a message, where a device would fault later.
//
// Streams and events are real handles (a destroyed one is
// cudaErrorInvalidResourceHandle), but all work runs synchronously in issue
// order: an asynchronous copy or a launch is complete when the call returns.
// A failed launch is a sticky error as on a device: every later call returns
// it until cudaDeviceReset(). Errors are per host thread, like CUDA's; the
// emulation prints each failure's message to stderr as it happens, and
// cudaGetErrorString adds the last one of that code to the usual text.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_CUDAEMU_RUNTIMEAPI_H
#define GNNRT_CUDAEMU_RUNTIMEAPI_H

#include <cstddef>

enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);
cudaError_t cudaMemGetInfo(size_t *free, size_t *total);

/// Where a pointer lies: device memory (inside a cudaMalloc allocation) or
/// not (cudaMemoryTypeUnregistered, as CUDA 11+ says of plain host memory).
enum cudaMemoryType {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3
};
struct cudaPointerAttributes {
  enum cudaMemoryType type;
  int device;
  void *devicePointer;
  void *hostPointer;
};
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attributes,
                                     const void *ptr);

cudaError_t cudaMalloc(void **devPtr, size_t size);
template <typename T> cudaError_t cudaMalloc(T **devPtr, size_t size) {
  return cudaMalloc(reinterpret_cast<void **>(devPtr), size);
}
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void *ptr);
/// The device's address of pinned host memory allocated with
/// cudaHostAllocMapped (kernels read it zero-copy): the same address here
/// (one memory, as with unified addressing). `pHost` must be the pointer
/// cudaHostAlloc returned, and `flags` 0.
cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost,
                                     unsigned int flags);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                       cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                            cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
                            cudaStream_t stream = 0);

cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                unsigned int flags = 0);

cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

namespace gnnrt::cudaemu {

/// Whether [p, p + bytes) lies inside one live cudaMalloc allocation.
bool isDeviceRange(const void *p, size_t bytes);
/// cudaMalloc calls that succeeded so far on any host thread (tests check
/// that a steady-state step allocates nothing).
long long deviceAllocations();
/// Whether `stream` is the default stream or a live stream (launches check).
bool isValidStream(cudaStream_t stream);
/// Records `error` with `message` as this host thread's last error (sticky
/// for a launch failure), prints the message, and returns `error`.
cudaError_t fail(cudaError_t error, const char *message);

} // namespace gnnrt::cudaemu

#endif // GNNRT_CUDAEMU_RUNTIMEAPI_H
