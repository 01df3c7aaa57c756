//===- CsvReader.h - Streaming reader for numeric csv(.gz) files -*- C++ -*-=//
//
// OGB ships its tables as gzip-compressed csv of plain numbers, millions of
// rows long; iostreams and strtod are several times too slow for that, so
// this reader streams through zlib (which also reads uncompressed files
// transparently) into a large buffer, hands out one line at a time without
// copying, and parses numbers by hand. It stays hand-written for that speed:
// a CSV library (Debian's libcsv, fast-cpp-csv-parser) would add quoting
// rules these files never use and still leave the gzip stream and the
// number parsing to us. The dataset readers, METIS's files and the command
// line use it. All errors are DataErrors carrying `file:line:`.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_IO_CSVREADER_H
#define GNNRT_IO_CSVREADER_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gnnrt {

/// Parses a whole token as a decimal integer (optional sign, surrounding
/// blanks allowed). Returns false on anything else or on overflow.
bool parseInt64(std::string_view token, int64_t &value);

/// Parses a whole token as a float: decimal with optional fraction and
/// exponent, or nan/inf. Always correctly rounded: short forms (mantissa
/// below 2^24, |exponent| <= 10, which covers typical feature files) take an
/// exact single-operation fast path, anything else goes to std::from_chars.
bool parseFloat(std::string_view token, float &value);

/// Reads a numeric csv or csv.gz file line by line.
class CsvReader {
public:
  /// Opens `path`; throws DataError naming the file if it cannot be opened.
  explicit CsvReader(std::string path);
  ~CsvReader();
  CsvReader(const CsvReader &) = delete;
  CsvReader &operator=(const CsvReader &) = delete;

  /// Advances to the next non-blank line; false at end of file. Blank lines
  /// are skipped (as pandas does) but still counted for line numbers.
  bool nextLine();
  /// The current line without its line terminator.
  std::string_view line() const { return current; }
  /// 1-based physical line number of the current line.
  int64_t lineNumber() const { return lineNo; }
  const std::string &path() const { return file; }

  /// Splits the current line at commas into `fields`, throwing
  /// "expected N columns, found M" unless there are exactly `expected`
  /// (any count if expected == 0).
  void split(std::vector<std::string_view> &fields, size_t expected);

  /// Throws DataError("<path>:<line>: <message>").
  [[noreturn]] void fail(const std::string &message) const;

  /// Parses an integer field or fails with `expected an integer, found "x"`.
  int64_t intField(std::string_view token) const;
  /// Parses a float field or fails with `expected a number, found "x"`.
  float floatField(std::string_view token) const;

private:
  bool fill();

  std::string file;
  void *gz = nullptr; // gzFile, kept opaque so zlib.h stays out of headers
  std::vector<char> buffer;
  size_t begin = 0, end = 0; // unread bytes are buffer[begin, end)
  bool eof = false;
  std::string_view current;
  int64_t lineNo = 0;
};

/// Quotes a token for an error message, shortened if very long.
std::string quoteToken(std::string_view token);

} // namespace gnnrt

#endif // GNNRT_IO_CSVREADER_H
