//===- Prefetch.h - Software prefetch that the compiler keeps ---*- C++ -*-===//
//
// Graph walks (the kernels' gathers, the sampler's CSR reads) touch rows at
// random places that no hardware prefetcher predicts, so they request them a
// few steps ahead themselves.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SUPPORT_PREFETCH_H
#define GNNRT_SUPPORT_PREFETCH_H

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

} // namespace gnnrt

#endif // GNNRT_SUPPORT_PREFETCH_H
