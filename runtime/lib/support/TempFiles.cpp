//===- TempFiles.cpp - Remove temporary files when a signal ends the run --===//
//
// See TempFiles.h. The table is a fixed array of slots so that the signal
// handler reads it without locks or allocation (only unlink, openat,
// getdents64, unlinkat, close, sigaction and raise, all async-signal-safe); a
// slot's `state` is published with release order after its path is copied
// in, and cleared before the slot is reused.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/support/TempFiles.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <mutex>
#include <sys/syscall.h>
#include <unistd.h>

namespace gnnrt {

namespace {

constexpr int kSlots = 64;
constexpr size_t kMaxPath = 4096;

struct Slot {
  std::atomic<int> state{0}; ///< 0 free, 1 being filled, 2 live
  bool tree = false;         ///< a directory, removed with its contents
  char path[kMaxPath];
};

/// Deep enough for every directory gnnrt writes (a partitioning is two
/// levels); each level holds one 4 KiB buffer on the handler's stack.
constexpr int kMaxTreeDepth = 8;

/// The record getdents64 fills (glibc's <dirent.h> has no declaration of
/// the raw system call's layout).
struct LinuxDirent64 {
  uint64_t ino;
  int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[1];
};

/// Removes `name` in the directory `parent` (a file, or a directory and
/// everything below it) with system calls only, so that a signal handler
/// may call it. Removing entries while reading a directory may skip some, so
/// each directory is read again from the start until a pass removes none.
void removeTreeAt(int parent, const char *name, int depth) {
  if (::unlinkat(parent, name, 0) == 0 || (errno != EISDIR && errno != EPERM))
    return;
  if (depth < kMaxTreeDepth) {
    int fd =
        ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      alignas(8) char buffer[4096];
      for (bool removed = true; removed;) {
        removed = false;
        ::lseek(fd, 0, SEEK_SET);
        long bytes;
        while ((bytes = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer)) >
               0)
          for (long offset = 0; offset < bytes;) {
            auto *entry = reinterpret_cast<LinuxDirent64 *>(buffer + offset);
            offset += entry->reclen;
            if (std::strcmp(entry->name, ".") == 0 ||
                std::strcmp(entry->name, "..") == 0)
              continue;
            removeTreeAt(fd, entry->name, depth + 1);
            removed = true;
          }
      }
      ::close(fd);
    }
  }
  ::unlinkat(parent, name, AT_REMOVEDIR);
}

Slot slots[kSlots];
std::mutex installMutex;
bool installed = false;
constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};
struct sigaction previous[sizeof(kSignals) / sizeof(kSignals[0])];

void removeTempFilesAndReraise(int sig) {
  for (Slot &slot : slots)
    if (slot.state.load(std::memory_order_acquire) == 2) {
      if (slot.tree)
        removeTreeAt(AT_FDCWD, slot.path, 0);
      else
        ::unlink(slot.path);
    }
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

void registerTemporary(const std::string &path, bool tree) {
  if (path.size() >= kMaxPath)
    return;
  installHandlers();
  for (Slot &slot : slots) {
    int expected = 0;
    if (!slot.state.compare_exchange_strong(expected, 1,
                                            std::memory_order_acquire))
      continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.tree = tree;
    slot.state.store(2, std::memory_order_release);
    return;
  }
}

/// The process id a temporary's name carries after `prefix`, or 0.
pid_t writerOf(const char *name, const std::string &prefix) {
  if (std::strncmp(name, prefix.c_str(), prefix.size()) != 0)
    return 0;
  const char *digits = name + prefix.size();
  char *end = nullptr;
  long pid = std::strtol(digits, &end, 10);
  return end != digits && *end == '-' && pid > 0 ? pid_t(pid) : 0;
}

} // namespace

void registerTempFile(const std::string &path) {
  registerTemporary(path, /*tree=*/false);
}

void registerTempDirectory(const std::string &path) {
  registerTemporary(path, /*tree=*/true);
}

std::string temporaryTag() { return std::to_string(::getpid()) + "-"; }

int removeStaleTemporaries(const std::string &dir, const std::string &prefix) {
  DIR *listing = ::opendir(dir.empty() ? "." : dir.c_str());
  if (!listing)
    return 0;
  int removed = 0;
  while (const dirent *entry = ::readdir(listing)) {
    pid_t pid = writerOf(entry->d_name, prefix);
    // kill(pid, 0) fails with ESRCH only when no such process exists; a
    // live writer of another user answers EPERM and keeps its files.
    if (pid == 0 || pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH)
      continue;
    removeTreeAt(::dirfd(listing), entry->d_name, 0);
    ++removed;
  }
  ::closedir(listing);
  return removed;
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
