//===- MappedFeatureRows.cpp - a part's feature rows read in place --------===//
//
// See MappedFeatureRows.h.
//
//===----------------------------------------------------------------------===//

#include "MappedFeatureRows.h"

#include "FileArena.h"
#include "gnnrt/data/DatasetSlice.h"
#include "gnnrt/io/Npy.h"
#include "gnnrt/support/Error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>

namespace gnnrt {

namespace {
std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}
} // namespace

MappedFeatureRows::MappedFeatureRows(const std::string &path, int64_t numRows,
                                     int64_t width, int64_t first,
                                     int64_t count) {
  // The header and the file's size (readNpyHeader reports a truncated
  // file): the mapping must never reach past the end of the file, where a
  // read would be SIGBUS instead of an error.
  const NpyHeader header = readNpyHeader(path);
  const std::vector<int64_t> expected{numRows, width};
  if (header.type != NpyType::Float32 || header.shape != expected)
    throwDataError(path, 0,
                   std::string("the feature rows are read in place: expected "
                               "a '") +
                       npyDescr(NpyType::Float32) + "' array of shape " +
                       shapeText(expected) + ", found '" +
                       npyDescr(header.type) + "' of shape " +
                       shapeText(header.shape));
  if (first < 0 || count < 0 || first + count > numRows)
    throwDataError(path, 0,
                   "rows [" + std::to_string(first) + ", " +
                       std::to_string(first + count) +
                       ") lie outside the matrix's " + std::to_string(numRows));
  if (count == 0 || width == 0)
    return;
  const size_t rowBytes = size_t(width) * sizeof(float);
  const size_t begin = header.dataOffset + size_t(first) * rowBytes;
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const size_t start = begin / page * page;
  const size_t bytes = begin - start + size_t(count) * rowBytes;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throwDataError(path, 0,
                   std::string("cannot open: ") + std::strerror(errno));
  const char *at = nullptr;
  int error = 0;
  if (FileArena *arena = FileArena::current()) {
    at = static_cast<const char *>(arena->mapReadOnly(fd, start, bytes));
    if (!at)
      error = errno;
  } else {
    void *p = mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, off_t(start));
    if (p == MAP_FAILED) {
      error = errno;
    } else {
      ownMapping = p;
      ownBytes = bytes;
      at = static_cast<const char *>(p);
    }
  }
  close(fd); // the mapping keeps the file
  if (!at)
    throwDataError(path, 0,
                   "cannot map the feature rows: " +
                       std::string(std::strerror(error)));
  rows = reinterpret_cast<const float *>(at + (begin - start));
  // Checked as the loaders check theirs: one pass over the rows, in the
  // part's turn (an arena's pages leave RAM with the part's).
  try {
    checkFiniteRows(path, rows, count * width, width, first);
  } catch (...) {
    unmap();
    throw;
  }
}

MappedFeatureRows::~MappedFeatureRows() { unmap(); }

MappedFeatureRows::MappedFeatureRows(MappedFeatureRows &&other) noexcept {
  *this = std::move(other);
}

MappedFeatureRows &
MappedFeatureRows::operator=(MappedFeatureRows &&other) noexcept {
  if (this != &other) {
    unmap();
    rows = std::exchange(other.rows, nullptr);
    ownMapping = std::exchange(other.ownMapping, nullptr);
    ownBytes = std::exchange(other.ownBytes, 0);
  }
  return *this;
}

void MappedFeatureRows::unmap() noexcept {
  if (ownMapping)
    munmap(ownMapping, ownBytes);
  ownMapping = nullptr;
  ownBytes = 0;
  rows = nullptr;
}

} // namespace gnnrt
