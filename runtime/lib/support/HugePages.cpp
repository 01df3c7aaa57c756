//===- HugePages.cpp - Large buffers on 2 MiB pages -----------------------===//

#include "gnnrt/support/HugePages.h"

#include <cstdint>
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

} // namespace gnnrt
