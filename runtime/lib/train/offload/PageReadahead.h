//===- PageReadahead.h - the next partition's pages, read ahead -*- C++ -*-===//
//
// Internal to gnnrt. Out-of-core training drops a partition's pages when
// it leaves RAM, and its next turn faults them in again: from the page
// cache if they are still there, from its file on disk if the kernel
// evicted them (a machine, or cgroup, whose memory the budget fills). The
// reader thread here asks the kernel to read the next partition's file
// into the page cache (MADV_WILLNEED) while the current one computes, so
// the next turn's faults find its pages cached. The pages are not mapped,
// so they do not count towards the process's RSS; the kernel may reclaim
// them again under pressure.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_PAGEREADAHEAD_H
#define GNNRT_LIB_TRAIN_PAGEREADAHEAD_H

#include <condition_variable>
#include <mutex>
#include <thread>

namespace gnnrt {

class FileArena;

class PageReadahead {
public:
  PageReadahead();
  /// Waits for a read-ahead under way, then ends the thread.
  ~PageReadahead();
  PageReadahead(const PageReadahead &) = delete;
  PageReadahead &operator=(const PageReadahead &) = delete;

  /// Reads `arena`'s pages into the page cache on the reader thread; a
  /// request not yet started is replaced (only the next turn matters).
  void request(FileArena *arena);
  /// Read-aheads started so far.
  int64_t requests() const { return started; }

private:
  void loop();

  std::mutex mutex;
  std::condition_variable wake;
  FileArena *pending = nullptr;
  bool stopping = false;
  int64_t started = 0;
  std::thread thread;
};

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_PAGEREADAHEAD_H
