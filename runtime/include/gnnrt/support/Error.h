//===- Error.h - Exceptions thrown by the gnnrt runtime ---------*- C++ -*-===//
//
// The runtime reports bad user input (a corrupt dataset, a missing file, an id
// out of range) by throwing gnnrt::DataError whose what() is the complete,
// user-facing message, usually prefixed by `file:line:`. Tools and generated
// trainers print it verbatim and exit non-zero; nothing else needs to be
// decorated, so callers never format partial messages themselves. A failing
// accelerator throws gnnrt::DeviceError the same way.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SUPPORT_ERROR_H
#define GNNRT_SUPPORT_ERROR_H

#include <cstdint>
#include <stdexcept>
#include <string>

namespace gnnrt {

/// An error in input data or its files. what() is the full message shown to
/// the user, e.g. `cora/raw/edge.csv.gz:17: expected 2 columns, found 3`.
class DataError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A failure of an accelerator or its driver (no device, out of device
/// memory, a failed kernel launch), not of the program's input. what() is
/// the full message, naming the operation and the driver's error.
class DeviceError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Throws DataError("<file>:<line>: <message>"); line 0 means the whole file
/// and prints as "<file>: <message>".
[[noreturn]] void throwDataError(const std::string &file, int64_t line,
                                 const std::string &message);

} // namespace gnnrt

#endif // GNNRT_SUPPORT_ERROR_H
