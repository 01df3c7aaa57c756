//===- Safetensors.h - Reading and writing .safetensors files ---*- C++ -*-===//
//
// Checkpoints use Hugging Face's safetensors format, which Python's
// `safetensors` package and PyTorch load directly: an 8-byte little-endian
// header length N, an N-byte JSON header mapping each tensor name to
// {"dtype", "shape", "data_offsets": [begin, end]} (byte offsets into the
// data that follows) plus an optional "__metadata__" object of strings, then
// the raw little-endian tensor bytes. gnnrt writes and reads F32 tensors
// only; the header is padded with spaces to a multiple of 8 bytes so the
// data stays aligned, as the reference implementation does.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_IO_SAFETENSORS_H
#define GNNRT_IO_SAFETENSORS_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gnnrt {

/// A tensor to write, by reference: `data` holds numElements(shape) floats.
struct TensorRef {
  std::string name;
  std::vector<int64_t> shape;
  const float *data = nullptr;
};

/// A tensor read from a file.
struct StoredTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> data;
};

struct SafetensorsContents {
  std::vector<StoredTensor> tensors; ///< in data-offset order
  std::map<std::string, std::string> metadata;

  /// The tensor called `name`, or null.
  const StoredTensor *find(const std::string &name) const;
};

/// The header bytes (length prefix excluded, padding included) describing
/// `tensors` laid out back to back in the given order.
std::string
safetensorsHeader(const std::vector<TensorRef> &tensors,
                  const std::map<std::string, std::string> &metadata);

/// Writes a safetensors file atomically (via `<path>.tmp`). Throws DataError
/// if the file cannot be written or two tensors share a name.
void writeSafetensors(const std::string &path,
                      const std::vector<TensorRef> &tensors,
                      const std::map<std::string, std::string> &metadata = {});

/// Reads a whole safetensors file. Throws DataError naming the file for a
/// missing or malformed file, or a dtype other than F32.
SafetensorsContents readSafetensors(const std::string &path);

} // namespace gnnrt

#endif // GNNRT_IO_SAFETENSORS_H
