//===- TableWriter.cpp - Buffered csv(.gz) output of numbers --------------===//
//
// See gnnrt/io/TableWriter.h.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/io/TableWriter.h"

#include "gnnrt/support/Error.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <zlib.h>

namespace gnnrt {

TableWriter::TableWriter(std::string path, bool gzip) : path(std::move(path)) {
  // Level 6 is zlib's default; "wbT" writes plain text through the same API.
  file = gzopen(this->path.c_str(), gzip ? "wb6" : "wbT");
  if (!file)
    throwDataError(this->path, 0,
                   "cannot write: " + std::string(std::strerror(errno)));
  buffer.reserve(kFlushAt + 4096);
}

TableWriter::~TableWriter() {
  if (file)
    gzclose(gzFile(file));
}

void TableWriter::integer(int64_t v) {
  char text[24];
  auto result = std::to_chars(text, text + sizeof(text), v);
  buffer.append(text, result.ptr);
}

void TableWriter::real(float v) {
  char text[32];
  auto result = std::to_chars(text, text + sizeof(text), v);
  buffer.append(text, result.ptr);
}

std::string shortestText(double v) {
  char text[32];
  auto result = std::to_chars(text, text + sizeof(text), v);
  return std::string(text, result.ptr);
}

void TableWriter::close() {
  flush();
  int rc = gzclose(gzFile(file));
  file = nullptr;
  if (rc != Z_OK)
    throwDataError(path, 0, "cannot write (error on close)");
}

void TableWriter::flush() {
  if (!buffer.empty() && gzwrite(gzFile(file), buffer.data(),
                                 unsigned(buffer.size())) != int(buffer.size()))
    throwDataError(path, 0, "cannot write");
  buffer.clear();
}

void writeColumn(const std::string &path, bool gzip,
                 const std::vector<int64_t> &values) {
  TableWriter out(path, gzip);
  for (int64_t v : values) {
    out.integer(v);
    out.endRow();
  }
  out.close();
}

} // namespace gnnrt
