//===- Checksum.h - A fast stable checksum of bytes -------------*- C++ -*-===//
//
// Internal to gnnrt. The caches beside a dataset (DatasetCache.h,
// AssignmentCache.h) name and check their files by checksums that must be
// the same on every rank, run and platform, which std::hash is not.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SUPPORT_CHECKSUM_H
#define GNNRT_SUPPORT_CHECKSUM_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gnnrt {

/// 64-bit FNV-1a over 8-byte words (then the tail bytes): it keeps up with
/// the disk on a 100 MB cache.
class Checksum {
public:
  void add(const void *data, size_t bytes) {
    const unsigned char *p = static_cast<const unsigned char *>(data);
    size_t words = bytes / 8;
    for (size_t i = 0; i < words; ++i) {
      uint64_t w;
      std::memcpy(&w, p + 8 * i, 8);
      h = (h ^ w) * kPrime;
    }
    for (size_t i = 8 * words; i < bytes; ++i)
      h = (h ^ p[i]) * kPrime;
  }
  /// A value, with its size, so that adjacent fields cannot trade bytes.
  template <typename T> void addValue(const T &value) {
    add(&value, sizeof(T));
  }
  template <typename T> void addVector(const std::vector<T> &values) {
    addValue(uint64_t(values.size()));
    add(values.data(), values.size() * sizeof(T));
  }
  void addString(const std::string &text) {
    addValue(uint64_t(text.size()));
    add(text.data(), text.size());
  }
  uint64_t value() const { return h; }

private:
  static constexpr uint64_t kPrime = 0x100000001b3ull;
  uint64_t h = 0xcbf29ce484222325ull;
};

} // namespace gnnrt

#endif // GNNRT_SUPPORT_CHECKSUM_H
