//===- DatasetCache.cpp - Binary dataset cache ----------------------------===//
//
// Cache file layout (native little-endian):
//   the 8-byte magic "GNNRTDS2" (the format version: a file of another
//     version is simply rebuilt),
//   int64 source count, then per source file: int64 path length, the path,
//     int64 size, int64 modification time (ns),
//   nine int64 counts (nodes, features, classes, edges, train, valid, test,
//     feature values, labels),
//   the arrays features (float32), labels, train, valid, test, src, dst
//     (int64),
//   a uint64 checksum of the counts and the arrays.
// Nothing is trusted before it is checked: the sources must be the same
// files with the same sizes and times, the file size must be exact, the
// checksum must match, and the arrays must be consistent with the counts
// (features = nodes x width, labels < classes, ids < nodes). Any mismatch
// (an edited, foreign, torn or stale cache) means the sources are parsed
// again and the cache rewritten; a bad cache is never an error and never
// garbage.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/DatasetCache.h"

#include "gnnrt/support/TempFiles.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace gnnrt {

namespace {
constexpr char kMagic[8] = {'G', 'N', 'N', 'R', 'T', 'D', 'S', '2'};
constexpr int kNumCounts = 9;
/// How long a temporary of another host's writer may stay unchanged before
/// it is taken for a leftover.
constexpr std::chrono::hours kForeignTemporaryLifetime{24};

struct FileCloser {
  void operator()(FILE *f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

/// 64-bit FNV-1a: stable across platforms and runs, unlike std::hash.
uint64_t fnv1a(const std::string &text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text)
    h = (h ^ c) * 0x100000001b3ull;
  return h;
}

/// FNV-1a over 8-byte words (then the tail bytes): a checksum of the cache's
/// payload that keeps up with the disk on a 100 MB cache.
class Checksum {
public:
  void add(const void *data, size_t bytes) {
    const unsigned char *p = static_cast<const unsigned char *>(data);
    size_t words = bytes / 8;
    for (size_t i = 0; i < words; ++i) {
      uint64_t w;
      std::memcpy(&w, p + 8 * i, 8);
      h = (h ^ w) * 0x100000001b3ull;
    }
    for (size_t i = 8 * words; i < bytes; ++i)
      h = (h ^ p[i]) * 0x100000001b3ull;
  }
  uint64_t value() const { return h; }

private:
  uint64_t h = 0xcbf29ce484222325ull;
};

/// What the cache records of one source file.
struct SourceStamp {
  std::string path;
  int64_t size = 0, mtimeNs = 0;
};

bool stampSources(const std::vector<std::string> &sources,
                  std::vector<SourceStamp> &stamps) {
  stamps.clear();
  for (const std::string &source : sources) {
    struct stat info;
    if (::stat(source.c_str(), &info) != 0)
      return false;
    stamps.push_back({source, int64_t(info.st_size),
                      int64_t(info.st_mtim.tv_sec) * 1000000000 +
                          int64_t(info.st_mtim.tv_nsec)});
  }
  return true;
}

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0)
    return "localhost";
  // The name is a field of the temporary's name: '/' cannot occur in it.
  std::string host = name;
  std::replace(host.begin(), host.end(), '/', '_');
  return host;
}

/// `CACHE.tmp.HOST.PID`: who writes it, so that a later load can tell a
/// temporary whose writer is gone.
std::string temporaryName(const std::string &cacheFile) {
  return cacheFile + ".tmp." + hostName() + "." + std::to_string(::getpid());
}

/// The arrays agree with the counts and with each other: what the trainer
/// indexes with is in range.
bool consistent(const Dataset &ds) {
  const int64_t n = ds.numNodes;
  if (n < 0 || ds.numFeatures < 0 || ds.numClasses < 0 ||
      int64_t(ds.features.size()) != n * ds.numFeatures ||
      (!ds.labels.empty() && int64_t(ds.labels.size()) != n) ||
      ds.src.size() != ds.dst.size())
    return false;
  for (int64_t label : ds.labels)
    if (label < -1 || label >= ds.numClasses)
      return false;
  auto inRange = [n](const std::vector<int64_t> &ids) {
    return std::all_of(ids.begin(), ids.end(),
                       [n](int64_t v) { return v >= 0 && v < n; });
  };
  return inRange(ds.trainIdx) && inRange(ds.validIdx) &&
         inRange(ds.testIdx) && inRange(ds.src) && inRange(ds.dst);
}
} // namespace

std::string datasetCachePath(const std::string &dir,
                             const LoadOptions &options) {
  std::string key = std::string(kMagic, 8) +
                    "|reverse=" + std::to_string(options.addReverseEdges) +
                    "|loops=" + std::to_string(options.addSelfLoops) +
                    "|dedupe=" + std::to_string(options.dedupe) +
                    "|split=" + options.splitName +
                    "|classes=" + std::to_string(options.numClasses);
  std::string where = options.cacheDir.empty() ? dir : options.cacheDir;
  if (!options.cacheDir.empty()) {
    // A shared cache directory serves many datasets: key on which one.
    std::error_code ec;
    key += "|dir=" + fs::absolute(dir, ec).lexically_normal().string();
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx",
                static_cast<unsigned long long>(fnv1a(key)));
  return where + "/.gnnrt-cache-" + hex + ".bin";
}

std::vector<std::string> datasetSourceFiles(const std::string &dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const char *sub : {"raw", "split"}) {
    std::string root = dir + "/" + sub;
    if (!fs::is_directory(root, ec))
      continue;
    for (const auto &entry : fs::recursive_directory_iterator(root, ec))
      if (entry.is_regular_file(ec))
        files.push_back(entry.path().string());
  }
  for (const auto &entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file(ec) && entry.path().extension() == ".npy")
      files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::optional<Dataset>
readDatasetCache(const std::string &cacheFile,
                 const std::vector<std::string> &sources) {
  std::error_code ec;
  uintmax_t fileSize = fs::file_size(cacheFile, ec);
  if (ec)
    return std::nullopt;
  FilePtr f(std::fopen(cacheFile.c_str(), "rb"));
  if (!f)
    return std::nullopt;
  auto readInt = [&](int64_t &value) {
    return std::fread(&value, sizeof value, 1, f.get()) == 1;
  };
  char magic[8];
  if (std::fread(magic, 1, 8, f.get()) != 8 ||
      std::memcmp(magic, kMagic, 8) != 0)
    return std::nullopt;

  // The same source files, unchanged since the cache was written.
  std::vector<SourceStamp> now;
  if (!stampSources(sources, now))
    return std::nullopt;
  int64_t numSources;
  if (!readInt(numSources) || numSources != int64_t(now.size()))
    return std::nullopt;
  uintmax_t headerBytes = 16;
  for (const SourceStamp &stamp : now) {
    int64_t length, size, mtime;
    if (!readInt(length) || length != int64_t(stamp.path.size()))
      return std::nullopt;
    std::string path(size_t(length), '\0');
    if (std::fread(path.data(), 1, path.size(), f.get()) != path.size() ||
        path != stamp.path || !readInt(size) || size != stamp.size ||
        !readInt(mtime) || mtime != stamp.mtimeNs)
      return std::nullopt;
    headerBytes += 24 + path.size();
  }

  int64_t c[kNumCounts];
  if (std::fread(c, sizeof(int64_t), kNumCounts, f.get()) != kNumCounts)
    return std::nullopt;
  for (int64_t count : c)
    if (count < 0 || count > (int64_t(1) << 40))
      return std::nullopt;
  uintmax_t expected = headerBytes + 8 * kNumCounts + 4 * uintmax_t(c[7]) +
                       8 * uintmax_t(c[8] + c[4] + c[5] + c[6] + 2 * c[3]) +
                       8;
  if (fileSize != expected)
    return std::nullopt;

  Dataset ds;
  ds.numNodes = c[0];
  ds.numFeatures = c[1];
  ds.numClasses = c[2];
  ds.features.resize(size_t(c[7]));
  ds.labels.resize(size_t(c[8]));
  ds.trainIdx.resize(size_t(c[4]));
  ds.validIdx.resize(size_t(c[5]));
  ds.testIdx.resize(size_t(c[6]));
  ds.src.resize(size_t(c[3]));
  ds.dst.resize(size_t(c[3]));
  Checksum sum;
  sum.add(c, sizeof c);
  auto read = [&](auto &v) {
    if (std::fread(v.data(), sizeof(v[0]), v.size(), f.get()) != v.size())
      return false;
    sum.add(v.data(), v.size() * sizeof(v[0]));
    return true;
  };
  uint64_t stored;
  if (!read(ds.features) || !read(ds.labels) || !read(ds.trainIdx) ||
      !read(ds.validIdx) || !read(ds.testIdx) || !read(ds.src) ||
      !read(ds.dst) || std::fread(&stored, 8, 1, f.get()) != 1 ||
      stored != sum.value() || !consistent(ds))
    return std::nullopt;
  return ds;
}

int removeStaleCacheTemporaries(const std::string &cacheFile) {
  const fs::path cache(cacheFile);
  const std::string prefix = cache.filename().string() + ".tmp.";
  const std::string host = hostName();
  std::error_code ec;
  fs::directory_iterator it(
      cache.has_parent_path() ? cache.parent_path() : fs::path("."), ec);
  if (ec)
    return 0;
  int removed = 0;
  // increment(ec), not ++: an unreadable directory ends the scan quietly.
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec)
      break;
    const fs::directory_entry &entry = *it;
    const std::string name = entry.path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0)
      continue;
    // HOST.PID (or PID alone, as older versions named it).
    const std::string writer = name.substr(prefix.size());
    const size_t dot = writer.rfind('.');
    const std::string pidText =
        dot == std::string::npos ? writer : writer.substr(dot + 1);
    const std::string writerHost =
        dot == std::string::npos ? host : writer.substr(0, dot);
    char *end = nullptr;
    const long pid = std::strtol(pidText.c_str(), &end, 10);
    if (pidText.empty() || *end || pid <= 0)
      continue;
    bool stale;
    if (writerHost == host) {
      stale = ::kill(pid_t(pid), 0) != 0 && errno == ESRCH;
    } else {
      // Another host's writer cannot be asked; one that is alive keeps
      // writing, so a day without a change means it is gone.
      std::error_code timeError;
      const fs::file_time_type written = fs::last_write_time(entry, timeError);
      stale = !timeError && fs::file_time_type::clock::now() - written >
                                kForeignTemporaryLifetime;
    }
    std::error_code removeError;
    if (stale && fs::remove(entry.path(), removeError))
      ++removed;
  }
  return removed;
}

bool writeDatasetCache(const std::string &cacheFile, const Dataset &ds,
                       const std::vector<std::string> &sources) {
  std::vector<SourceStamp> stamps;
  if (!stampSources(sources, stamps))
    return false;
  // A per-process temp name: ranks sharing a file system may race to write
  // the same cache; each renames a complete file, the last one wins. A
  // temporary is never read (only the exact name is), so a writer killed
  // halfway leaves no cache, only the temporary, which SIGTERM and SIGINT
  // remove as well, and after SIGKILL the next load
  // (removeStaleCacheTemporaries).
  std::string temp = temporaryName(cacheFile);
  registerTempFile(temp);
  bool ok;
  {
    FilePtr f(std::fopen(temp.c_str(), "wb"));
    if (!f) {
      unregisterTempFile(temp);
      return false;
    }
    int64_t c[kNumCounts] = {ds.numNodes,
                             ds.numFeatures,
                             ds.numClasses,
                             ds.numEdges(),
                             int64_t(ds.trainIdx.size()),
                             int64_t(ds.validIdx.size()),
                             int64_t(ds.testIdx.size()),
                             int64_t(ds.features.size()),
                             int64_t(ds.labels.size())};
    Checksum sum;
    sum.add(c, sizeof c);
    auto writeInt = [&](int64_t value) {
      return std::fwrite(&value, sizeof value, 1, f.get()) == 1;
    };
    auto write = [&](const auto &v) {
      sum.add(v.data(), v.size() * sizeof(v[0]));
      return std::fwrite(v.data(), sizeof(v[0]), v.size(), f.get()) ==
             v.size();
    };
    ok = std::fwrite(kMagic, 1, 8, f.get()) == 8 &&
         writeInt(int64_t(stamps.size()));
    for (const SourceStamp &stamp : stamps)
      ok = ok && writeInt(int64_t(stamp.path.size())) &&
           std::fwrite(stamp.path.data(), 1, stamp.path.size(), f.get()) ==
               stamp.path.size() &&
           writeInt(stamp.size) && writeInt(stamp.mtimeNs);
    ok = ok &&
         std::fwrite(c, sizeof(int64_t), kNumCounts, f.get()) == kNumCounts &&
         write(ds.features) && write(ds.labels) && write(ds.trainIdx) &&
         write(ds.validIdx) && write(ds.testIdx) && write(ds.src) &&
         write(ds.dst);
    const uint64_t checksum = sum.value();
    ok = ok && std::fwrite(&checksum, 8, 1, f.get()) == 1 &&
         std::fflush(f.get()) == 0;
  }
  std::error_code ec;
  if (ok)
    fs::rename(temp, cacheFile, ec);
  if (!ok || ec)
    fs::remove(temp, ec);
  unregisterTempFile(temp);
  return ok && !ec;
}

} // namespace gnnrt
