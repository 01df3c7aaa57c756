//===- MappedFeatureRows.h - feature rows read in place ---------*- C++ -*-===//
//
// Internal to gnnrt. A part whose owned nodes are consecutive ids (node
// blocks) has as its feature rows one slice of the dataset's features.npy.
// Out-of-core training maps that slice read-only instead of copying it into
// the partition directory and again into the part's file: a graph larger
// than the disk's share for it then trains with its features on disk once.
// The pages are clean and file-backed, so dropping them costs nothing (no
// write-back) and the next turn reads them from the page cache or the disk.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_MAPPEDFEATUREROWS_H
#define GNNRT_LIB_TRAIN_MAPPEDFEATUREROWS_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace gnnrt {

class MappedFeatureRows {
public:
  MappedFeatureRows() = default;
  /// Maps rows [first, first + count) of `path`, which must be a float32
  /// .npy matrix of `numRows` x `width` holding all its data (DataError
  /// naming the file otherwise: another dtype or shape, truncated, a nan
  /// or inf row, read once to check). Inside
  /// an ArenaScope the rows are mapped into that part's arena
  /// (FileArena::mapReadOnly), so that they leave RAM with its pages;
  /// otherwise anywhere, unmapped with this object.
  MappedFeatureRows(const std::string &path, int64_t numRows, int64_t width,
                    int64_t first, int64_t count);
  ~MappedFeatureRows();
  MappedFeatureRows(MappedFeatureRows &&other) noexcept;
  MappedFeatureRows &operator=(MappedFeatureRows &&other) noexcept;
  MappedFeatureRows(const MappedFeatureRows &) = delete;
  MappedFeatureRows &operator=(const MappedFeatureRows &) = delete;

  /// The first row (null when nothing is mapped).
  const float *data() const { return rows; }
  explicit operator bool() const { return rows != nullptr; }

private:
  void unmap() noexcept;

  const float *rows = nullptr;
  /// The mapping this object unmaps; null when an arena holds it (its
  /// range goes back to the arena's reserved space with the arena).
  void *ownMapping = nullptr;
  size_t ownBytes = 0;
};

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_MAPPEDFEATUREROWS_H
