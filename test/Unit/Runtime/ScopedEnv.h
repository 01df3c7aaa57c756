//===- ScopedEnv.h - An environment variable set for a scope ----*- C++ -*-===//
//
// For tests of behaviour an environment variable selects (GNNRT_CPU_ISA's
// baseline loops, a modeled cache size).
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_TEST_SCOPEDENV_H
#define GNNRT_TEST_SCOPEDENV_H

#include <cstdlib>
#include <optional>
#include <string>

namespace gnnrt::test {

/// Sets an environment variable for the scope, restoring it after.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const std::string &value) : name(name) {
    if (const char *old = std::getenv(name))
      previous = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (previous)
      setenv(name, previous->c_str(), 1);
    else
      unsetenv(name);
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  const char *name;
  std::optional<std::string> previous;
};

} // namespace gnnrt::test

#endif // GNNRT_TEST_SCOPEDENV_H
