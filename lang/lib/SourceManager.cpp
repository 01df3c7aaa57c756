//===- SourceManager.cpp - Source files and locations ---------------------===//
//
// Reads .gnn files whole and indexes line starts once, so quoting a line in a
// diagnostic is a lookup rather than a scan.
//
//===----------------------------------------------------------------------===//
#include "gnn/lang/SourceManager.h"

#include <cerrno>
#include <cstring>
#include <fstream>

using namespace gnn::lang;

static std::vector<size_t> indexLines(const std::string &text) {
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n')
      starts.push_back(i + 1);
  return starts;
}

std::optional<uint32_t> SourceManager::addFile(const std::string &path,
                                               std::string &error) {
  for (size_t i = 0; i < files.size(); ++i)
    if (files[i].name == path)
      return static_cast<uint32_t>(i + 1);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  // Read in chunks up to the limit: `gnnc /dev/zero`, a pipe that never
  // ends or a data file given by mistake must stop with a message, not
  // exhaust memory.
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, size_t(in.gcount()));
    if (text.size() > kMaxSourceBytes) {
      error = "'" + path + "' is larger than " +
              std::to_string(kMaxSourceBytes >> 20) +
              " MiB: not a .gnn program";
      return std::nullopt;
    }
  }
  if (in.bad()) {
    error = "cannot read '" + path + "'";
    return std::nullopt;
  }
  return addBuffer(path, std::move(text));
}

uint32_t SourceManager::addBuffer(std::string name, std::string text) {
  File file{std::move(name), std::move(text), {}};
  file.lineStarts = indexLines(file.text);
  files.push_back(std::move(file));
  return static_cast<uint32_t>(files.size());
}

const std::string &SourceManager::name(uint32_t fileId) const {
  static const std::string unknown = "<unknown>";
  return fileId == 0 || fileId > files.size() ? unknown
                                              : files[fileId - 1].name;
}

const std::string &SourceManager::text(uint32_t fileId) const {
  static const std::string empty;
  return fileId == 0 || fileId > files.size() ? empty : files[fileId - 1].text;
}

std::string_view SourceManager::lineText(uint32_t fileId, uint32_t line) const {
  if (fileId == 0 || fileId > files.size())
    return {};
  const File &file = files[fileId - 1];
  if (line == 0 || line > file.lineStarts.size())
    return {};
  size_t begin = file.lineStarts[line - 1];
  size_t end = file.text.find('\n', begin);
  if (end == std::string::npos)
    end = file.text.size();
  if (end > begin && file.text[end - 1] == '\r')
    --end;
  return std::string_view(file.text).substr(begin, end - begin);
}
