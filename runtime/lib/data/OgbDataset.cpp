//===- OgbDataset.cpp - Reader for the OGB raw node-property layout -------===//
//
// Reads an unpacked OGB node-property dataset (raw/*.csv.gz plus
// split/<name>/*.csv.gz) as written by ogb's DatasetSaver, or the same tables
// uncompressed. Every value is validated while it is parsed, so an error can
// name the file and line it came from; nothing downstream re-checks ids.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/Dataset.h"
#include "gnnrt/data/DatasetSlice.h"

#include "gnnrt/io/CsvReader.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <tuple>

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

/// Reads the edge table, keeping rows r with r % stride == offset (the
/// whole table by default); every kept row is validated, and every row is
/// counted for the num-edge-list check.
static void readEdges(const std::string &raw, int64_t numNodes,
                      std::vector<int64_t> &src, std::vector<int64_t> &dst,
                      int64_t stride = 1, int64_t offset = 0) {
  CsvReader in(requireTable(raw, "edge"));
  std::vector<std::string_view> fields;
  const int64_t n = numNodes;
  int64_t rows = 0;
  for (; in.nextLine(); ++rows) {
    if (rows % stride != offset)
      continue;
    in.split(fields, 2);
    int64_t u = in.intField(fields[0]), v = in.intField(fields[1]);
    for (int64_t id : {u, v})
      if (id < 0 || id >= n)
        in.fail("node id " + std::to_string(id) + " out of range " +
                rangeText(n));
    src.push_back(u);
    dst.push_back(v);
  }
  if (auto countFile = findTable(raw, "num-edge-list")) {
    CsvReader counts(*countFile);
    std::vector<int64_t> values = readColumn(counts);
    if (values.size() != 1 || values[0] != rows)
      throwDataError(*countFile, 0,
                     "edge count " +
                         (values.size() == 1 ? std::to_string(values[0])
                                             : std::string("(missing)")) +
                         " does not match the " + std::to_string(rows) +
                         " rows of " + in.path());
  }
}

/// Reads the feature table into `features`, keeping rows [rowBegin,
/// rowEnd) (all by default); every row is checked for its width, the kept
/// ones for their values. Returns the width.
static int64_t readFeatures(const std::string &path, int64_t numNodes,
                            std::vector<float> &features, int64_t rowBegin = 0,
                            int64_t rowEnd = -1) {
  if (rowEnd < 0)
    rowEnd = numNodes;
  CsvReader in(path);
  std::vector<std::string_view> fields;
  int64_t rows = 0, width = 0;
  while (in.nextLine()) {
    // The first row fixes the width every other row must have.
    in.split(fields, size_t(width));
    if (rows == 0) {
      width = int64_t(fields.size());
      features.reserve(size_t((rowEnd - rowBegin) * width));
    }
    if (rows >= rowBegin && rows < rowEnd)
      for (size_t column = 0; column < fields.size(); ++column) {
        float value = in.floatField(fields[column]);
        // nan or inf would surface epochs later as "training diverged".
        if (!std::isfinite(value))
          in.fail("feature " + std::to_string(column) + " of node " +
                  std::to_string(rows) + " is " + quoteToken(fields[column]) +
                  " (features must be finite numbers)");
        features.push_back(value);
      }
    ++rows;
  }
  if (rows != numNodes)
    throwDataError(path, 0, rowCountMessage(numNodes, rows));
  return width;
}

static std::vector<int64_t> readLabels(const std::string &path,
                                       const LoadOptions &options,
                                       int64_t numNodes) {
  CsvReader in(path);
  std::vector<std::string_view> fields;
  int64_t rows = 0;
  std::vector<int64_t> labels;
  labels.reserve(size_t(numNodes));
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
    if (rows < numNodes)
      labels.push_back(label);
    ++rows;
  }
  if (rows != numNodes)
    throwDataError(path, 0, rowCountMessage(numNodes, rows));
  return labels;
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

/// Labels (all -1 without a label table) and the splits, which every rank
/// reads whole.
template <typename Out>
static void readNodeTables(const std::string &dir, const LoadOptions &options,
                           Out &out) {
  std::string raw = dir + "/raw";
  if (auto path = findTable(raw, "node-label"))
    out.labels = readLabels(*path, options, out.numNodes);
  else
    out.labels.assign(size_t(out.numNodes), -1);
  std::string split = chooseSplit(dir, options);
  if (!split.empty()) {
    out.trainIdx = readSplit(requireTable(split, "train"), out.numNodes);
    out.validIdx = readSplit(requireTable(split, "valid"), out.numNodes);
    out.testIdx = readSplit(requireTable(split, "test"), out.numNodes);
  }
}

Dataset readOgbDataset(const std::string &dir, const LoadOptions &options) {
  Dataset ds;
  std::string raw = dir + "/raw";
  ds.numNodes = readNodeCount(raw);
  readEdges(raw, ds.numNodes, ds.src, ds.dst);
  if (auto path = findTable(raw, "node-feat"))
    ds.numFeatures = readFeatures(*path, ds.numNodes, ds.features);
  readNodeTables(dir, options, ds);
  return ds;
}

DatasetSlice readOgbDatasetSlice(const std::string &dir,
                                 const LoadOptions &options, int rank,
                                 int numRanks) {
  DatasetSlice slice;
  std::string raw = dir + "/raw";
  slice.numNodes = readNodeCount(raw);
  std::tie(slice.nodeBegin, slice.nodeEnd) =
      nodeBlock(slice.numNodes, rank, numRanks);
  // A gzip stream cannot be entered in the middle: every rank reads the
  // whole table and parses its stripe of rows.
  readEdges(raw, slice.numNodes, slice.src, slice.dst, numRanks, rank);
  if (auto path = findTable(raw, "node-feat"))
    slice.numFeatures = readFeatures(*path, slice.numNodes, slice.features,
                                     slice.nodeBegin, slice.nodeEnd);
  readNodeTables(dir, options, slice);
  return slice;
}

} // namespace gnnrt
