//===- Protocol.h - LSP framing, positions and URIs -------------*- C++ -*-===//
//
// The parts of the Language Server Protocol that are not about .gnn: reading
// and writing Content-Length framed JSON-RPC messages, converting between
// LSP positions (0-based lines, UTF-16 code units) and the front end's
// SourceLoc (1-based lines, 1-based columns counted in code points, as ANTLR
// counts them), and between file:// URIs and paths.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_LSP_PROTOCOL_H
#define GNN_LSP_PROTOCOL_H

#include "gnn/lang/SourceManager.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace gnnlsp {

using json = nlohmann::json;

/// JSON-RPC and LSP error codes.
enum ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
};

/// Reads framed messages from a byte stream.
class MessageReader {
public:
  explicit MessageReader(std::istream &in) : in(in) {}
  enum class Status {
    Message,   ///< `body` holds one message's content.
    BadHeader, ///< The header block was malformed; `error` says how.
    End,       ///< The stream ended (possibly inside a message).
  };
  Status read(std::string &body, std::string &error);

  /// Bodies larger than this are refused (and skipped) rather than buffered.
  static constexpr size_t kMaxBody = 64u << 20;

private:
  std::istream &in;
  /// After a header block without a readable Content-Length the body's end
  /// is unknown: skip to the next header line, or the next `Content-Length:`
  /// even mid-line (where a lost body runs into the next header), instead of
  /// reading the body's bytes as headers and losing every later message.
  bool resync = false;
};

/// Writes `message` framed, and flushes. Invalid UTF-8 in strings is
/// replaced rather than thrown on.
void writeMessage(std::ostream &out, const json &message);

/// The text of one open document with its line index.
class TextLines {
public:
  explicit TextLines(std::string_view text);
  size_t lineCount() const { return starts.size(); }
  /// Line `line` (0-based) without its line break; empty past the end.
  std::string_view line(size_t line) const;
  /// Byte offset of an LSP position, clamped into the text.
  size_t offsetOf(size_t line, size_t utf16) const;

private:
  std::string_view text;
  std::vector<size_t> starts;
};

/// Column conversions within one line of UTF-8 text.
size_t utf16ToByte(std::string_view line, size_t utf16);
size_t byteToUtf16(std::string_view line, size_t byte);
size_t codepointToByte(std::string_view line, size_t codepoints);
size_t byteToCodepoint(std::string_view line, size_t byte);

/// An LSP position for a 1-based SourceLoc inside `line`'s text.
json lspPosition(const gnn::lang::SourceManager &sources,
                 gnn::lang::SourceLoc loc);
/// The range of the token starting at `loc` (an identifier, a number, a
/// string, or one character), for underlining a diagnostic or a name.
json tokenRange(const gnn::lang::SourceManager &sources,
                gnn::lang::SourceLoc loc);
/// The range [begin, end); an invalid `end` gives the token at `begin`.
json lspRange(const gnn::lang::SourceManager &sources,
              gnn::lang::SourceLoc begin, gnn::lang::SourceLoc end);

/// `file:///a%20b/c.gnn` -> `/a b/c.gnn`; other schemes are returned whole.
std::string uriToPath(const std::string &uri);
/// An absolute file:// URI for a path.
std::string pathToUri(const std::string &path);

} // namespace gnnlsp

#endif // GNN_LSP_PROTOCOL_H
