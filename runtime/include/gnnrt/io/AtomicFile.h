//===- AtomicFile.h - Write a file under a temporary name -------*- C++ -*-===//
//
// Internal to gnnrt. Outputs that other programs read (checkpoints,
// predictions) are written to `<path>.tmp` and renamed into place only when
// complete, so a crash, a full disk or an error halfway never leaves a
// truncated file under the real name. An AtomicFile destroyed before
// commit() removes its temporary file.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_IO_ATOMICFILE_H
#define GNNRT_IO_ATOMICFILE_H

#include <cstddef>
#include <cstdio>
#include <string>

namespace gnnrt {

class AtomicFile {
public:
  /// Creates `<path>.tmp`; throws DataError naming `path` if it cannot.
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile &) = delete;
  AtomicFile &operator=(const AtomicFile &) = delete;

  /// The temporary file, for fprintf/fwrite; errors surface in commit().
  std::FILE *stream() { return file; }
  void write(const void *data, size_t bytes) {
    if (bytes)
      std::fwrite(data, 1, bytes, file);
  }
  /// Flushes, closes and renames onto the real path; throws DataError (and
  /// removes the temporary file) if any write failed.
  void commit();

private:
  std::string path, tempPath;
  std::FILE *file = nullptr;
};

} // namespace gnnrt

#endif // GNNRT_IO_ATOMICFILE_H
