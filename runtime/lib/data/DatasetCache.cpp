//===- DatasetCache.cpp - Binary dataset cache ----------------------------===//
//
// Cache file layout (native little-endian): the 8-byte magic "GNNRTDS1",
// nine int64 counts (nodes, features, classes, edges, train, valid, test,
// feature values, labels), then the arrays features (float32), labels,
// train, valid, test, src, dst (int64). The exact expected size is checked
// before anything is trusted, so a truncated or foreign file is simply
// ignored and the sources are parsed again.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/DatasetCache.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <unistd.h>

namespace fs = std::filesystem;

namespace gnnrt {

namespace {
constexpr char kMagic[8] = {'G', 'N', 'N', 'R', 'T', 'D', 'S', '1'};
constexpr int kNumCounts = 9;

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
  auto cacheTime = fs::last_write_time(cacheFile, ec);
  if (ec)
    return std::nullopt;
  for (const std::string &source : sources) {
    auto sourceTime = fs::last_write_time(source, ec);
    if (ec || !(cacheTime > sourceTime))
      return std::nullopt;
  }
  uintmax_t fileSize = fs::file_size(cacheFile, ec);
  if (ec)
    return std::nullopt;
  FilePtr f(std::fopen(cacheFile.c_str(), "rb"));
  if (!f)
    return std::nullopt;
  char magic[8];
  int64_t c[kNumCounts];
  if (std::fread(magic, 1, 8, f.get()) != 8 ||
      std::memcmp(magic, kMagic, 8) != 0 ||
      std::fread(c, sizeof(int64_t), kNumCounts, f.get()) != kNumCounts)
    return std::nullopt;
  for (int64_t count : c)
    if (count < 0 || count > (int64_t(1) << 40))
      return std::nullopt;
  uintmax_t expected = 8 + 8 * kNumCounts + 4 * uintmax_t(c[7]) +
                       8 * uintmax_t(c[8] + c[4] + c[5] + c[6] + 2 * c[3]);
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
  auto read = [&](auto &v) {
    return std::fread(v.data(), sizeof(v[0]), v.size(), f.get()) == v.size();
  };
  if (!read(ds.features) || !read(ds.labels) || !read(ds.trainIdx) ||
      !read(ds.validIdx) || !read(ds.testIdx) || !read(ds.src) || !read(ds.dst))
    return std::nullopt;
  return ds;
}

bool writeDatasetCache(const std::string &cacheFile, const Dataset &ds) {
  // A per-process temp name: ranks sharing a file system may race to write
  // the same cache; each renames a complete file, the last one wins.
  std::string temp = cacheFile + ".tmp." + std::to_string(::getpid());
  bool ok;
  {
    FilePtr f(std::fopen(temp.c_str(), "wb"));
    if (!f)
      return false;
    int64_t c[kNumCounts] = {ds.numNodes,
                             ds.numFeatures,
                             ds.numClasses,
                             ds.numEdges(),
                             int64_t(ds.trainIdx.size()),
                             int64_t(ds.validIdx.size()),
                             int64_t(ds.testIdx.size()),
                             int64_t(ds.features.size()),
                             int64_t(ds.labels.size())};
    auto write = [&](const auto &v) {
      return std::fwrite(v.data(), sizeof(v[0]), v.size(), f.get()) == v.size();
    };
    ok = std::fwrite(kMagic, 1, 8, f.get()) == 8 &&
         std::fwrite(c, sizeof(int64_t), kNumCounts, f.get()) == kNumCounts &&
         write(ds.features) && write(ds.labels) && write(ds.trainIdx) &&
         write(ds.validIdx) && write(ds.testIdx) && write(ds.src) &&
         write(ds.dst) && std::fflush(f.get()) == 0;
  }
  std::error_code ec;
  if (ok)
    fs::rename(temp, cacheFile, ec);
  if (!ok || ec) {
    fs::remove(temp, ec);
    return false;
  }
  return true;
}

} // namespace gnnrt
