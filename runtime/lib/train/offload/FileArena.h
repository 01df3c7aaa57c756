//===- FileArena.h - large allocations backed by a file ---------*- C++ -*-===//
//
// Internal to gnnrt. Out-of-core training keeps each partition's data (its
// graph, features, halo tables) and activations (the Workspace buffers) in
// a file of its own under the --offload directory, so that when the
// partition gives up its turn its pages can leave RAM without swap:
// dropPages() unmaps them (MADV_DONTNEED), the kernel writes the dirty ones
// back to the file, and the next turn faults them in again. Freed blocks
// keep their pages for reuse until then.
//
// The partition's code is the ordinary trainer code, full of std::vector:
// rather than give every container an allocator, this file replaces the
// global operator new. While an ArenaScope is active on a thread, that
// thread's allocations of at least kArenaMinBytes come from the scope's
// arena; every other allocation is malloc's, as before. operator delete
// recognizes arena memory by its address (each arena's reserved range), so
// a buffer may be freed on any thread.
//
// Each arena reserves its range when made, as large as the process may
// have: 256 GiB without an address-space limit, else its share of a
// quarter of the room `ulimit -v` leaves. Its file's disk blocks are
// allocated when it grows (fallocate), so a full disk is an ArenaExhausted
// error naming the directory at the allocation, not a SIGBUS at a later
// write to the page.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_FILEARENA_H
#define GNNRT_LIB_TRAIN_FILEARENA_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <new>
#include <string>

namespace gnnrt {

/// Allocations below this size stay on the heap: a block is whole pages,
/// so a smaller one would waste more than a quarter of its pages.
constexpr size_t kArenaMinBytes = size_t(16) << 10;

/// An arena that cannot grow: its disk is full or its address range is
/// used up. A bad_alloc, since operator new throws it, with a message that
/// says which and what to do.
class ArenaExhausted : public std::bad_alloc {
public:
  explicit ArenaExhausted(std::string message) : message(std::move(message)) {}
  const char *what() const noexcept override { return message.c_str(); }

private:
  std::string message;
};

class FileArena {
public:
  /// Creates the backing file in `dir` (unlinked at once, so nothing is
  /// left behind however the run ends) and reserves the arena's address
  /// range, its share of what the process may map when `arenas` arenas are
  /// made together. Throws DataError if `dir` is not a writable directory or
  /// no range can be reserved.
  FileArena(const std::string &dir, int part, int arenas = 1);
  ~FileArena();
  FileArena(const FileArena &) = delete;
  FileArena &operator=(const FileArena &) = delete;

  /// `bytes` at an address aligned to 64 bytes (callers asking for more
  /// get the heap's).
  void *allocate(size_t bytes, size_t alignment);
  /// Maps `bytes` of another file, from `offset` (a multiple of the page
  /// size), read-only into the arena's range: rows a part reads where they
  /// are (MappedFeatureRows). They count as the arena's memory, leave RAM
  /// with its pages (clean: nothing is written back) and stay mapped until
  /// the arena goes. Null (errno set) if the mapping fails.
  const void *mapReadOnly(int fd, size_t offset, size_t bytes);
  /// Drops every page of the arena from this process's memory; the file
  /// keeps the contents.
  void dropPages();
  /// Asks the kernel to read the arena's file into the page cache
  /// (MADV_WILLNEED) without mapping it: the next turn's faults are then
  /// minor ones. Returns once the reads are queued.
  void readAhead();
  /// Bytes allocated now, and at most so far (mapped files included).
  int64_t bytesInUse() const { return inUse; }
  int64_t peakBytes() const { return peak; }
  /// Bytes of other files mapped by mapReadOnly (not in the arena's file).
  int64_t mappedBytes() const { return mapped; }
  /// At most the bytes of the arena in RAM: those in use, and the freed
  /// blocks', which stay mapped until the next dropPages().
  int64_t residentBytes() const;

  /// Drops the whole pages inside [p, p + bytes) from this process's
  /// memory if they are arena memory (another part's buffer that this
  /// part's turn copied from or into); the file keeps them.
  static void dropRange(const void *p, size_t bytes) noexcept;

  /// Whether `p` lies in an arena's reserved range; if so, frees it.
  static bool releaseIfOwned(void *p) noexcept;

  /// The arena of this thread's active ArenaScope, or null.
  static FileArena *current();

private:
  struct Header;
  void release(Header *block) noexcept;

  int slot = -1, part = 0, fd = -1;
  std::string dir;
  char *base = nullptr;
  size_t capacity = 0; ///< bytes of the reserved range
  size_t end = 0;      ///< bytes of the range handed out so far
  /// Freed blocks by size, for reuse (their pages kept).
  std::multimap<size_t, size_t> freeBlocks;
  int64_t inUse = 0, peak = 0, freedSinceDrop = 0, mapped = 0;
  mutable std::mutex mutex;
};

/// While alive, this thread's large allocations come from `arena`.
class ArenaScope {
public:
  explicit ArenaScope(FileArena *arena);
  ~ArenaScope();
  ArenaScope(const ArenaScope &) = delete;
  ArenaScope &operator=(const ArenaScope &) = delete;

private:
  FileArena *previous;
};

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_FILEARENA_H
