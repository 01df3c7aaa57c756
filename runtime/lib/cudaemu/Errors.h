//===- Errors.h - The emulated runtime's error state ------------*- C++ -*-===//
//
// Internal to lib/cudaemu: each host thread's last error and sticky error,
// as the CUDA runtime keeps them (gnnrt/cudaemu/RuntimeApi.h describes the
// behaviour; fail() records an error).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_CUDAEMU_ERRORS_H
#define GNNRT_LIB_CUDAEMU_ERRORS_H

#include "gnnrt/cudaemu/RuntimeApi.h"

#include <string>

namespace gnnrt::cudaemu {

/// The sticky error of this host thread (a failed launch), or cudaSuccess.
cudaError_t stickyError();
/// fail() with a std::string message.
inline cudaError_t fail(cudaError_t error, const std::string &message) {
  return fail(error, message.c_str());
}
/// "0x7f..." for messages.
std::string addressText(const void *p);

} // namespace gnnrt::cudaemu

#endif // GNNRT_LIB_CUDAEMU_ERRORS_H
