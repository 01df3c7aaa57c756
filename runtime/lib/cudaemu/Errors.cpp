//===- Errors.cpp - The emulated runtime's error state --------------------===//
//
// Per host thread, as CUDA's: the last error (cudaGetLastError reads and
// resets it), the sticky error of a failed launch (every later call returns
// it until cudaDeviceReset), and the last message of each error code, which
// cudaGetErrorString appends to CUDA's text.
//
//===----------------------------------------------------------------------===//

#include "Errors.h"

#include <cstdio>
#include <map>

namespace gnnrt::cudaemu {

namespace {
thread_local cudaError_t lastError = cudaSuccess;
thread_local cudaError_t sticky = cudaSuccess;
thread_local std::map<int, std::string> lastMessage;
} // namespace

cudaError_t stickyError() { return sticky; }

cudaError_t fail(cudaError_t error, const char *message) {
  std::fprintf(stderr, "cudaemu: %s: %s\n", cudaGetErrorName(error), message);
  lastError = error;
  lastMessage[int(error)] = message;
  if (error == cudaErrorLaunchFailure)
    sticky = error;
  return error;
}

std::string addressText(const void *p) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", p);
  return text;
}

} // namespace gnnrt::cudaemu

using namespace gnnrt::cudaemu;

cudaError_t cudaGetLastError() {
  const cudaError_t error = lastError;
  lastError = sticky;
  return error;
}

cudaError_t cudaPeekAtLastError() { return lastError; }

cudaError_t cudaDeviceReset() {
  sticky = cudaSuccess;
  lastError = cudaSuccess;
  return cudaSuccess;
}

const char *cudaGetErrorName(cudaError_t error) {
  switch (error) {
  case cudaSuccess:
    return "cudaSuccess";
  case cudaErrorInvalidValue:
    return "cudaErrorInvalidValue";
  case cudaErrorMemoryAllocation:
    return "cudaErrorMemoryAllocation";
  case cudaErrorInitializationError:
    return "cudaErrorInitializationError";
  case cudaErrorInvalidConfiguration:
    return "cudaErrorInvalidConfiguration";
  case cudaErrorInvalidDevicePointer:
    return "cudaErrorInvalidDevicePointer";
  case cudaErrorInvalidMemcpyDirection:
    return "cudaErrorInvalidMemcpyDirection";
  case cudaErrorNoDevice:
    return "cudaErrorNoDevice";
  case cudaErrorInvalidDevice:
    return "cudaErrorInvalidDevice";
  case cudaErrorInvalidResourceHandle:
    return "cudaErrorInvalidResourceHandle";
  case cudaErrorNotReady:
    return "cudaErrorNotReady";
  case cudaErrorLaunchFailure:
    return "cudaErrorLaunchFailure";
  case cudaErrorNotSupported:
    return "cudaErrorNotSupported";
  case cudaErrorUnknown:
    break;
  }
  return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t error) {
  const char *text = "unknown error";
  switch (error) {
  case cudaSuccess:
    return "no error";
  case cudaErrorInvalidValue:
    text = "invalid argument";
    break;
  case cudaErrorMemoryAllocation:
    text = "out of memory";
    break;
  case cudaErrorInitializationError:
    text = "initialization error";
    break;
  case cudaErrorInvalidConfiguration:
    text = "invalid configuration argument";
    break;
  case cudaErrorInvalidDevicePointer:
    text = "invalid device pointer";
    break;
  case cudaErrorInvalidMemcpyDirection:
    text = "invalid copy direction for memcpy";
    break;
  case cudaErrorNoDevice:
    text = "no CUDA-capable device is detected";
    break;
  case cudaErrorInvalidDevice:
    text = "invalid device ordinal";
    break;
  case cudaErrorInvalidResourceHandle:
    text = "invalid resource handle";
    break;
  case cudaErrorNotReady:
    text = "device not ready";
    break;
  case cudaErrorLaunchFailure:
    text = "unspecified launch failure";
    break;
  case cudaErrorNotSupported:
    text = "operation not supported";
    break;
  case cudaErrorUnknown:
    break;
  }
  const auto found = lastMessage.find(int(error));
  if (found == lastMessage.end())
    return text;
  thread_local std::string withMessage;
  withMessage = std::string(text) + " (emulated: " + found->second + ")";
  return withMessage.c_str();
}
