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

namespace gnnrt {

/// Blocks from this size on are worth huge pages: the 2 MiB pages inside
/// them are most of the block.
inline constexpr size_t kHugePageMinBytes = size_t(8) << 20;

/// Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes)
/// with huge pages as they are first touched (madvise MADV_HUGEPAGE).
/// Blocks under kHugePageMinBytes, and systems without transparent huge
/// pages, are left as they are; the contents never change.
void adviseHugePages(void *p, size_t bytes);

} // namespace gnnrt

#endif // GNNRT_SUPPORT_HUGEPAGES_H
