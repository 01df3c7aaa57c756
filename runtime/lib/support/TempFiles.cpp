//===- TempFiles.cpp - Remove temporary files when a signal ends the run --===//
//
// See TempFiles.h. The table is a fixed array of slots so that the signal
// handler reads it without locks or allocation (only unlink, sigaction and
// raise, all async-signal-safe); a slot's `state` is published with release
// order after its path is copied in, and cleared before the slot is reused.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/support/TempFiles.h"

#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>
#include <unistd.h>

namespace gnnrt {

namespace {

constexpr int kSlots = 64;
constexpr size_t kMaxPath = 4096;

struct Slot {
  std::atomic<int> state{0}; ///< 0 free, 1 being filled, 2 live
  char path[kMaxPath];
};

Slot slots[kSlots];
std::mutex installMutex;
bool installed = false;
constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};
struct sigaction previous[sizeof(kSignals) / sizeof(kSignals[0])];

void removeTempFilesAndReraise(int sig) {
  for (Slot &slot : slots)
    if (slot.state.load(std::memory_order_acquire) == 2)
      ::unlink(slot.path);
  // The disposition the program had before ours (usually the default:
  // terminate), so that the re-raised signal ends the process as it would
  // have without temporaries.
  for (size_t i = 0; i < sizeof(kSignals) / sizeof(kSignals[0]); ++i)
    if (kSignals[i] == sig)
      ::sigaction(sig, &previous[i], nullptr);
  ::raise(sig);
}

void installHandlers() {
  std::lock_guard<std::mutex> lock(installMutex);
  if (installed)
    return;
  installed = true;
  for (size_t i = 0; i < sizeof(kSignals) / sizeof(kSignals[0]); ++i) {
    struct sigaction action;
    std::memset(&action, 0, sizeof action);
    action.sa_handler = removeTempFilesAndReraise;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    ::sigaction(kSignals[i], nullptr, &previous[i]);
    // A signal the program ignores (nohup's SIGHUP) stays ignored.
    if (previous[i].sa_handler == SIG_IGN)
      continue;
    ::sigaction(kSignals[i], &action, nullptr);
  }
}

} // namespace

void registerTempFile(const std::string &path) {
  if (path.size() >= kMaxPath)
    return;
  installHandlers();
  for (Slot &slot : slots) {
    int expected = 0;
    if (!slot.state.compare_exchange_strong(expected, 1,
                                            std::memory_order_acquire))
      continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.state.store(2, std::memory_order_release);
    return;
  }
}

void unregisterTempFile(const std::string &path) {
  for (Slot &slot : slots)
    if (slot.state.load(std::memory_order_acquire) == 2 &&
        path == slot.path) {
      slot.state.store(0, std::memory_order_release);
      return;
    }
}

} // namespace gnnrt
