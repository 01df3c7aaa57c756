//===- DatasetCache.cpp - Binary dataset cache ----------------------------===//
//
// Cache file layout (native little-endian):
//   the 8-byte magic "GNNRTDS3" (the format version: a file of another
//     version is simply rebuilt),
//   int64 source count, then per source file: int64 path length, the path,
//     int64 size, int64 modification time (ns),
//   eleven int64 counts (nodes, features, classes, edges, train, valid,
//     test, feature values, labels, edge types, description bytes),
//   the arrays features (float32), labels, train, valid, test, src, dst
//     (int64), edge types (int32),
//   the description: the split presence flags and source, the target type,
//     the node types and the relations (int64 fields, strings as an int64
//     length and the bytes),
//   a uint64 checksum of the counts, the arrays and the description.
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

#include "gnnrt/support/Checksum.h"
#include "gnnrt/support/TempFiles.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sys/stat.h>
#include <type_traits>
#include <unistd.h>

namespace fs = std::filesystem;

namespace gnnrt {

namespace {
constexpr char kMagic[8] = {'G', 'N', 'N', 'R', 'T', 'D', 'S', '3'};
constexpr int kNumCounts = 11;
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

/// The fields of a Dataset that are not arrays of numbers, as bytes.
std::string describe(const Dataset &ds) {
  std::string out;
  auto integer = [&](int64_t v) {
    out.append(reinterpret_cast<const char *>(&v), sizeof v);
  };
  auto text = [&](const std::string &s) {
    integer(int64_t(s.size()));
    out += s;
  };
  for (bool present : ds.hasSplits)
    integer(present);
  text(ds.splitSource);
  integer(ds.targetType);
  integer(int64_t(ds.nodeTypes.size()));
  for (const NodeType &t : ds.nodeTypes) {
    text(t.name);
    integer(t.offset);
    integer(t.count);
    integer(t.hasFeatures);
  }
  integer(int64_t(ds.relations.size()));
  for (const RelationType &r : ds.relations) {
    text(r.name);
    integer(r.srcType);
    integer(r.dstType);
    integer(r.inverseOf);
  }
  return out;
}

/// The inverse of describe(); false if `bytes` is not exactly one
/// description (consistent() checks the values).
bool parseDescription(const std::string &bytes, Dataset &ds) {
  size_t pos = 0;
  auto integer = [&](int64_t &v) {
    if (bytes.size() - pos < sizeof v)
      return false;
    std::memcpy(&v, bytes.data() + pos, sizeof v);
    pos += sizeof v;
    return true;
  };
  auto small = [&](auto &field) {
    int64_t v;
    if (!integer(v) || v < INT32_MIN || v > INT32_MAX)
      return false;
    field = static_cast<std::remove_reference_t<decltype(field)>>(v);
    return true;
  };
  auto text = [&](std::string &s) {
    int64_t length;
    if (!integer(length) || length < 0 || uint64_t(length) > bytes.size() - pos)
      return false;
    s.assign(bytes, pos, size_t(length));
    pos += size_t(length);
    return true;
  };
  for (size_t k = 0; k < ds.hasSplits.size(); ++k) {
    int64_t present;
    if (!integer(present))
      return false;
    ds.hasSplits[k] = present != 0;
  }
  int64_t numTypes, numRelations;
  if (!text(ds.splitSource) || !small(ds.targetType) || !integer(numTypes) ||
      numTypes < 0 || uint64_t(numTypes) > bytes.size())
    return false;
  ds.nodeTypes.resize(size_t(numTypes));
  for (NodeType &t : ds.nodeTypes)
    if (!text(t.name) || !integer(t.offset) || !integer(t.count) ||
        !small(t.hasFeatures))
      return false;
  if (!integer(numRelations) || numRelations < 0 ||
      uint64_t(numRelations) > bytes.size())
    return false;
  ds.relations.resize(size_t(numRelations));
  for (RelationType &r : ds.relations)
    if (!text(r.name) || !small(r.srcType) || !small(r.dstType) ||
        !small(r.inverseOf))
      return false;
  return pos == bytes.size();
}

/// The node types tile [0, numNodes) in order and every type or relation
/// id is in range.
bool consistentTypes(const Dataset &ds) {
  const int64_t numTypes = int64_t(ds.nodeTypes.size());
  const int64_t numRelations = int64_t(ds.relations.size());
  if (ds.targetType < -1 || ds.targetType >= numTypes)
    return false;
  if (numTypes == 0)
    return numRelations == 0 && ds.edgeType.empty();
  int64_t next = 0;
  for (const NodeType &t : ds.nodeTypes) {
    if (t.offset != next || t.count < 0)
      return false;
    next += t.count;
  }
  if (next != ds.numNodes || ds.edgeType.size() != ds.src.size())
    return false;
  for (const RelationType &r : ds.relations)
    if (r.srcType < -1 || r.srcType >= numTypes || r.dstType < -1 ||
        r.dstType >= numTypes || r.inverseOf < -1 ||
        r.inverseOf >= numRelations)
      return false;
  return std::all_of(ds.edgeType.begin(), ds.edgeType.end(),
                     [&](int32_t r) { return r >= 0 && r < numRelations; });
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
      ds.src.size() != ds.dst.size() || !consistentTypes(ds))
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
    // The NumPy layouts' arrays, and the typed one's types.json.
    if (entry.is_regular_file(ec) && (entry.path().extension() == ".npy" ||
                                      entry.path().filename() == "types.json"))
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
                       4 * uintmax_t(c[9]) + uintmax_t(c[10]) + 8;
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
  ds.edgeType.resize(size_t(c[9]));
  std::string description(size_t(c[10]), '\0');
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
      !read(ds.dst) || !read(ds.edgeType) || !read(description) ||
      std::fread(&stored, 8, 1, f.get()) != 1 || stored != sum.value() ||
      !parseDescription(description, ds) || !consistent(ds))
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
    const std::string description = describe(ds);
    int64_t c[kNumCounts] = {ds.numNodes,
                             ds.numFeatures,
                             ds.numClasses,
                             ds.numEdges(),
                             int64_t(ds.trainIdx.size()),
                             int64_t(ds.validIdx.size()),
                             int64_t(ds.testIdx.size()),
                             int64_t(ds.features.size()),
                             int64_t(ds.labels.size()),
                             int64_t(ds.edgeType.size()),
                             int64_t(description.size())};
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
         write(ds.dst) && write(ds.edgeType) && write(description);
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
