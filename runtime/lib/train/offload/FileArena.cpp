//===- FileArena.cpp - large allocations backed by a file -----------------===//
//
// See FileArena.h. Layout: each arena slot reserves a range of address space
// (PROT_NONE, no memory behind it) the first time an arena takes it, and
// keeps it for the next arena of that slot, so that a block freed after its
// arena went is still recognized (and ignored). An arena maps its file into
// its range at the same offsets, block by block; a block is a
// header (its size, kHeaderBytes so that cache-line alignment holds)
// followed by the caller's bytes, rounded up to whole pages. Freed blocks
// keep their pages and disk blocks and are reused, so a long run's address
// use and file size stay at its peak working set.
//
//===----------------------------------------------------------------------===//

#include "FileArena.h"

#include "gnnrt/support/Error.h"
#include "gnnrt/support/HugePages.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <new>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

namespace gnnrt {

namespace {

constexpr size_t kPage = 4096;
constexpr size_t kHeaderBytes = 64;
/// Address space per arena (a partition's working set is far smaller: it
/// must fit the memory budget) and arenas at most.
/// Address space per arena without an address-space limit (a partition's
/// working set is far smaller: it must fit the memory budget), arenas at
/// most, and the smallest range worth reserving under a limit.
constexpr size_t kSliceBytes = size_t(256) << 30;
constexpr int kMaxArenas = 64;
constexpr size_t kMinSliceBytes = size_t(64) << 20;

/// An arena slot's reserved range, kept once reserved, and its arena.
struct Slot {
  std::atomic<char *> base{nullptr};
  std::atomic<size_t> bytes{0};
  std::atomic<FileArena *> arena{nullptr};
};
Slot slots[kMaxArenas];
/// Slots [0, slotsReserved) have a range: what operator delete scans.
std::atomic<int> slotsReserved{0};
std::mutex registryMutex;
thread_local FileArena *currentArena = nullptr;

size_t roundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

/// Bytes of address space this process may still map: unlimited (SIZE_MAX)
/// without `ulimit -v`, else the limit less what is mapped now.
size_t addressSpaceLeft() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
    return SIZE_MAX;
  size_t mappedPages = 0;
  std::ifstream statm("/proc/self/statm");
  statm >> mappedPages;
  const size_t mapped = mappedPages * size_t(sysconf(_SC_PAGESIZE));
  return limit.rlim_cur > mapped ? size_t(limit.rlim_cur) - mapped : 0;
}

/// The range of a slot that has none yet: 256 GiB, or under an address-space
/// limit this arena's share of a quarter of what is left. The rest is the
/// heap's, the threads' and OpenBLAS's: glibc reserves 64 MiB per thread
/// arena, and OpenBLAS spins forever when it cannot map its buffers.
/// Throws DataError if not even kMinSliceBytes can be reserved.
void reserveRange(Slot &slot, int arenas) {
  const size_t left = addressSpaceLeft();
  size_t bytes = kSliceBytes;
  if (left != SIZE_MAX)
    bytes = std::min(bytes, roundUp(left / 4 / size_t(std::max(1, arenas)),
                                    size_t(1) << 20));
  void *p;
  for (;;) {
    p = mmap(nullptr, bytes, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED || bytes / 2 < kMinSliceBytes)
      break;
    bytes /= 2;
  }
  if (p == MAP_FAILED)
    throw DataError(std::string("--offload: cannot reserve address space "
                                "for a partition's file (") +
                    std::strerror(errno) +
                    "): `ulimit -v` leaves too little; raise it");
  // The size first: operator delete reads base, then bytes.
  slot.bytes.store(bytes);
  slot.base.store(static_cast<char *>(p), std::memory_order_release);
}

/// The slot whose range holds `p`, or null.
Slot *slotOf(const void *p) {
  const char *c = static_cast<const char *>(p);
  const int n = slotsReserved.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) {
    const char *base = slots[i].base.load(std::memory_order_acquire);
    if (base && c >= base && c < base + slots[i].bytes.load())
      return &slots[i];
  }
  return nullptr;
}

void *heapAllocate(size_t bytes, size_t alignment) {
  for (;;) {
    void *p = nullptr;
    if (alignment <= alignof(std::max_align_t))
      p = std::malloc(bytes ? bytes : 1);
    else if (posix_memalign(&p, alignment, bytes ? bytes : 1) != 0)
      p = nullptr;
    if (p) {
      adviseHugePages(p, bytes);
      return p;
    }
    std::new_handler handler = std::get_new_handler();
    if (!handler)
      throw std::bad_alloc();
    handler();
  }
}

void *allocateAnywhere(size_t bytes, size_t alignment) {
  if (bytes >= kArenaMinBytes && currentArena && alignment <= kHeaderBytes)
    return currentArena->allocate(bytes, alignment);
  return heapAllocate(bytes, alignment);
}

void releaseAnywhere(void *p) noexcept {
  if (p && !FileArena::releaseIfOwned(p))
    std::free(p);
}

} // namespace

struct FileArena::Header {
  size_t blockBytes; ///< header included
};

FileArena::FileArena(const std::string &dir, int part, int arenas)
    : part(part), dir(dir) {
  std::lock_guard<std::mutex> lock(registryMutex);
  for (int i = 0; i < kMaxArenas && slot < 0; ++i)
    if (!slots[i].arena.load())
      slot = i;
  if (slot < 0)
    throw DataError("--offload: more than " + std::to_string(kMaxArenas) +
                    " partitions in one process");
  Slot &mine = slots[slot];
  if (!mine.base.load()) {
    reserveRange(mine, arenas);
    slotsReserved.store(std::max(slotsReserved.load(), slot + 1),
                        std::memory_order_release);
  }
  std::string path = dir + "/.part" + std::to_string(part) + ".XXXXXX";
  fd = mkstemp(path.data());
  if (fd < 0)
    throw DataError("--offload " + dir + ": cannot create a file there (" +
                    std::strerror(errno) + ")");
  unlink(path.c_str());
  base = mine.base.load();
  capacity = mine.bytes.load();
  mine.arena.store(this);
}

FileArena::~FileArena() {
  std::lock_guard<std::mutex> lock(registryMutex);
  slots[slot].arena.store(nullptr);
  // Back to reserved address space; the unlinked file goes with its fd.
  if (end > 0)
    mmap(base, end, PROT_NONE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  close(fd);
}

void *FileArena::allocate(size_t bytes, size_t alignment) {
  (void)alignment; // blocks start on a page, past their header
  const size_t blockBytes = roundUp(bytes + kHeaderBytes, kPage);
  std::lock_guard<std::mutex> lock(mutex);
  size_t offset;
  // A freed block that fits without wasting more than it holds.
  auto reuse = freeBlocks.lower_bound(blockBytes);
  if (reuse != freeBlocks.end() && reuse->first <= 2 * blockBytes) {
    offset = reuse->second;
    static_cast<Header *>(static_cast<void *>(base + offset))->blockBytes =
        reuse->first;
    inUse += int64_t(reuse->first);
    freeBlocks.erase(reuse);
  } else {
    if (end + blockBytes > capacity)
      throw ArenaExhausted(
          "--offload " + dir + ": partition " + std::to_string(part) +
          " needs more than the " + std::to_string(capacity >> 20) +
          " MiB of address space reserved for it (raise `ulimit -v`, or "
          "give a smaller --memory-budget for more, smaller partitions)");
    offset = end;
    // The disk blocks now: a page of a sparse file that cannot get one
    // when first written raises SIGBUS, with no word of the cause.
    if (int error = posix_fallocate(fd, off_t(offset), off_t(blockBytes)))
      throw ArenaExhausted(
          "--offload " + dir + ": cannot grow partition " +
          std::to_string(part) + "'s file by " + std::to_string(blockBytes) +
          " bytes (" + std::strerror(error) +
          (error == ENOSPC ? "; free space there or choose a larger disk"
                           : "") +
          ")");
    if (mmap(base + offset, blockBytes, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_FIXED, fd, off_t(offset)) == MAP_FAILED)
      throw ArenaExhausted("--offload " + dir + ": cannot map partition " +
                           std::to_string(part) + "'s file (" +
                           std::strerror(errno) + ")");
    end += blockBytes;
    static_cast<Header *>(static_cast<void *>(base + offset))->blockBytes =
        blockBytes;
    inUse += int64_t(blockBytes);
  }
  peak = std::max(peak, inUse);
  return base + offset + kHeaderBytes;
}

const void *FileArena::mapReadOnly(int file, size_t offset, size_t bytes) {
  const size_t windowBytes = roundUp(bytes, kPage);
  std::lock_guard<std::mutex> lock(mutex);
  if (end + windowBytes > capacity) {
    errno = ENOMEM;
    return nullptr;
  }
  // Past everything handed out so far: the arena's own file gets a hole
  // there (no disk blocks) when a later block extends it.
  void *at = mmap(base + end, windowBytes, PROT_READ, MAP_SHARED | MAP_FIXED,
                  file, off_t(offset));
  if (at == MAP_FAILED)
    return nullptr;
  end += windowBytes;
  inUse += int64_t(windowBytes);
  mapped += int64_t(windowBytes);
  peak = std::max(peak, inUse);
  return at;
}

void FileArena::release(Header *block) noexcept {
  // The block keeps its pages, in RAM and on disk, for the next allocation
  // that reuses it: punching them out made every reuse zero-fill fresh
  // pages and allocate their disk blocks again, which cost a third of an
  // out-of-core epoch (the ring's chunk buffers come and go with every
  // transfer). They leave RAM with the arena's next dropPages().
  const size_t blockBytes = block->blockBytes;
  const size_t offset = size_t(reinterpret_cast<char *>(block) - base);
  std::lock_guard<std::mutex> lock(mutex);
  inUse -= int64_t(blockBytes);
  freedSinceDrop += int64_t(blockBytes);
  freeBlocks.emplace(blockBytes, offset);
}

void FileArena::dropPages() {
  std::lock_guard<std::mutex> lock(mutex);
  if (end > 0)
    madvise(base, end, MADV_DONTNEED);
  freedSinceDrop = 0;
}

int64_t FileArena::residentBytes() const {
  std::lock_guard<std::mutex> lock(mutex);
  return std::min(int64_t(end), inUse + freedSinceDrop);
}

void FileArena::readAhead() {
  size_t bytes;
  {
    std::lock_guard<std::mutex> lock(mutex);
    bytes = end;
  }
  // The arena grows only in its own turn, never during another's.
  if (bytes > 0)
    madvise(base, bytes, MADV_WILLNEED);
}

void FileArena::dropRange(const void *p, size_t bytes) noexcept {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p);
  const uintptr_t first = roundUp(begin, kPage);
  const uintptr_t last = (begin + bytes) / kPage * kPage;
  if (last <= first || !slotOf(p))
    return;
  madvise(reinterpret_cast<void *>(first), last - first, MADV_DONTNEED);
}

bool FileArena::releaseIfOwned(void *p) noexcept {
  Slot *owner = slotOf(p);
  if (!owner)
    return false;
  // A block that outlived its arena went with the arena's file.
  if (FileArena *arena = owner->arena.load())
    arena->release(
        reinterpret_cast<Header *>(static_cast<char *>(p) - kHeaderBytes));
  return true;
}

FileArena *FileArena::current() { return currentArena; }

ArenaScope::ArenaScope(FileArena *arena) : previous(currentArena) {
  currentArena = arena;
}

ArenaScope::~ArenaScope() { currentArena = previous; }

} // namespace gnnrt

// The replaceable global allocation functions ([new.delete]): the same as
// the standard library's unless an ArenaScope is active on the thread.
void *operator new(std::size_t bytes) {
  return gnnrt::allocateAnywhere(bytes, alignof(std::max_align_t));
}
void *operator new[](std::size_t bytes) {
  return gnnrt::allocateAnywhere(bytes, alignof(std::max_align_t));
}
void *operator new(std::size_t bytes, std::align_val_t alignment) {
  return gnnrt::allocateAnywhere(bytes, size_t(alignment));
}
void *operator new[](std::size_t bytes, std::align_val_t alignment) {
  return gnnrt::allocateAnywhere(bytes, size_t(alignment));
}
void *operator new(std::size_t bytes, const std::nothrow_t &) noexcept {
  try {
    return gnnrt::allocateAnywhere(bytes, alignof(std::max_align_t));
  } catch (...) {
    return nullptr;
  }
}
void *operator new[](std::size_t bytes, const std::nothrow_t &) noexcept {
  return operator new(bytes, std::nothrow);
}
void operator delete(void *p) noexcept { gnnrt::releaseAnywhere(p); }
void operator delete[](void *p) noexcept { gnnrt::releaseAnywhere(p); }
void operator delete(void *p, std::size_t) noexcept {
  gnnrt::releaseAnywhere(p);
}
void operator delete[](void *p, std::size_t) noexcept {
  gnnrt::releaseAnywhere(p);
}
void operator delete(void *p, std::align_val_t) noexcept {
  gnnrt::releaseAnywhere(p);
}
void operator delete[](void *p, std::align_val_t) noexcept {
  gnnrt::releaseAnywhere(p);
}
void operator delete(void *p, std::size_t, std::align_val_t) noexcept {
  gnnrt::releaseAnywhere(p);
}
void operator delete[](void *p, std::size_t, std::align_val_t) noexcept {
  gnnrt::releaseAnywhere(p);
}
