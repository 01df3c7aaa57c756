//===- OgbTables.h - The tables both OGB readers parse ----------*- C++ -*-===//
//
// OGB's homogeneous and heterogeneous layouts store the same kinds of tables
// (a feature matrix, a label column, split id lists, counts), one file per
// graph in the first and one per node type or relation in the second. These
// readers parse one such table, validating every value as it is read so
// that an error names the file and line; the two dataset readers place the
// results, and the graph-collection readers (graphs/) use them for the
// tables the graph-property layout shares.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_OGBTABLES_H
#define GNNRT_DATA_OGBTABLES_H

#include "gnnrt/io/CsvReader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gnnrt {

struct Dataset;
struct LoadOptions;

/// `<dir>/<stem>.csv.gz`, else `<dir>/<stem>.csv`, if either exists.
std::optional<std::string> findTable(const std::string &dir,
                                     const std::string &stem);

/// findTable, or a DataError "<dir>/<stem>.csv[.gz]: no such file".
std::string requireTable(const std::string &dir, const std::string &stem);

/// "[0, n)".
std::string rangeText(int64_t n);

/// The most rows a reader reserves or grows by before it has read them: a
/// count declared in one table (num-node-list) is checked against another's
/// rows, and memory follows the rows, not the claim.
inline constexpr int64_t kReserveRows = int64_t(1) << 16;

/// Reads a table holding one integer per line.
std::vector<int64_t> readColumn(CsvReader &in);

/// Reads `path`'s single count and checks it against the `actual` rows of
/// `countedFile` ("edge count 5 does not match the 4 rows of <file>").
void checkEdgeCount(const std::string &path, int64_t actual,
                    const std::string &countedFile);

/// Reads a feature table that must have `rows` rows of one width (fixed by
/// its first row) of finite numbers; appends them to `out` row-major and
/// returns the width (0 for an empty table). Only rows [rowBegin, rowEnd)
/// are kept (all by default, rowEnd < 0), but every row's width is checked.
/// Messages call a row a `noun` ("expected 4 rows (one per node), ...").
int64_t readFeatureTable(const std::string &path, int64_t rows,
                         std::vector<float> &out, int64_t rowBegin = 0,
                         int64_t rowEnd = -1, const char *noun = "node");

/// A feature table read in row ranges, in order: what readFeatureTable
/// reads whole, with its checks, for a table larger than memory.
class FeatureTableReader {
public:
  /// Opens `path`, which must hold `rows` rows (one per `noun`); reads the
  /// first row to fix the width (0 for an empty table).
  FeatureTableReader(const std::string &path, int64_t rows,
                     const char *noun = "node");
  int64_t width() const { return columns; }
  /// Parses the next `count` rows into out[count x width()]. Throws
  /// DataError at the file and line of a bad value or row, or if the table
  /// ends first.
  void read(int64_t count, float *out);
  /// Passes the next `count` rows, checking only their width.
  void skip(int64_t count);
  /// Checks the rest's widths; throws DataError unless the table has
  /// exactly `rows` rows.
  void finish();

private:
  CsvReader in;
  const char *noun;
  std::vector<std::string_view> fields;
  int64_t rows, columns = 0, row = 0;
  bool pending = false; ///< `in` holds row `row`, not yet parsed
};

/// Reads a label table that must have `rows` rows: integers >= -1, or
/// nan (unlabeled), below options.numClasses when that is set.
std::vector<int64_t> readLabelTable(const std::string &path, int64_t rows,
                                    const LoadOptions &options);

/// Reads one split file: ids in [0, n), each at most once. `rangeNote` is
/// appended to the out-of-range message (" of node type 'paper'"); `noun`
/// names what the ids are ("node id 7 out of range [0, 5)").
std::vector<int64_t> readSplitTable(const std::string &path, int64_t n,
                                    const std::string &rangeNote = "",
                                    const char *noun = "node");

/// Reads the train, valid and test files of split directory `split` ("" for
/// none) into ds's split vectors and ds.hasSplits: an absent file is an
/// absent split, not an error (aifb's `rdf` split has no valid.csv).
void readSplitDirectory(const std::string &split, int64_t n,
                        const std::string &rangeNote, Dataset &ds);

/// The split directory to read (split/<options.splitName>, else
/// split/public, else the first in name order), or "" if the dataset has no
/// split/ directory. Throws DataError if a named split does not exist.
std::string chooseSplitDirectory(const std::string &dir,
                                 const LoadOptions &options);

} // namespace gnnrt

#endif // GNNRT_DATA_OGBTABLES_H
