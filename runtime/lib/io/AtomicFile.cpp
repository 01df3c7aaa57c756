//===- AtomicFile.cpp - Write a file under a temporary name ---------------===//

#include "gnnrt/io/AtomicFile.h"

#include "gnnrt/support/Error.h"
#include "gnnrt/support/TempFiles.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>
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
  // On disk before the rename, so that a crash never leaves the new name on
  // a file whose data was still in the page cache (a torn checkpoint). A
  // device or pipe written in place has nothing to sync (fsync fails there).
  if (!writeFailed &&
      (std::fflush(file) != 0 ||
       (!tempPath.empty() && ::fsync(fileno(file)) != 0))) {
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
  } else if (tempPath.empty()) {
    return; // written in place
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
      unregisterTempFile(tempPath);
      return;
    }
    problem = ec.message();
  }
  removeTemp();
  throwDataError(path, 0, "cannot write file: " + problem);
}

} // namespace gnnrt

void gnnrt::writeDirectoryWhole(
    const std::string &out,
    const std::function<void(const std::string &)> &write) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(out, ec) &&
      !(fs::is_directory(out, ec) && fs::is_empty(out, ec)))
    throwDataError(out, 0, "exists and is not an empty directory");
  const std::string temp = out + ".partial";
  fs::remove_all(temp, ec);
  registerTempDirectory(temp);
  struct Forget {
    const std::string &path;
    ~Forget() { unregisterTempFile(path); }
  } forget{temp};
  try {
    write(temp);
    fs::remove(out, ec);
    fs::rename(temp, out);
  } catch (...) {
    fs::remove_all(temp, ec);
    throw;
  }
}
