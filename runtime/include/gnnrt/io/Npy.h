//===- Npy.h - Reading and writing NumPy .npy arrays ------------*- C++ -*-===//
//
// The .npy format (numpy/lib/format.py): a magic string, a version, a header
// that is a Python dict literal {'descr': '<f4', 'fortran_order': False,
// 'shape': (N, F), } padded with spaces to a 64-byte boundary, then the raw
// elements. gnnrt reads versions 1.0-3.0, little-endian or byte-order-free
// numeric dtypes, in C order; anything else is a DataError naming the file,
// because silently reinterpreting bytes would corrupt a dataset. The format
// is small enough (one header dict, then raw bytes) to read by hand, and
// Debian packages no C++ library for it.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_IO_NPY_H
#define GNNRT_IO_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// Element types gnnrt understands (the numpy dtype in parentheses).
enum class NpyType {
  Bool,
  Int8,
  UInt8,
  Int16,
  UInt16,
  Int32,
  UInt32,
  Int64,
  UInt64,
  Float32,
  Float64
};

/// The parsed header of an .npy file.
struct NpyHeader {
  NpyType type = NpyType::Float32;
  std::vector<int64_t> shape; ///< empty for a 0-d array
  size_t dataOffset = 0;      ///< byte offset of the first element

  /// Product of the shape (1 for a 0-d array).
  int64_t numElements() const;
};

/// Bytes per element of a type.
size_t npyTypeSize(NpyType type);
/// The numpy descr string for a type, e.g. "<f4".
const char *npyDescr(NpyType type);

/// Parses the header at the start of `bytes` (at least the whole header).
/// `file` only names the source in error messages.
NpyHeader parseNpyHeader(const std::string &file, const char *bytes,
                         size_t size);

/// An .npy array read into memory.
struct NpyArray {
  NpyHeader header;
  std::vector<char> data; ///< the elements' raw little-endian bytes

  /// The elements converted to int64; a float element that is not an
  /// integer is an error unless `nanValue` is given, which replaces NaN.
  std::vector<int64_t> toInt64(const std::string &file,
                               const int64_t *nanValue = nullptr) const;
  /// The elements converted to float32.
  std::vector<float> toFloat32() const;
};

/// Reads a whole .npy file. Throws DataError for a missing or malformed file.
NpyArray readNpy(const std::string &path);

/// Reads only the header of an .npy file (and checks that the file holds
/// all the data it announces).
NpyHeader readNpyHeader(const std::string &path);

/// Reads elements [firstElement, firstElement + numElements) of an .npy file
/// in C order (all from firstElement on if numElements < 0): one rank's
/// share of an array too large for one process. `header` keeps the whole
/// array's shape; `data` holds the range only.
NpyArray readNpySlice(const std::string &path, int64_t firstElement,
                      int64_t numElements);

/// Writes `data` (numElements(shape) elements of `type`, native = little
/// endian) as a version 1.0 .npy file, or 2.0 if the header needs it.
void writeNpy(const std::string &path, NpyType type,
              const std::vector<int64_t> &shape, const void *data);

/// Writes an .npy file in pieces, for an array larger than memory: the
/// header (as writeNpy's) when constructed, then ranges of elements in C
/// order, in any order (a [2, E] edge list's two rows as its edges are
/// drawn). close() checks that as many elements were written as the shape
/// holds. Throws DataError naming the file when a write fails.
class NpyWriter {
public:
  NpyWriter(std::string path, NpyType type, std::vector<int64_t> shape);
  ~NpyWriter();
  NpyWriter(const NpyWriter &) = delete;
  NpyWriter &operator=(const NpyWriter &) = delete;

  /// Elements [firstElement, firstElement + count) from `data`.
  void write(int64_t firstElement, const void *data, int64_t count);
  void close();

private:
  std::string path;
  size_t elementSize = 0, dataOffset = 0;
  int64_t numElements = 0, written = 0;
  int fd = -1;
};

} // namespace gnnrt

#endif // GNNRT_IO_NPY_H
