//===- HugePages.cpp - Large buffers on 2 MiB pages -----------------------===//

#include "gnnrt/support/HugePages.h"

#include <algorithm>
#include <cstdint>
#include <new>
#include <sys/mman.h>

namespace gnnrt {

void adviseHugePages(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  if (!p || bytes < kHugePageMinBytes)
    return;
  constexpr uintptr_t kHugePage = uintptr_t(2) << 20;
  const uintptr_t begin =
      (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHugePage - 1);
  // Advice only: a kernel without THP answers EINVAL and nothing changes.
  if (end > begin)
    madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

namespace {
constexpr size_t kHugePage = size_t(2) << 20;
/// Chunks of 16 MiB of whole huge pages: a GIN batch's workspace is two.
constexpr size_t kChunkBytes = size_t(16) << 20;
constexpr size_t kBlockAlign = 64;
} // namespace

void *HugePageArena::allocate(size_t &bytes) {
  bytes = std::max<size_t>(kBlockAlign,
                           (bytes + kBlockAlign - 1) & ~(kBlockAlign - 1));
  // The smallest freed block that fits.
  auto best = freeBlocks.end();
  for (auto it = freeBlocks.begin(); it != freeBlocks.end(); ++it)
    if (it->bytes >= bytes &&
        (best == freeBlocks.end() || it->bytes < best->bytes))
      best = it;
  if (best != freeBlocks.end()) {
    const Block block = *best;
    freeBlocks.erase(best);
    bytes = block.bytes;
    return block.data;
  }
  if (size_t(end - next) < bytes) {
    // The rest of the current chunk stays unused. A chunk is allocated as
    // any buffer is (operator new: the heap, or an out-of-core run's file
    // arena) with a huge page of slack, and used from its first 2 MiB
    // boundary on.
    const size_t usable =
        std::max(kChunkBytes, (bytes + kHugePage - 1) & ~(kHugePage - 1));
    char *chunk = static_cast<char *>(
        ::operator new(usable + kHugePage, std::align_val_t(kBlockAlign)));
    chunks.push_back({chunk, usable + kHugePage});
    next = reinterpret_cast<char *>(
        (reinterpret_cast<uintptr_t>(chunk) + kHugePage - 1) &
        ~uintptr_t(kHugePage - 1));
    end = next + usable;
#ifdef MADV_HUGEPAGE
    madvise(next, usable, MADV_HUGEPAGE); // advice only
#endif
  }
  void *p = next;
  next += bytes;
  return p;
}

void HugePageArena::deallocate(void *p, size_t bytes) {
  if (p)
    freeBlocks.push_back({static_cast<char *>(p), bytes});
}

void HugePageArena::release() {
  for (const Block &chunk : chunks)
    ::operator delete(chunk.data, std::align_val_t(kBlockAlign));
  chunks.clear();
  freeBlocks.clear();
  next = end = nullptr;
}

} // namespace gnnrt
