//===- FiberStacks.cpp - Reused stacks for emulated threads ---------------===//
//
// See FiberStacks.h.
//
//===----------------------------------------------------------------------===//

#include "FiberStacks.h"

#include "AsanFiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

namespace gnnrt::cudaemu {

namespace {
size_t pageSize() { return size_t(sysconf(_SC_PAGESIZE)); }
} // namespace

StackPool::StackPool(size_t stackBytes)
    : bytes((stackBytes + pageSize() - 1) / pageSize() * pageSize()) {}

StackPool::~StackPool() {
  for (void *mapping : mappings)
    munmap(mapping, bytes + pageSize());
}

boost::context::stack_context StackPool::allocate() {
  void *low;
  if (!idle.empty()) {
    low = idle.back();
    idle.pop_back();
    // The previous fiber's frames may have left AddressSanitizer's redzones
    // poisoned: the new fiber starts on a clean stack.
    unpoisonStack(low, bytes);
  } else {
    // MAP_NORESERVE: only the pages a kernel touches cost memory.
    void *mapping = mmap(nullptr, bytes + pageSize(), PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapping == MAP_FAILED)
      throw std::bad_alloc();
    mprotect(mapping, pageSize(), PROT_NONE); // the guard page
    mappings.push_back(mapping);
    low = static_cast<char *>(mapping) + pageSize();
  }
  boost::context::stack_context stack;
  stack.size = bytes;
  stack.sp = static_cast<char *>(low) + bytes; // stacks grow down
  return stack;
}

void StackPool::deallocate(boost::context::stack_context &stack) {
  idle.push_back(static_cast<char *>(stack.sp) - stack.size);
}

} // namespace gnnrt::cudaemu
