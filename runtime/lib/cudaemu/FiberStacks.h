//===- FiberStacks.h - Reused stacks for emulated threads -------*- C++ -*-===//
//
// Internal to lib/cudaemu: every emulated thread is a fiber with a stack of
// its own. A grid creates thousands of them, so stacks come from a pool per
// host thread and are reused, block after block: each is mapped once with
// an inaccessible guard page below it, so a kernel that overflows its stack
// faults instead of writing into its neighbour's.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_CUDAEMU_FIBERSTACKS_H
#define GNNRT_LIB_CUDAEMU_FIBERSTACKS_H

#include <boost/context/stack_context.hpp>

#include <cstddef>
#include <vector>

namespace gnnrt::cudaemu {

class StackPool {
public:
  explicit StackPool(size_t stackBytes);
  ~StackPool();
  StackPool(const StackPool &) = delete;
  StackPool &operator=(const StackPool &) = delete;

  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context &stack);
  size_t stackBytes() const { return bytes; }

private:
  size_t bytes;
  /// Mapped stacks (their lowest usable address) not in use.
  std::vector<void *> idle;
  /// Every mapping, for the destructor.
  std::vector<void *> mappings;
};

/// The StackAllocator Boost.Context's fiber takes by value: a handle on a
/// pool that reports the stack it hands out (the scheduler tells
/// AddressSanitizer about it at every switch).
class PooledStack {
public:
  PooledStack(StackPool &pool, boost::context::stack_context &handedOut)
      : pool(&pool), handedOut(&handedOut) {}
  boost::context::stack_context allocate() {
    *handedOut = pool->allocate();
    return *handedOut;
  }
  void deallocate(boost::context::stack_context &stack) noexcept {
    pool->deallocate(stack);
  }

private:
  StackPool *pool;
  boost::context::stack_context *handedOut;
};

} // namespace gnnrt::cudaemu

#endif // GNNRT_LIB_CUDAEMU_FIBERSTACKS_H
