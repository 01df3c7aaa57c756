//===- Stopwatch.h - Elapsed wall time --------------------------*- C++ -*-===//
//
// Epoch times, pipeline waits, timeouts and partitioner phases are all read
// off the steady clock the same way; this is that one way.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SUPPORT_STOPWATCH_H
#define GNNRT_SUPPORT_STOPWATCH_H

#include <chrono>

namespace gnnrt {

/// Seconds of the steady clock since `start`.
inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

} // namespace gnnrt

#endif // GNNRT_SUPPORT_STOPWATCH_H
