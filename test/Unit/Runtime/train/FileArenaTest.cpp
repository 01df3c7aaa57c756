//===- FileArenaTest.cpp - large allocations backed by a file -------------===//
//
// Under an ArenaScope large allocations live in the arena's file: their
// contents survive dropPages() (read back from the file), freeing returns
// their bytes, and small or out-of-scope allocations stay on the heap.
//
//===----------------------------------------------------------------------===//

#include "train/offload/FileArena.h"

#include "gnnrt/support/Error.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

using namespace gnnrt;

namespace {

std::string scratchDirectory() {
  const char *tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

} // namespace

TEST(FileArena, LargeAllocationsLiveInTheFileAndSurviveDroppedPages) {
  FileArena arena(scratchDirectory(), 0);
  std::vector<float> big, small, outside;
  {
    ArenaScope scope(&arena);
    big.resize(1 << 20); // 4 MiB
    std::iota(big.begin(), big.end(), 0.0f);
    small.resize(16);
  }
  outside.resize(1 << 20);
  // The block: the bytes rounded up to pages, with its header.
  EXPECT_EQ(arena.bytesInUse(), int64_t(4 << 20) + 4096);
  arena.dropPages();
  for (size_t i = 0; i < big.size(); i += 4099)
    ASSERT_EQ(big[i], float(i));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big.data()) % 64, 0u);
  const float *first = big.data();
  big = std::vector<float>();
  EXPECT_EQ(arena.bytesInUse(), 0);
  EXPECT_EQ(arena.peakBytes(), int64_t(4 << 20) + 4096);
  // The freed block keeps its pages in RAM until the next dropPages().
  EXPECT_EQ(arena.residentBytes(), int64_t(4 << 20) + 4096);
  arena.dropPages();
  EXPECT_EQ(arena.residentBytes(), 0);
  // A block at most twice as large as asked for is reused, in place.
  {
    ArenaScope scope(&arena);
    std::vector<float> again(3 << 18); // 3 MiB
    EXPECT_EQ(static_cast<const void *>(again.data()),
              static_cast<const void *>(first));
    EXPECT_EQ(arena.bytesInUse(), int64_t(4 << 20) + 4096);
    EXPECT_EQ(again[12345], 0.0f);
  }
  EXPECT_EQ(arena.bytesInUse(), 0);
  EXPECT_EQ(arena.peakBytes(), int64_t(4 << 20) + 4096);
}

TEST(FileArena, ADirectoryThatCannotHoldTheFileIsAnError) {
  try {
    FileArena arena("/nonexistent-offload-dir", 3);
    FAIL() << "no error";
  } catch (const DataError &e) {
    EXPECT_STREQ(e.what(), "--offload /nonexistent-offload-dir: cannot "
                           "create a file there (No such file or directory)");
  }
}
