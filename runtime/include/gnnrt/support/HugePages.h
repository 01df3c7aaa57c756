//===- HugePages.h - Large buffers on 2 MiB pages ---------------*- C++ -*-===//
//
// Graph kernels read rows at random places of matrices of hundreds of MB.
// On 4 KiB pages nearly every such row also misses the TLB (a few thousand
// entries cover 12 MiB), and the page walk costs as much again as the row.
// Linux backs a range with transparent huge pages when asked (the common
// "madvise" setting of /sys/kernel/mm/transparent_hugepage/enabled), which
// makes the TLB cover a gigabyte.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SUPPORT_HUGEPAGES_H
#define GNNRT_SUPPORT_HUGEPAGES_H

#include <cstddef>
#include <vector>

namespace gnnrt {

/// Blocks from this size on are worth huge pages: the 2 MiB pages inside
/// them are most of the block.
inline constexpr size_t kHugePageMinBytes = size_t(8) << 20;

/// Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes)
/// with huge pages as they are first touched (madvise MADV_HUGEPAGE).
/// Blocks under kHugePageMinBytes, and systems without transparent huge
/// pages, are left as they are; the contents never change.
void adviseHugePages(void *p, size_t bytes);

/// Blocks under kHugePageMinBytes carved out of chunks of whole 2 MiB pages
/// advised to be huge: many small buffers in use together (the workspace of
/// a batch of small graphs: a hundred buffers of a few hundred KB) then sit
/// on a few huge pages instead of thousands of 4 KiB ones, whose TLB misses
/// and page-bounded prefetching cost about a tenth of a GIN step. A freed
/// block serves a later request it fits (the smallest such); release()
/// returns the chunks. Not thread-safe (one per workspace).
class HugePageArena {
public:
  HugePageArena() = default;
  HugePageArena(const HugePageArena &) = delete;
  HugePageArena &operator=(const HugePageArena &) = delete;
  ~HugePageArena() { release(); }

  /// Whether a block of `bytes` comes from the arena (smaller ones only).
  static bool serves(size_t bytes) { return bytes < kHugePageMinBytes; }
  /// A block of at least `bytes` (serves(bytes)) on a 64-byte boundary;
  /// `bytes` becomes its size.
  void *allocate(size_t &bytes);
  /// Returns a block of allocate()'s size for reuse.
  void deallocate(void *p, size_t bytes);
  /// Frees every chunk (every block is gone).
  void release();

private:
  struct Block {
    char *data;
    size_t bytes;
  };
  std::vector<Block> chunks, freeBlocks;
  char *next = nullptr, *end = nullptr;
};

} // namespace gnnrt

#endif // GNNRT_SUPPORT_HUGEPAGES_H
