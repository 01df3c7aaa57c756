//===- SourceManager.h - Source files and locations -------------*- C++ -*-===//
//
// Owns the text of every .gnn file a compilation reads (the main file and its
// imports) and maps file ids plus 1-based line/column pairs back to source
// lines, so diagnostics can quote the offending line under its location.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_LANG_SOURCEMANAGER_H
#define GNN_LANG_SOURCEMANAGER_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gnn::lang {

/// A position in a source file: 1-based line and column (ANTLR's 0-based
/// columns are converted once, in the AST builder). fileId 0 means "unknown".
struct SourceLoc {
  uint32_t fileId = 0;
  uint32_t line = 0;
  uint32_t column = 0;

  bool isValid() const { return fileId != 0 && line != 0; }
};

/// The files of one compilation.
class SourceManager {
public:
  /// The largest source file read: a program is a few KiB, so anything
  /// larger is not one (and `/dev/zero` never ends).
  static constexpr size_t kMaxSourceBytes = size_t(16) << 20;

  /// Reads `path` from disk; returns its id, or std::nullopt (with `error` set)
  /// when it cannot be read or is larger than kMaxSourceBytes. Reading the
  /// same path twice returns the same id.
  std::optional<uint32_t> addFile(const std::string &path, std::string &error);
  /// Registers in-memory text under a display name (used by the fuzzer and
  /// tests).
  uint32_t addBuffer(std::string name, std::string text);

  const std::string &name(uint32_t fileId) const;
  const std::string &text(uint32_t fileId) const;
  /// The text of line `line` (1-based) without its newline; empty if out of
  /// range.
  std::string_view lineText(uint32_t fileId, uint32_t line) const;
  /// Number of registered files.
  size_t size() const { return files.size(); }

private:
  struct File {
    std::string name;
    std::string text;
    std::vector<size_t> lineStarts;
  };
  std::vector<File> files; // fileId - 1 indexes this.
};

} // namespace gnn::lang

#endif // GNN_LANG_SOURCEMANAGER_H
