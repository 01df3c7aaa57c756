//===- Error.cpp - DataError construction ---------------------------------===//
//
// One place formats `file:line: message`, so every loader error looks alike
// and tests can assert exact text.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/support/Error.h"

namespace gnnrt {

void throwDataError(const std::string &file, int64_t line,
                    const std::string &message) {
  if (line > 0)
    throw DataError(file + ":" + std::to_string(line) + ": " + message);
  throw DataError(file + ": " + message);
}

} // namespace gnnrt
