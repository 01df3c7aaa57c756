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

std::string DiagnosticEngine::format(const Diagnostic &diag) const {
  std::ostringstream os;
  if (diag.loc.isValid())
    os << sources.name(diag.loc.fileId) << ':' << diag.loc.line << ':'
       << diag.loc.column << ": ";
  os << severityName(diag.severity) << ": " << diag.message << '\n';
  if (!diag.loc.isValid())
    return os.str();
  std::string_view line = sources.lineText(diag.loc.fileId, diag.loc.line);
  os << line << '\n';
  // Tabs in the prefix are kept so the caret lines up in a terminal.
  std::string caret;
  for (uint32_t i = 1; i < diag.loc.column && i <= line.size(); ++i)
    caret += line[i - 1] == '\t' ? '\t' : ' ';
  os << caret << "^\n";
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
