//===- AtomicFile.cpp - Write a file under a temporary name ---------------===//

#include "gnnrt/io/AtomicFile.h"

#include "gnnrt/support/Error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

namespace gnnrt {

AtomicFile::AtomicFile(std::string target)
    : path(std::move(target)), tempPath(path + ".tmp") {
  file = std::fopen(tempPath.c_str(), "wb");
  if (!file)
    throwDataError(path, 0,
                   std::string("cannot create file: ") + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (!file)
    return;
  std::fclose(file);
  std::error_code ec;
  std::filesystem::remove(tempPath, ec);
}

void AtomicFile::commit() {
  // ferror catches a failed fwrite; fclose flushes and can fail on its own
  // (a full disk often shows up only then).
  bool writeFailed = std::ferror(file) != 0;
  int writeErrno = errno;
  // On disk before the rename, so that a crash never leaves the new name on
  // a file whose data was still in the page cache (a torn checkpoint).
  if (!writeFailed && (std::fflush(file) != 0 || ::fsync(fileno(file)) != 0)) {
    writeFailed = true;
    writeErrno = errno;
  }
  if (std::fclose(file) != 0 && !writeFailed) {
    writeFailed = true;
    writeErrno = errno;
  }
  file = nullptr;
  std::string problem;
  if (writeFailed) {
    problem = std::strerror(writeErrno);
  } else {
    std::error_code ec;
    std::filesystem::rename(tempPath, path, ec);
    if (!ec) {
      // The rename itself is durable once its directory is synced.
      std::string dir = std::filesystem::path(path).parent_path().string();
      int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
      if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
      }
      return;
    }
    problem = ec.message();
  }
  std::error_code ignored;
  std::filesystem::remove(tempPath, ignored);
  throwDataError(path, 0, "cannot write file: " + problem);
}

} // namespace gnnrt
