//===- OgbTables.cpp - The tables both OGB readers parse ------------------===//
//
// See OgbTables.h. Every value is validated while it is parsed, so an error
// can name the file and line it came from; nothing downstream re-checks ids.
//
//===----------------------------------------------------------------------===//

#include "OgbTables.h"

#include "gnnrt/data/Dataset.h"
#include "gnnrt/support/Error.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace fs = std::filesystem;

namespace gnnrt {

std::optional<std::string> findTable(const std::string &dir,
                                     const std::string &stem) {
  std::string base = dir + "/" + stem + ".csv";
  std::error_code ec;
  if (fs::is_regular_file(base + ".gz", ec))
    return base + ".gz";
  if (fs::is_regular_file(base, ec))
    return base;
  return std::nullopt;
}

std::string requireTable(const std::string &dir, const std::string &stem) {
  if (auto path = findTable(dir, stem))
    return *path;
  throwDataError(dir + "/" + stem + ".csv[.gz]", 0, "no such file");
}

std::string rangeText(int64_t n) { return "[0, " + std::to_string(n) + ")"; }

static std::string rowCountMessage(int64_t expected, int64_t found,
                                   const char *noun) {
  return "expected " + std::to_string(expected) + " rows (one per " + noun +
         "), found " + std::to_string(found);
}

std::vector<int64_t> readColumn(CsvReader &in) {
  std::vector<int64_t> values;
  std::vector<std::string_view> fields;
  while (in.nextLine()) {
    in.split(fields, 1);
    values.push_back(in.intField(fields[0]));
  }
  return values;
}

void checkEdgeCount(const std::string &path, int64_t actual,
                    const std::string &countedFile) {
  CsvReader counts(path);
  std::vector<int64_t> values = readColumn(counts);
  if (values.size() != 1 || values[0] != actual)
    throwDataError(path, 0,
                   "edge count " +
                       (values.size() == 1 ? std::to_string(values[0])
                                           : std::string("(missing)")) +
                       " does not match the " + std::to_string(actual) +
                       " rows of " + countedFile);
}

FeatureTableReader::FeatureTableReader(const std::string &path, int64_t rows,
                                       const char *noun)
    : in(path), noun(noun), rows(rows) {
  // The first row fixes the width every other row must have.
  if ((pending = in.nextLine())) {
    in.split(fields, 0);
    columns = int64_t(fields.size());
  }
}

void FeatureTableReader::read(int64_t count, float *out) {
  for (int64_t k = 0; k < count; ++k, ++row) {
    if (!pending && !in.nextLine())
      throwDataError(in.path(), 0, rowCountMessage(rows, row, noun));
    pending = false;
    in.split(fields, size_t(columns));
    for (size_t column = 0; column < fields.size(); ++column) {
      const float value = in.floatField(fields[column]);
      // nan or inf would surface epochs later as "training diverged".
      if (!std::isfinite(value))
        in.fail("feature " + std::to_string(column) + " of " + noun + " " +
                std::to_string(row) + " is " + quoteToken(fields[column]) +
                " (features must be finite numbers)");
      *out++ = value;
    }
  }
}

void FeatureTableReader::skip(int64_t count) {
  for (int64_t k = 0; k < count; ++k, ++row) {
    if (!pending && !in.nextLine())
      throwDataError(in.path(), 0, rowCountMessage(rows, row, noun));
    pending = false;
    in.split(fields, size_t(columns));
  }
}

void FeatureTableReader::finish() {
  int64_t found = row + (pending ? 1 : 0);
  pending = false;
  for (; in.nextLine(); ++found)
    in.split(fields, size_t(columns));
  if (found != rows)
    throwDataError(in.path(), 0, rowCountMessage(rows, found, noun));
}

int64_t readFeatureTable(const std::string &path, int64_t rows,
                         std::vector<float> &out, int64_t rowBegin,
                         int64_t rowEnd, const char *noun) {
  if (rowEnd < 0)
    rowEnd = rows;
  FeatureTableReader table(path, rows, noun);
  const int64_t width = table.width();
  table.skip(rowBegin);
  // Grown a chunk of rows at a time as they are read: a declared count far
  // above the file's rows is the located row-count error, not an
  // allocation of the declared size.
  for (int64_t begin = rowBegin; begin < rowEnd;) {
    const int64_t count = std::min(rowEnd - begin, kReserveRows);
    const size_t at = out.size();
    out.resize(at + size_t(count * width));
    table.read(count, out.data() + at);
    begin += count;
  }
  table.finish();
  return width;
}

std::vector<int64_t> readLabelTable(const std::string &path, int64_t rows,
                                    const LoadOptions &options) {
  CsvReader in(path);
  std::vector<std::string_view> fields;
  std::vector<int64_t> labels;
  // The declared count is not trusted with memory before the rows come.
  labels.reserve(size_t(std::min<int64_t>(rows, kReserveRows)));
  int64_t row = 0;
  while (in.nextLine()) {
    in.split(fields, 1);
    int64_t label;
    if (!parseInt64(fields[0], label)) {
      // ogbn-papers100M and friends store labels as floats, nan = unlabeled.
      float f;
      if (!parseFloat(fields[0], f) || (!std::isnan(f) && std::floor(f) != f))
        in.fail("expected an integer label or nan, found " +
                quoteToken(fields[0]));
      // Bounded before the cast, which is undefined beyond int64.
      if (!std::isnan(f) && !(f >= -1 && f <= float(kMaxClassId)))
        in.fail("label " + quoteToken(fields[0]) +
                (f < 0 ? " is negative (only -1 or nan mark an unlabeled "
                         "node)"
                       : " is above the largest class id " +
                             std::to_string(kMaxClassId)));
      label = std::isnan(f) ? -1 : int64_t(f);
    }
    if (label < -1)
      in.fail("label " + std::to_string(label) +
              " is negative (only -1 or nan mark an unlabeled node)");
    if (options.numClasses > 0 && label >= options.numClasses)
      in.fail("label " + std::to_string(label) + " out of range " +
              rangeText(options.numClasses));
    if (label > kMaxClassId)
      in.fail(classIdTooLarge(label));
    if (row < rows)
      labels.push_back(label);
    ++row;
  }
  if (row != rows)
    throwDataError(path, 0, rowCountMessage(rows, row, "node"));
  return labels;
}

std::vector<int64_t> readSplitTable(const std::string &path, int64_t n,
                                    const std::string &rangeNote,
                                    const char *noun) {
  CsvReader in(path);
  std::vector<std::string_view> fields;
  std::vector<int64_t> ids;
  std::vector<int64_t> firstLine(size_t(n), 0);
  while (in.nextLine()) {
    in.split(fields, 1);
    int64_t id = in.intField(fields[0]);
    if (id < 0 || id >= n)
      in.fail(std::string(noun) + " id " + std::to_string(id) +
              " out of range " + rangeText(n) + rangeNote);
    if (firstLine[id])
      in.fail(std::string(noun) + " id " + std::to_string(id) +
              " is listed twice (first on line " +
              std::to_string(firstLine[id]) + ")");
    firstLine[id] = in.lineNumber();
    ids.push_back(id);
  }
  return ids;
}

/// Reads the splits of directory `split` ("" for none); an absent file is
/// an absent split (see Dataset::hasSplits).
void readSplitDirectory(const std::string &split, int64_t n,
                        const std::string &rangeNote, Dataset &ds) {
  std::vector<int64_t> *ids[3] = {&ds.trainIdx, &ds.validIdx, &ds.testIdx};
  for (size_t k = 0; k < 3; ++k) {
    std::optional<std::string> path;
    if (!split.empty())
      path = findTable(split, kSplitNames[k]);
    ds.hasSplits[k] = path.has_value();
    if (path)
      *ids[k] = readSplitTable(*path, n, rangeNote);
  }
}

std::string chooseSplitDirectory(const std::string &dir,
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

} // namespace gnnrt
