//===- Diagnostics.cpp - Printing and verifying diagnostics ---------------===//
//
// Formatting follows clang: location, severity, message, then the source line
// with a caret under the column. Verification follows MLIR's
// -verify-diagnostics: expectations live in comments of the checked files.
//
//===----------------------------------------------------------------------===//
#include "gnn/lang/Diagnostics.h"

#include <iostream>
#include <regex>
#include <sstream>

using namespace gnn::lang;

static const char *severityName(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  }
  return "error";
}

/// Columns a terminal gives code point `c`: two for East Asian wide and
/// full-width characters, none for combining marks and zero-width spaces.
static unsigned displayWidth(uint32_t c) {
  static const std::pair<uint32_t, uint32_t> kZero[] = {
      {0x0300, 0x036F}, {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF}, {0x200B, 0x200F},
      {0x20D0, 0x20FF}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F}};
  static const std::pair<uint32_t, uint32_t> kWide[] = {
      {0x1100, 0x115F},   {0x2E80, 0x303E},  {0x3041, 0x33FF},
      {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},  {0xA000, 0xA4CF},
      {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},  {0xFE30, 0xFE4F},
      {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},  {0x1F300, 0x1F64F},
      {0x1F900, 0x1F9FF}, {0x20000, 0x3FFFD}};
  for (auto [lo, hi] : kZero)
    if (c >= lo && c <= hi)
      return 0;
  for (auto [lo, hi] : kWide)
    if (c >= lo && c <= hi)
      return 2;
  return 1;
}

/// The whitespace that puts a caret under character `column` (1-based, in
/// code points, as locations count) of `line` (UTF-8) as a terminal shows
/// it: tabs are kept, and each character before the column takes its
/// display width.
static std::string caretIndent(std::string_view line, uint32_t column) {
  std::string indent;
  size_t i = 0;
  for (uint32_t c = 1; c < column && i < line.size(); ++c) {
    auto lead = static_cast<unsigned char>(line[i]);
    size_t length = lead < 0x80           ? 1
                    : (lead >> 5) == 0x6  ? 2
                    : (lead >> 4) == 0xE  ? 3
                    : (lead >> 3) == 0x1E ? 4
                                          : 1;
    uint32_t codePoint = length == 1 ? lead : lead & (0x7F >> length);
    for (size_t k = 1; k < length && i + k < line.size(); ++k)
      codePoint = (codePoint << 6) | (line[i + k] & 0x3F);
    i += length;
    if (lead == '\t')
      indent += '\t';
    else
      indent.append(displayWidth(codePoint), ' ');
  }
  return indent;
}

std::string DiagnosticEngine::format(const Diagnostic &diag) const {
  std::ostringstream os;
  if (diag.loc.isValid())
    os << sources.name(diag.loc.fileId) << ':' << diag.loc.line << ':'
       << diag.loc.column << ": ";
  os << severityName(diag.severity) << ": " << diag.message << '\n';
  if (!diag.loc.isValid())
    return os.str();
  std::string_view line = sources.lineText(diag.loc.fileId, diag.loc.line);
  os << line << '\n' << caretIndent(line, diag.loc.column) << "^\n";
  return os.str();
}

void DiagnosticEngine::report(Severity severity, SourceLoc loc,
                              std::string message) {
  if (severity == Severity::Error)
    ++numErrors;
  Diagnostic diag{severity, loc, std::move(message)};
  if (collectOnly) {
    collected.push_back(std::move(diag));
    return;
  }
  // Past the cap, errors and their notes are counted but not printed.
  if (severity != Severity::Note)
    suppressNotes = numErrors > kMaxErrors;
  if (suppressNotes)
    return;
  std::ostream &os = out ? *out : std::cerr;
  os << format(diag);
  if (severity == Severity::Error && numErrors == kMaxErrors)
    os << "error: too many errors emitted, stopping now\n";
}

namespace {
struct Expectation {
  Severity severity;
  uint32_t fileId;
  uint32_t line;        // Line the diagnostic must be on.
  uint32_t commentLine; // Where the expectation was written.
  std::string text;
  bool matched = false;
};
} // namespace

static std::vector<Expectation>
collectExpectations(const SourceManager &sources, std::ostream &out, bool &ok) {
  static const std::regex pattern(
      R"(expected-(error|warning|note)(@([+-]?[0-9]+))? *\{\{(.*?)\}\})");
  std::vector<Expectation> result;
  for (uint32_t id = 1; id <= sources.size(); ++id) {
    const std::string &text = sources.text(id);
    uint32_t lineNo = 0;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      ++lineNo;
      size_t comment = line.find("//");
      if (comment == std::string::npos)
        continue;
      std::string tail = line.substr(comment);
      for (auto it = std::sregex_iterator(tail.begin(), tail.end(), pattern);
           it != std::sregex_iterator(); ++it) {
        const std::smatch &m = *it;
        Severity severity = m[1] == "error"     ? Severity::Error
                            : m[1] == "warning" ? Severity::Warning
                                                : Severity::Note;
        int64_t target = lineNo;
        if (m[3].matched) {
          std::string offset = m[3];
          target = offset[0] == '+' || offset[0] == '-'
                       ? lineNo + std::stoll(offset)
                       : std::stoll(offset);
        }
        if (target <= 0) {
          out << sources.name(id) << ':' << lineNo
              << ": error: expectation points before the file start\n";
          ok = false;
          continue;
        }
        result.push_back(
            {severity, id, static_cast<uint32_t>(target), lineNo, m[4], false});
      }
    }
  }
  return result;
}

bool gnn::lang::verifyDiagnostics(const SourceManager &sources,
                                  const DiagnosticEngine &engine,
                                  std::ostream &out) {
  bool ok = true;
  std::vector<Expectation> expected = collectExpectations(sources, out, ok);
  for (const Diagnostic &diag : engine.diagnostics()) {
    bool found = false;
    for (Expectation &e : expected) {
      if (e.matched || e.severity != diag.severity ||
          e.fileId != diag.loc.fileId || e.line != diag.loc.line ||
          diag.message.find(e.text) == std::string::npos)
        continue;
      e.matched = found = true;
      break;
    }
    if (!found) {
      ok = false;
      out << "unexpected " << engine.format(diag);
    }
  }
  for (const Expectation &e : expected) {
    if (e.matched)
      continue;
    ok = false;
    out << sources.name(e.fileId) << ':' << e.commentLine << ": expected "
        << severityName(e.severity) << " on line " << e.line
        << " was not produced: " << e.text << '\n';
  }
  return ok;
}
