//===- AtomicFile.h - Write a file under a temporary name -------*- C++ -*-===//
//
// Internal to gnnrt. Outputs that other programs read (checkpoints,
// predictions) are written to `<path>.tmp` and renamed into place only when
// complete, so a crash, a full disk or an error halfway never leaves a
// truncated file under the real name. An AtomicFile destroyed before
// commit() removes its temporary file, and so does SIGTERM or SIGINT
// (support/TempFiles.h). A path that names a device, FIFO or socket
// (/dev/stdout, /dev/null) is written in place instead: renaming over it
// would replace the device with a regular file.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_IO_ATOMICFILE_H
#define GNNRT_IO_ATOMICFILE_H

#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>

namespace gnnrt {

class AtomicFile {
public:
  /// Creates `<path>.tmp` (or opens `path` itself if it is not a regular
  /// file); throws DataError naming `path` if it cannot.
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
  void removeTemp();

  std::string path;
  std::string tempPath; ///< empty when writing a special file in place
  std::FILE *file = nullptr;
};

/// A directory of outputs written whole or not at all: `write` fills
/// `<out>.partial`, which is renamed to `out` once it returns. A throw from
/// `write`, or SIGTERM, leaves nothing behind (after SIGKILL, the next write
/// to `out` removes the leftover). Throws DataError if `out` exists and is
/// not an empty directory.
void writeDirectoryWhole(const std::string &out,
                         const std::function<void(const std::string &)> &write);

} // namespace gnnrt

#endif // GNNRT_IO_ATOMICFILE_H
