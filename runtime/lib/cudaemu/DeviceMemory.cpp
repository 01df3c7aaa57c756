//===- DeviceMemory.cpp - cudaMalloc, cudaMemcpy, cudaMemset --------------===//
//
// Device memory is host memory, allocated at its exact size (so
// AddressSanitizer puts a redzone right after it) on CUDA's 256-byte
// alignment, and recorded in a table so that every copy and memset can check
// that the device side of it lies inside one live allocation and the host
// side does not: the mistakes a device reports as an illegal address, or
// not at all, are a located cudaErrorInvalidValue here.
//
//===----------------------------------------------------------------------===//

#include "Errors.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unistd.h>

namespace gnnrt::cudaemu {

namespace {

constexpr size_t kDeviceAlignment = 256;

struct Allocations {
  std::mutex mutex;
  /// Start address -> size of each live cudaMalloc allocation.
  std::map<uintptr_t, size_t> device;
  /// Each live cudaHostAlloc allocation and its flags.
  std::map<void *, unsigned int> pinnedHost;
  long long count = 0;
  size_t bytes = 0;
};

Allocations &allocations() {
  static Allocations *table = new Allocations; // outlives static destructors
  return *table;
}

/// The allocation holding address p, if any (caller holds the mutex).
const std::pair<const uintptr_t, size_t> *findAllocation(Allocations &table,
                                                         const void *p) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  auto it = table.device.upper_bound(at);
  if (it == table.device.begin())
    return nullptr;
  --it;
  return at < it->first + std::max<size_t>(it->second, 1) ? &*it : nullptr;
}

const char *kindName(cudaMemcpyKind kind) {
  switch (kind) {
  case cudaMemcpyHostToHost:
    return "HostToHost";
  case cudaMemcpyHostToDevice:
    return "HostToDevice";
  case cudaMemcpyDeviceToHost:
    return "DeviceToHost";
  case cudaMemcpyDeviceToDevice:
    return "DeviceToDevice";
  case cudaMemcpyDefault:
    return "Default";
  }
  return "?";
}

/// "" if [p, p + bytes) is device memory exactly when `device` says it
/// should be; otherwise what is wrong with it, for `role` of `call`.
std::string checkSide(const void *p, size_t bytes, bool device,
                      const char *role) {
  Allocations &table = allocations();
  std::lock_guard<std::mutex> lock(table.mutex);
  const auto *allocation = findAllocation(table, p);
  const std::string range =
      "[" + addressText(p) + ", +" + std::to_string(bytes) + " bytes)";
  if (!device) {
    if (allocation)
      return std::string("the ") + role + " " + range +
             " is device memory, not host memory";
    return "";
  }
  if (!allocation)
    return std::string("the ") + role + " " + range +
           " is not device memory (no cudaMalloc allocation holds it)";
  const uintptr_t end = reinterpret_cast<uintptr_t>(p) + bytes;
  const uintptr_t allocationEnd = allocation->first + allocation->second;
  if (end > allocationEnd)
    return std::string("the ") + role + " " + range + " runs " +
           std::to_string(end - allocationEnd) + " bytes past the end of the " +
           std::to_string(allocation->second) + "-byte allocation at " +
           addressText(reinterpret_cast<const void *>(allocation->first));
  return "";
}

cudaError_t copy(const char *call, void *dst, const void *src, size_t count,
                 cudaMemcpyKind kind, cudaStream_t stream) {
  if (stickyError())
    return stickyError();
  if (!isValidStream(stream))
    return fail(cudaErrorInvalidResourceHandle,
                std::string(call) + ": the stream was destroyed or never "
                                    "created");
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    return fail(cudaErrorInvalidMemcpyDirection, std::string(call) +
                                                     ": unknown copy kind " +
                                                     std::to_string(int(kind)));
  if (count == 0)
    return cudaSuccess;
  if (kind != cudaMemcpyDefault) {
    const bool dstDevice =
        kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    const bool srcDevice =
        kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    std::string problem = checkSide(dst, count, dstDevice, "destination");
    if (problem.empty())
      problem = checkSide(src, count, srcDevice, "source");
    if (!problem.empty())
      return fail(cudaErrorInvalidValue,
                  std::string(call) + "(" + kindName(kind) + ", " +
                      std::to_string(count) + " bytes): " + problem);
  }
  std::memcpy(dst, src, count);
  return cudaSuccess;
}

cudaError_t set(const char *call, void *p, int value, size_t count,
                cudaStream_t stream) {
  if (stickyError())
    return stickyError();
  if (!isValidStream(stream))
    return fail(cudaErrorInvalidResourceHandle,
                std::string(call) + ": the stream was destroyed or never "
                                    "created");
  if (count == 0)
    return cudaSuccess;
  const std::string problem = checkSide(p, count, true, "destination");
  if (!problem.empty())
    return fail(cudaErrorInvalidValue, std::string(call) + ": " + problem);
  std::memset(p, value, count);
  return cudaSuccess;
}

} // namespace

bool isDeviceRange(const void *p, size_t bytes) {
  return checkSide(p, bytes, true, "range").empty();
}

long long deviceAllocations() {
  Allocations &table = allocations();
  std::lock_guard<std::mutex> lock(table.mutex);
  return table.count;
}

} // namespace gnnrt::cudaemu

using namespace gnnrt::cudaemu;

cudaError_t cudaMalloc(void **devPtr, size_t size) {
  if (stickyError())
    return stickyError();
  if (!devPtr)
    return fail(cudaErrorInvalidValue, "cudaMalloc: null result pointer");
  *devPtr = nullptr;
  if (size == 0)
    return cudaSuccess;
  void *p = nullptr;
  if (posix_memalign(&p, kDeviceAlignment, size) != 0)
    return fail(cudaErrorMemoryAllocation,
                "cudaMalloc: no memory for " + std::to_string(size) + " bytes");
  Allocations &table = allocations();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.device[reinterpret_cast<uintptr_t>(p)] = size;
  ++table.count;
  table.bytes += size;
  *devPtr = p;
  return cudaSuccess;
}

cudaError_t cudaFree(void *devPtr) {
  if (!devPtr)
    return cudaSuccess;
  {
    Allocations &table = allocations();
    std::lock_guard<std::mutex> lock(table.mutex);
    const auto it = table.device.find(reinterpret_cast<uintptr_t>(devPtr));
    if (it == table.device.end())
      return fail(cudaErrorInvalidValue,
                  "cudaFree: " + addressText(devPtr) +
                      " is not a pointer cudaMalloc returned (or was freed)");
    table.bytes -= it->second;
    table.device.erase(it);
  }
  std::free(devPtr);
  return stickyError();
}

cudaError_t cudaMallocHost(void **ptr, size_t size) {
  return cudaHostAlloc(ptr, size, cudaHostAllocDefault);
}

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags) {
  if (stickyError())
    return stickyError();
  if (!ptr)
    return fail(cudaErrorInvalidValue, "cudaHostAlloc: null result pointer");
  void *p = nullptr;
  if (posix_memalign(&p, kDeviceAlignment, std::max<size_t>(size, 1)) != 0)
    return fail(cudaErrorMemoryAllocation, "cudaHostAlloc: no memory for " +
                                               std::to_string(size) + " bytes");
  Allocations &table = allocations();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.pinnedHost[p] = flags;
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost,
                                     unsigned int flags) {
  if (stickyError())
    return stickyError();
  if (!pDevice)
    return fail(cudaErrorInvalidValue,
                "cudaHostGetDevicePointer: null result pointer");
  if (flags != 0)
    return fail(cudaErrorInvalidValue,
                "cudaHostGetDevicePointer: flags must be 0, not " +
                    std::to_string(flags));
  Allocations &table = allocations();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto it = table.pinnedHost.find(pHost);
  if (it == table.pinnedHost.end() || !(it->second & cudaHostAllocMapped))
    return fail(cudaErrorInvalidValue,
                "cudaHostGetDevicePointer: " + addressText(pHost) +
                    (it == table.pinnedHost.end()
                         ? " is not a pointer cudaHostAlloc returned"
                         : " was allocated without cudaHostAllocMapped"));
  *pDevice = pHost;
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void *ptr) {
  if (!ptr)
    return cudaSuccess;
  {
    Allocations &table = allocations();
    std::lock_guard<std::mutex> lock(table.mutex);
    if (!table.pinnedHost.erase(ptr))
      return fail(cudaErrorInvalidValue,
                  "cudaFreeHost: " + addressText(ptr) +
                      " is not a pointer cudaMallocHost returned");
  }
  std::free(ptr);
  return stickyError();
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                       cudaMemcpyKind kind) {
  return copy("cudaMemcpy", dst, src, count, kind, 0);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                            cudaMemcpyKind kind, cudaStream_t stream) {
  return copy("cudaMemcpyAsync", dst, src, count, kind, stream);
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
  return set("cudaMemset", devPtr, value, count, 0);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
                            cudaStream_t stream) {
  return set("cudaMemsetAsync", devPtr, value, count, stream);
}

cudaError_t cudaMemGetInfo(size_t *free, size_t *total) {
  if (!free || !total)
    return fail(cudaErrorInvalidValue, "cudaMemGetInfo: null result pointer");
  const size_t physical =
      size_t(sysconf(_SC_PHYS_PAGES)) * size_t(sysconf(_SC_PAGESIZE));
  Allocations &table = allocations();
  std::lock_guard<std::mutex> lock(table.mutex);
  *total = physical;
  *free = physical > table.bytes ? physical - table.bytes : 0;
  return stickyError();
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attributes,
                                     const void *ptr) {
  if (!attributes)
    return fail(cudaErrorInvalidValue,
                "cudaPointerGetAttributes: null result pointer");
  const bool device = ptr && isDeviceRange(ptr, 1);
  attributes->type = device ? cudaMemoryTypeDevice : cudaMemoryTypeUnregistered;
  attributes->device = device ? 0 : -2;
  attributes->devicePointer = device ? const_cast<void *>(ptr) : nullptr;
  attributes->hostPointer = device ? nullptr : const_cast<void *>(ptr);
  return stickyError();
}
