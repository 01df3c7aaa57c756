//===- AtomicFile.cpp - Write a file under a temporary name ---------------===//

#include "gnnrt/io/AtomicFile.h"

#include "gnnrt/support/Error.h"
#include "gnnrt/support/TempFiles.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>

namespace gnnrt {

AtomicFile::AtomicFile(std::string target) : path(std::move(target)) {
  // A device, FIFO or socket (/dev/stdout, /dev/null, a pipe) is written in
  // place: renaming a regular file over it would replace the device node.
  struct stat info;
  const bool special = ::stat(path.c_str(), &info) == 0 &&
                       !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode);
  if (!special) {
    tempPath = path + ".tmp";
    registerTempFile(tempPath);
  }
  file = std::fopen(special ? path.c_str() : tempPath.c_str(), "wb");
  if (!file) {
    int error = errno;
    if (!special)
      unregisterTempFile(tempPath);
    throwDataError(path, 0,
                   std::string("cannot create file: ") + std::strerror(error));
  }
}

AtomicFile::~AtomicFile() {
  if (!file)
    return;
  std::fclose(file);
  removeTemp();
}

void AtomicFile::removeTemp() {
  if (tempPath.empty())
    return;
  std::error_code ec;
  std::filesystem::remove(tempPath, ec);
  unregisterTempFile(tempPath);
}

void AtomicFile::commit() {
  // ferror catches a failed fwrite; fclose flushes and can fail on its own
  // (a full disk often shows up only then).
  bool writeFailed = std::ferror(file) != 0;
  int writeErrno = errno;
  if (std::fclose(file) != 0 && !writeFailed) {
    writeFailed = true;
    writeErrno = errno;
  }
  file = nullptr;
  std::string problem;
  if (writeFailed) {
    problem = std::strerror(writeErrno);
  } else if (tempPath.empty()) {
    return; // written in place
  } else {
    std::error_code ec;
    std::filesystem::rename(tempPath, path, ec);
    if (!ec) {
      unregisterTempFile(tempPath);
      return;
    }
    problem = ec.message();
  }
  removeTemp();
  throwDataError(path, 0, "cannot write file: " + problem);
}

} // namespace gnnrt
