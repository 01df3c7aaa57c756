//===- OgbDataset.cpp - Reader for the OGB raw node-property layout -------===//
//
// Reads an unpacked OGB node-property dataset (raw/*.csv.gz plus
// split/<name>/*.csv.gz) as written by ogb's DatasetSaver, or the same tables
// uncompressed. Every value is validated while it is parsed, so an error can
// name the file and line it came from; nothing downstream re-checks ids.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"

#include "gnnrt/io/CsvReader.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

namespace fs = std::filesystem;

namespace gnnrt {

/// `<dir>/<stem>.csv.gz`, else `<dir>/<stem>.csv`, if either exists.
static std::optional<std::string> findTable(const std::string &dir,
                                            const std::string &stem) {
  std::string base = dir + "/" + stem + ".csv";
  std::error_code ec;
  if (fs::is_regular_file(base + ".gz", ec))
    return base + ".gz";
  if (fs::is_regular_file(base, ec))
    return base;
  return std::nullopt;
}

static std::string requireTable(const std::string &dir,
                                const std::string &stem) {
  if (auto path = findTable(dir, stem))
    return *path;
  throwDataError(dir + "/" + stem + ".csv[.gz]", 0, "no such file");
}

static std::string rangeText(int64_t n) {
  return "[0, " + std::to_string(n) + ")";
}

static std::string rowCountMessage(int64_t expected, int64_t found) {
  return "expected " + std::to_string(expected) +
         " rows (one per node), found " + std::to_string(found);
}

/// Reads a table holding one integer per line.
static std::vector<int64_t> readColumn(CsvReader &in) {
  std::vector<int64_t> values;
  std::vector<std::string_view> fields;
  while (in.nextLine()) {
    in.split(fields, 1);
    values.push_back(in.intField(fields[0]));
  }
  return values;
}

static int64_t readNodeCount(const std::string &raw) {
  CsvReader in(requireTable(raw, "num-node-list"));
  std::vector<int64_t> counts = readColumn(in);
  if (counts.size() != 1)
    throwDataError(in.path(), 0,
                   "expected 1 row (a single graph), found " +
                       std::to_string(counts.size()));
  if (counts[0] < 0)
    throwDataError(in.path(), 1,
                   "negative node count " + std::to_string(counts[0]));
  return counts[0];
}

static void readEdges(const std::string &raw, Dataset &ds) {
  CsvReader in(requireTable(raw, "edge"));
  std::vector<std::string_view> fields;
  const int64_t n = ds.numNodes;
  while (in.nextLine()) {
    in.split(fields, 2);
    int64_t u = in.intField(fields[0]), v = in.intField(fields[1]);
    for (int64_t id : {u, v})
      if (id < 0 || id >= n)
        in.fail("node id " + std::to_string(id) + " out of range " +
                rangeText(n));
    ds.src.push_back(u);
    ds.dst.push_back(v);
  }
  if (auto countFile = findTable(raw, "num-edge-list")) {
    CsvReader counts(*countFile);
    std::vector<int64_t> values = readColumn(counts);
    if (values.size() != 1 || values[0] != ds.numEdges())
      throwDataError(*countFile, 0,
                     "edge count " +
                         (values.size() == 1 ? std::to_string(values[0])
                                             : std::string("(missing)")) +
                         " does not match the " +
                         std::to_string(ds.numEdges()) + " rows of " +
                         in.path());
  }
}

static void readFeatures(const std::string &path, Dataset &ds) {
  CsvReader in(path);
  std::vector<std::string_view> fields;
  int64_t rows = 0;
  while (in.nextLine()) {
    // The first row fixes the width every other row must have.
    in.split(fields, size_t(ds.numFeatures));
    if (rows == 0) {
      ds.numFeatures = int64_t(fields.size());
      ds.features.reserve(size_t(ds.numNodes * ds.numFeatures));
    }
    if (rows < ds.numNodes)
      for (size_t column = 0; column < fields.size(); ++column) {
        float value = in.floatField(fields[column]);
        // nan or inf would surface epochs later as "training diverged".
        if (!std::isfinite(value))
          in.fail("feature " + std::to_string(column) + " of node " +
                  std::to_string(rows) + " is " + quoteToken(fields[column]) +
                  " (features must be finite numbers)");
        ds.features.push_back(value);
      }
    ++rows;
  }
  if (rows != ds.numNodes)
    throwDataError(path, 0, rowCountMessage(ds.numNodes, rows));
}

static void readLabels(const std::string &path, const LoadOptions &options,
                       Dataset &ds) {
  CsvReader in(path);
  std::vector<std::string_view> fields;
  int64_t rows = 0;
  ds.labels.reserve(size_t(ds.numNodes));
  while (in.nextLine()) {
    in.split(fields, 1);
    int64_t label;
    if (!parseInt64(fields[0], label)) {
      // ogbn-papers100M and friends store labels as floats, nan = unlabeled.
      float f;
      if (!parseFloat(fields[0], f) || (!std::isnan(f) && std::floor(f) != f))
        in.fail("expected an integer label or nan, found " +
                quoteToken(fields[0]));
      label = std::isnan(f) ? -1 : int64_t(f);
    }
    if (label < -1)
      in.fail("label " + std::to_string(label) +
              " is negative (only -1 or nan mark an unlabeled node)");
    if (options.numClasses > 0 && label >= options.numClasses)
      in.fail("label " + std::to_string(label) + " out of range " +
              rangeText(options.numClasses));
    if (rows < ds.numNodes)
      ds.labels.push_back(label);
    ++rows;
  }
  if (rows != ds.numNodes)
    throwDataError(path, 0, rowCountMessage(ds.numNodes, rows));
}

/// Reads one split file: ids in range, each at most once.
static std::vector<int64_t> readSplit(const std::string &path, int64_t n) {
  CsvReader in(path);
  std::vector<std::string_view> fields;
  std::vector<int64_t> ids;
  std::vector<int64_t> firstLine(size_t(n), 0);
  while (in.nextLine()) {
    in.split(fields, 1);
    int64_t id = in.intField(fields[0]);
    if (id < 0 || id >= n)
      in.fail("node id " + std::to_string(id) + " out of range " +
              rangeText(n));
    if (firstLine[id])
      in.fail("node id " + std::to_string(id) +
              " is listed twice (first on line " +
              std::to_string(firstLine[id]) + ")");
    firstLine[id] = in.lineNumber();
    ids.push_back(id);
  }
  return ids;
}

/// The split directory to read, or "" if the dataset has none.
static std::string chooseSplit(const std::string &dir,
                               const LoadOptions &options) {
  std::error_code ec;
  std::string splitRoot = dir + "/split";
  if (!options.splitName.empty()) {
    std::string chosen = splitRoot + "/" + options.splitName;
    if (!fs::is_directory(chosen, ec))
      throwDataError(chosen, 0, "no such split directory");
    return chosen;
  }
  if (!fs::is_directory(splitRoot, ec))
    return "";
  if (fs::is_directory(splitRoot + "/public", ec))
    return splitRoot + "/public";
  std::vector<std::string> names;
  for (const fs::directory_entry &entry : fs::directory_iterator(splitRoot, ec))
    if (entry.is_directory(ec))
      names.push_back(entry.path().filename().string());
  if (names.empty())
    return "";
  std::sort(names.begin(), names.end());
  return splitRoot + "/" + names.front();
}

Dataset readOgbDataset(const std::string &dir, const LoadOptions &options) {
  Dataset ds;
  std::string raw = dir + "/raw";
  ds.numNodes = readNodeCount(raw);
  readEdges(raw, ds);
  if (auto path = findTable(raw, "node-feat"))
    readFeatures(*path, ds);
  if (auto path = findTable(raw, "node-label"))
    readLabels(*path, options, ds);
  else
    ds.labels.assign(size_t(ds.numNodes), -1);
  std::string split = chooseSplit(dir, options);
  if (!split.empty()) {
    ds.trainIdx = readSplit(requireTable(split, "train"), ds.numNodes);
    ds.validIdx = readSplit(requireTable(split, "valid"), ds.numNodes);
    ds.testIdx = readSplit(requireTable(split, "test"), ds.numNodes);
  }
  return ds;
}

} // namespace gnnrt
