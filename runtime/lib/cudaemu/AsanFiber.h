//===- AsanFiber.h - Fiber switches announced to AddressSanitizer -*- C++
//-*-===//
//
// Internal to lib/cudaemu. AddressSanitizer tracks one stack per thread; a
// fiber switch that it is not told about looks like a wild stack pointer
// (false stack-buffer-overflows, or a crash when it unwinds). Every switch
// between the scheduler and an emulated thread is bracketed by
// __sanitizer_start_switch_fiber (before: where we go) and
// __sanitizer_finish_switch_fiber (after: where we came from), as
// sanitizer/common_interface_defs.h describes. Without ASan these compile to
// nothing.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_CUDAEMU_ASANFIBER_H
#define GNNRT_LIB_CUDAEMU_ASANFIBER_H

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define GNNRT_CUDAEMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GNNRT_CUDAEMU_ASAN 1
#endif
#endif

#ifdef GNNRT_CUDAEMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace gnnrt::cudaemu {

/// The stack a switch goes to or came from.
struct StackBounds {
  const void *bottom = nullptr;
  size_t size = 0;
};

/// Before switching to `to`. `fakeStack` saves the leaving context's fake
/// stack; null when the leaving fiber ends (ASan frees its fake stack).
inline void startSwitch(void **fakeStack, const StackBounds &to) {
#ifdef GNNRT_CUDAEMU_ASAN
  __sanitizer_start_switch_fiber(fakeStack, to.bottom, to.size);
#else
  (void)fakeStack;
  (void)to;
#endif
}

/// After arriving: `fakeStack` is what startSwitch saved when this context
/// left (null on a fiber's first entry); `from`, if not null, receives the
/// stack we came from.
inline void finishSwitch(void *fakeStack, StackBounds *from) {
#ifdef GNNRT_CUDAEMU_ASAN
  __sanitizer_finish_switch_fiber(fakeStack, from ? &from->bottom : nullptr,
                                  from ? &from->size : nullptr);
#else
  (void)fakeStack;
  (void)from;
#endif
}

/// Clears ASan's poison from a stack about to be reused.
inline void unpoisonStack(void *low, size_t bytes) {
#ifdef GNNRT_CUDAEMU_ASAN
  ASAN_UNPOISON_MEMORY_REGION(low, bytes);
#else
  (void)low;
  (void)bytes;
#endif
}

/// Whether this library was built with AddressSanitizer (stacks are larger:
/// instrumented frames carry redzones).
constexpr bool kAddressSanitizer =
#ifdef GNNRT_CUDAEMU_ASAN
    true;
#else
    false;
#endif

} // namespace gnnrt::cudaemu

#endif // GNNRT_LIB_CUDAEMU_ASANFIBER_H
