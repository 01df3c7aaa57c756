//===- PageReadahead.cpp - the next partition's pages, read ahead ---------===//
//
// See PageReadahead.h.
//
//===----------------------------------------------------------------------===//

#include "PageReadahead.h"

#include "FileArena.h"

namespace gnnrt {

PageReadahead::PageReadahead() : thread([this] { loop(); }) {}

PageReadahead::~PageReadahead() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_one();
  thread.join();
}

void PageReadahead::request(FileArena *arena) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    pending = arena;
  }
  wake.notify_one();
}

void PageReadahead::loop() {
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    wake.wait(lock, [this] { return stopping || pending; });
    if (stopping)
      return;
    FileArena *arena = pending;
    pending = nullptr;
    ++started;
    // The kernel reads on this thread (madvise may wait for the disk
    // queue): the partition that runs meanwhile is not held up.
    lock.unlock();
    arena->readAhead();
    lock.lock();
  }
}

} // namespace gnnrt
