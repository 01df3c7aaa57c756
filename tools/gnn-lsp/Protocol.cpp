//===- Protocol.cpp - LSP framing, positions and URIs ---------------------===//
//
// Framing follows the LSP base protocol: header lines `Name: value` ended by
// CRLF (a bare LF is accepted), an empty line, then Content-Length bytes of
// UTF-8 JSON. A malformed header block is reported and reading goes on with
// the next block (after an unreadable length, from the next Content-Length
// header), so one bad message never ends the session.
//
//===----------------------------------------------------------------------===//
#include "Protocol.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <istream>
#include <ostream>

using namespace gnnlsp;
using gnn::lang::SourceLoc;
using gnn::lang::SourceManager;

static std::string lower(std::string s) {
  for (char &c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

static std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

/// `Name: value` with a header's name (letters, digits, '-'): what a lost
/// JSON body's lines are not.
static bool isHeaderLine(const std::string &line) {
  size_t colon = line.find(':');
  return colon != std::string::npos && colon > 0 &&
         std::all_of(line.begin(), line.begin() + colon, [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
         });
}

MessageReader::Status MessageReader::read(std::string &body,
                                          std::string &error) {
  std::string line, length;
  bool any = false, hasLength = false;
  error.clear();
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (resync) {
      size_t at = isHeaderLine(line) ? 0 : lower(line).find("content-length:");
      if (at == std::string::npos)
        continue;
      line.erase(0, at);
      resync = false;
    }
    if (line.empty()) {
      if (!any)
        continue; // Blank lines between messages.
      break;
    }
    any = true;
    size_t colon = line.find(':');
    if (colon == std::string::npos) {
      if (error.empty())
        error = "malformed header line '" + line.substr(0, 80) + "'";
      continue;
    }
    if (lower(trim(line.substr(0, colon))) == "content-length") {
      length = trim(line.substr(colon + 1));
      hasLength = true;
    }
  }
  if (!any)
    return Status::End;
  if (!error.empty())
    return Status::BadHeader;
  if (!hasLength) {
    error = "missing Content-Length header";
    resync = true;
    return Status::BadHeader;
  }
  if (length.empty() || length.size() > 12 ||
      !std::all_of(length.begin(), length.end(),
                   [](char c) { return c >= '0' && c <= '9'; })) {
    error = "Content-Length '" + length.substr(0, 40) + "' is not a number";
    resync = true;
    return Status::BadHeader;
  }
  size_t size = std::stoull(length);
  if (size > kMaxBody) {
    in.ignore(static_cast<std::streamsize>(size));
    error = "message of " + length + " bytes exceeds the limit of " +
            std::to_string(kMaxBody);
    return in ? Status::BadHeader : Status::End;
  }
  body.assign(size, '\0');
  in.read(body.data(), static_cast<std::streamsize>(size));
  if (static_cast<size_t>(in.gcount()) != size)
    return Status::End;
  return Status::Message;
}

void gnnlsp::writeMessage(std::ostream &out, const json &message) {
  std::string body =
      message.dump(-1, ' ', false, json::error_handler_t::replace);
  out << "Content-Length: " << body.size() << "\r\n\r\n" << body;
  out.flush();
}

//===----------------------------------------------------------------------===//
// Positions
//===----------------------------------------------------------------------===//

/// Length of the UTF-8 sequence a lead byte starts (1 for stray bytes).
static size_t sequenceLength(unsigned char c) {
  return c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

size_t gnnlsp::utf16ToByte(std::string_view line, size_t utf16) {
  size_t byte = 0, units = 0;
  while (byte < line.size() && units < utf16) {
    size_t n = std::min(sequenceLength(line[byte]), line.size() - byte);
    units += n == 4 ? 2 : 1;
    byte += n;
  }
  return byte;
}

size_t gnnlsp::byteToUtf16(std::string_view line, size_t byte) {
  size_t pos = 0, units = 0;
  while (pos < line.size() && pos < byte) {
    size_t n = std::min(sequenceLength(line[pos]), line.size() - pos);
    units += n == 4 ? 2 : 1;
    pos += n;
  }
  return units;
}

size_t gnnlsp::codepointToByte(std::string_view line, size_t codepoints) {
  size_t byte = 0;
  for (size_t i = 0; i < codepoints && byte < line.size(); ++i)
    byte += std::min(sequenceLength(line[byte]), line.size() - byte);
  return byte;
}

size_t gnnlsp::byteToCodepoint(std::string_view line, size_t byte) {
  size_t pos = 0, cps = 0;
  while (pos < line.size() && pos < byte) {
    pos += std::min(sequenceLength(line[pos]), line.size() - pos);
    ++cps;
  }
  return cps;
}

TextLines::TextLines(std::string_view text) : text(text), starts{0} {
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n')
      starts.push_back(i + 1);
}

std::string_view TextLines::line(size_t line) const {
  if (line >= starts.size())
    return {};
  size_t begin = starts[line];
  size_t end = line + 1 < starts.size() ? starts[line + 1] - 1 : text.size();
  if (end > begin && text[end - 1] == '\r')
    --end;
  return text.substr(begin, end - begin);
}

size_t TextLines::offsetOf(size_t line, size_t utf16) const {
  if (line >= starts.size())
    return text.size();
  return starts[line] + utf16ToByte(this->line(line), utf16);
}

json gnnlsp::lspPosition(const SourceManager &sources, SourceLoc loc) {
  if (!loc.isValid())
    return {{"line", 0}, {"character", 0}};
  std::string_view line = sources.lineText(loc.fileId, loc.line);
  size_t byte = codepointToByte(line, loc.column ? loc.column - 1 : 0);
  return {{"line", loc.line - 1}, {"character", byteToUtf16(line, byte)}};
}

static bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

json gnnlsp::tokenRange(const SourceManager &sources, SourceLoc loc) {
  json start = lspPosition(sources, loc);
  if (!loc.isValid())
    return {{"start", start}, {"end", start}};
  std::string_view line = sources.lineText(loc.fileId, loc.line);
  size_t begin = codepointToByte(line, loc.column ? loc.column - 1 : 0);
  size_t end = begin;
  if (end < line.size()) {
    char c = line[end];
    if (isIdentChar(c)) {
      bool number = std::isdigit(static_cast<unsigned char>(c));
      while (end < line.size() &&
             (isIdentChar(line[end]) || (number && line[end] == '.')))
        ++end;
    } else if (c == '"') {
      end = line.find('"', end + 1);
      end = end == std::string_view::npos ? line.size() : end + 1;
    } else {
      end += std::min(sequenceLength(c), line.size() - end);
    }
  }
  json endPos = {{"line", loc.line - 1}, {"character", byteToUtf16(line, end)}};
  return {{"start", start}, {"end", endPos}};
}

json gnnlsp::lspRange(const SourceManager &sources, SourceLoc begin,
                      SourceLoc end) {
  if (!end.isValid() || end.fileId != begin.fileId)
    return tokenRange(sources, begin);
  return {{"start", lspPosition(sources, begin)},
          {"end", lspPosition(sources, end)}};
}

//===----------------------------------------------------------------------===//
// URIs
//===----------------------------------------------------------------------===//

std::string gnnlsp::uriToPath(const std::string &uri) {
  static const std::string scheme = "file://";
  if (uri.compare(0, scheme.size(), scheme) != 0)
    return uri;
  std::string path;
  for (size_t i = scheme.size(); i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() &&
        std::isxdigit(static_cast<unsigned char>(uri[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(uri[i + 2]))) {
      path += static_cast<char>(std::stoi(uri.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      path += uri[i];
    }
  }
  // `file://host/path` names a host; only the path matters here.
  if (!path.empty() && path[0] != '/') {
    size_t slash = path.find('/');
    path = slash == std::string::npos ? "/" : path.substr(slash);
  }
  return path;
}

std::string gnnlsp::pathToUri(const std::string &path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path, ec);
  std::string abs = ec ? path : p.lexically_normal().string();
  std::string uri = "file://";
  static const char *hex = "0123456789ABCDEF";
  for (unsigned char c : abs) {
    if (std::isalnum(c) ||
        std::string_view("/-._~").find(c) != std::string_view::npos)
      uri += static_cast<char>(c);
    else {
      uri += '%';
      uri += hex[c >> 4];
      uri += hex[c & 15];
    }
  }
  return uri;
}
