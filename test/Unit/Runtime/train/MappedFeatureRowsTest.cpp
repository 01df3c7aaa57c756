//===- MappedFeatureRowsTest.cpp - feature rows read in place -------------===//
//
// A part's rows mapped from the dataset's features.npy are exactly the
// file's rows; inside an ArenaScope they count as the arena's memory and
// come back from the file after dropPages(); a file of another shape or
// cut short, or a nan among the rows, is an error that names it (never a
// mapping past its end).
//
//===----------------------------------------------------------------------===//

#include "train/offload/MappedFeatureRows.h"

#include "gnnrt/io/Npy.h"
#include "gnnrt/support/Error.h"
#include "train/offload/FileArena.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace gnnrt;

namespace {

std::string scratchDirectory() {
  const char *tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

/// A rows x width float32 matrix whose element (r, c) is r * 1000 + c.
std::string writeMatrix(const std::string &name, int64_t rows, int64_t width) {
  std::vector<float> values(size_t(rows * width));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < width; ++c)
      values[size_t(r * width + c)] = float(r * 1000 + c);
  const std::string path =
      scratchDirectory() + "/" + name + std::to_string(getpid()) + ".npy";
  writeNpy(path, NpyType::Float32, {rows, width}, values.data());
  return path;
}

/// RssFile of /proc/self/status: the file pages this process maps.
int64_t fileBackedResidentKiB() {
  std::ifstream status("/proc/self/status");
  std::string key;
  int64_t kib = -1;
  while (status >> key)
    if (key == "RssFile:" && status >> kib)
      return kib;
  return -1;
}

std::string errorOf(const std::string &path, int64_t rows, int64_t width) {
  try {
    MappedFeatureRows(path, rows, width, 0, rows);
  } catch (const DataError &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(MappedFeatureRows, MapsTheRowsOfTheFile) {
  // Rows of 3000 floats: row 5 starts inside a page, not on its boundary.
  const std::string path = writeMatrix("mapped-rows", 12, 3000);
  MappedFeatureRows rows(path, 12, 3000, 5, 4);
  ASSERT_TRUE(rows);
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 3000; c += 7)
      ASSERT_EQ(rows.data()[r * 3000 + c], float((5 + r) * 1000 + c));
  unlink(path.c_str());
}

TEST(MappedFeatureRows, InAnArenaTheyLeaveRamWithItsPages) {
  // 2048 rows of 4 KiB: 8 MiB of the file.
  const std::string path = writeMatrix("mapped-arena", 2048 + 16, 1024);
  FileArena arena(scratchDirectory(), 0);
  MappedFeatureRows rows;
  {
    ArenaScope scope(&arena);
    rows = MappedFeatureRows(path, 2048 + 16, 1024, 16, 2048);
  }
  // The rows start past the header, inside a page: one page more.
  EXPECT_EQ(arena.mappedBytes(), int64_t(2049) * 4096);
  EXPECT_EQ(arena.peakBytes(), int64_t(2049) * 4096);
  float sum = 0;
  for (int64_t i = 0; i < 2048 * 1024; i += 1024)
    sum += rows.data()[i];
  EXPECT_EQ(rows.data()[0], 16000.0f);
  const int64_t touched = fileBackedResidentKiB();
  arena.dropPages();
  // Unmapped from this process (the page cache may keep them).
  EXPECT_GE(touched - fileBackedResidentKiB(), 7 * 1024) << sum;
  // Dropped clean pages come back from the file.
  EXPECT_EQ(rows.data()[2047 * 1024 + 1023], float(2063 * 1000 + 1023));
  unlink(path.c_str());
}

TEST(MappedFeatureRows, AnotherShapeATruncatedFileOrANanIsAnError) {
  std::vector<float> values(80, 1.0f);
  values[3 * 8 + 5] = std::nanf("");
  const std::string nan =
      scratchDirectory() + "/mapped-nan" + std::to_string(getpid()) + ".npy";
  writeNpy(nan, NpyType::Float32, {10, 8}, values.data());
  EXPECT_EQ(errorOf(nan, 10, 8),
            nan + ": feature 5 of node (row) 3 is nan (features must be "
                  "finite numbers)");
  unlink(nan.c_str());
  const std::string path = writeMatrix("mapped-bad", 10, 8);
  EXPECT_EQ(errorOf(path, 10, 9),
            path + ": the feature rows are read in place: expected a '<f4' "
                   "array of shape (10, 9), found '<f4' of shape (10, 8)");
  ASSERT_EQ(truncate(path.c_str(), 200), 0);
  EXPECT_EQ(errorOf(path, 10, 8),
            path + ": truncated: expected 320 data bytes, found 72");
  unlink(path.c_str());
}
