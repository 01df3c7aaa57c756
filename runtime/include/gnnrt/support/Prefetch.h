//===- Prefetch.h - Software prefetch that the compiler keeps ---*- C++ -*-===//
//
// Graph walks (the kernels' gathers, the sampler's CSR reads) touch rows at
// random places that no hardware prefetcher predicts, so they request them a
// few steps ahead themselves.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SUPPORT_PREFETCH_H
#define GNNRT_SUPPORT_PREFETCH_H

#include <cstddef>
#include <cstdint>

namespace gnnrt {

/// Requests the cache line holding *p. On x86 an asm statement, which the
/// compiler must keep: GCC 12 at -O3 deletes a loop whose body is only
/// __builtin_prefetch calls as side-effect free (-ffinite-loops), which
/// left most instantiations of the gather loops without a single prefetch
/// instruction, and several times slower.
inline void prefetchLine(const void *p) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char *>(p)));
#else
  __builtin_prefetch(p);
#endif
}

/// Requests the cache line holding *p into the second-level cache only
/// (prefetcht2). A core tracks few misses into its L1 at once; a gather
/// that requests its rows far ahead into L2 and only the next few into L1
/// keeps more of them in flight (bench/aggregate.sh: 2-40% faster on rows
/// of up to 128 floats).
inline void prefetchLineToL2(const void *p) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  asm volatile("prefetcht2 %0" : : "m"(*static_cast<const char *>(p)));
#else
  __builtin_prefetch(p, 0, 1);
#endif
}

/// Requests every cache line of [p, p + bytes): a whole row that a later
/// iteration copies (the kernels prefetch only a row's first lines, which
/// is enough for a gather that adds the row to another).
inline void prefetchLines(const void *p, size_t bytes) {
  constexpr uintptr_t kLine = 64;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p) & ~(kLine - 1),
                  end = reinterpret_cast<uintptr_t>(p) + bytes;
  for (uintptr_t line = begin; line < end; line += kLine)
    prefetchLine(reinterpret_cast<const void *>(line));
}

} // namespace gnnrt

#endif // GNNRT_SUPPORT_PREFETCH_H
