//===- TableWriter.h - Buffered csv(.gz) output of numbers -----*- C++ -*-===//
//
// The writing half of CsvReader: the dataset writers (OGB layouts, the
// generators) emit millions of rows of plain numbers. Output must be
// byte-identical for identical data (tests and benchmarks compare files),
// so numbers are formatted with std::to_chars (shortest round-trip,
// locale-free) and gzip headers carry no timestamp (zlib's gzwrite writes
// mtime 0). Errors are DataErrors naming the file.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_IO_TABLEWRITER_H
#define GNNRT_IO_TABLEWRITER_H

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// Buffered text output to a gzip (level 6) or plain file.
class TableWriter {
public:
  /// Creates `path`; throws DataError naming it if it cannot.
  TableWriter(std::string path, bool gzip);
  ~TableWriter();
  TableWriter(const TableWriter &) = delete;
  TableWriter &operator=(const TableWriter &) = delete;

  void integer(int64_t v);
  void real(float v);
  void put(char c) { buffer.push_back(c); }
  void text(const std::string &s) { buffer += s; }
  /// Ends a row; flushes the buffer when it is large.
  void endRow() {
    buffer.push_back('\n');
    if (buffer.size() >= kFlushAt)
      flush();
  }
  /// Flushes and closes; throws DataError if any write failed.
  void close();

private:
  void flush();
  static constexpr size_t kFlushAt = 1 << 20;
  std::string path;
  void *file = nullptr; // gzFile, kept opaque so zlib.h stays out of headers
  std::string buffer;
};

/// `v` in its shortest text that reads back as `v` (std::to_chars): the
/// same value, the same bytes, in every file the runtime writes.
std::string shortestText(double v);

/// Writes one integer per row.
void writeColumn(const std::string &path, bool gzip,
                 const std::vector<int64_t> &values);

} // namespace gnnrt

#endif // GNNRT_IO_TABLEWRITER_H
