//===- LinkPairFiles.cpp - Fixed link splits read from pair files ---------===//
//
// See gnnrt/data/links/LinkPairFiles.h.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/links/LinkPairFiles.h"

#include "gnnrt/data/Dataset.h"
#include "gnnrt/io/AtomicFile.h"
#include "gnnrt/io/CsvReader.h"
#include "gnnrt/support/Error.h"

#include <cstdio>
#include <filesystem>
#include <optional>

namespace fs = std::filesystem;

namespace gnnrt {

namespace {

/// `<dir>/<stem>.csv.gz`, else `<dir>/<stem>.csv`, as the OGB tables are
/// found (OgbTables.h's findTable, private to lib/data/ proper).
std::optional<std::string> findPairFile(const std::string &dir,
                                        const std::string &stem) {
  const std::string base = dir + "/" + stem + ".csv";
  std::error_code ec;
  if (fs::is_regular_file(base + ".gz", ec))
    return base + ".gz";
  if (fs::is_regular_file(base, ec))
    return base;
  return std::nullopt;
}

void writeLinkPairs(const std::string &path, const LinkPairs &pairs) {
  AtomicFile file(path);
  for (size_t i = 0; i < pairs.size(); ++i)
    std::fprintf(file.stream(), "%lld,%lld\n", (long long)pairs.src[i],
                 (long long)pairs.dst[i]);
  file.commit();
}

} // namespace

LinkPairs readLinkPairs(const std::string &path, int64_t numNodes) {
  CsvReader in(path);
  std::vector<std::string_view> fields;
  LinkPairs pairs;
  while (in.nextLine()) {
    in.split(fields, 2);
    const int64_t ids[2] = {in.intField(fields[0]), in.intField(fields[1])};
    for (int64_t id : ids)
      if (id < 0 || id >= numNodes)
        in.fail("node id " + std::to_string(id) + " out of range [0, " +
                std::to_string(numNodes) + ")");
    pairs.src.push_back(ids[0]);
    pairs.dst.push_back(ids[1]);
  }
  // An absent file is how a split has no pairs; an empty one is more
  // likely a write that never finished than a set meant to be empty.
  if (pairs.size() == 0)
    throwDataError(path, 0,
                   "no pairs (leave the file out for a split without them)");
  return pairs;
}

bool hasLinkPairFiles(const std::string &dir) {
  for (const char *name : kSplitNames)
    for (const char *side : {"_pos", "_neg"})
      if (findPairFile(dir, name + std::string(side)))
        return true;
  return false;
}

FixedLinkSplit readFixedLinkSplit(const std::string &dir, int64_t numNodes) {
  FixedLinkSplit split;
  bool any = false;
  for (size_t k = 0; k < 3; ++k) {
    const std::string name = kSplitNames[k];
    if (auto path = findPairFile(dir, name + "_pos")) {
      split.pos[k] = readLinkPairs(*path, numNodes);
      split.hasPos[k] = any = true;
    }
    if (auto path = findPairFile(dir, name + "_neg")) {
      split.neg[k] = readLinkPairs(*path, numNodes);
      split.hasNeg[k] = any = true;
    }
  }
  if (!any)
    throwDataError(dir, 0,
                   "no link pair files ({train,valid,test}_{pos,neg}.csv"
                   "[.gz])");
  return split;
}

void writeFixedLinkSplit(const std::string &out, const EdgeSplit &split) {
  writeDirectoryWhole(out, [&](const std::string &temp) {
    std::error_code ec;
    if (!fs::create_directories(temp, ec) && ec)
      throwDataError(temp, 0, "cannot create the directory: " + ec.message());
    const std::pair<const char *, const LinkPairs *> files[] = {
        {"train_pos", &split.trainPos},
        {"valid_pos", &split.validPos},
        {"valid_neg", &split.validNeg},
        {"test_pos", &split.testPos},
        {"test_neg", &split.testNeg}};
    // An empty set is an absent file, as readFixedLinkSplit reads it.
    for (const auto &[name, pairs] : files)
      if (pairs->size())
        writeLinkPairs(temp + "/" + name + ".csv", *pairs);
  });
}

} // namespace gnnrt
