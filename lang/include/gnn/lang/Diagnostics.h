//===- Diagnostics.h - The front end's diagnostic engine --------*- C++ -*-===//
//
// Every error, warning and note of the front end goes through DiagnosticEngine.
// It prints `file:line:col: error: message`, the source line and a caret, keeps
// counting so one run reports every independent error, and in verify mode
// (gnnc --verify-diagnostics) collects diagnostics instead of printing them so
// they can be matched against `// expected-error {{...}}` comments.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_LANG_DIAGNOSTICS_H
#define GNN_LANG_DIAGNOSTICS_H

#include "gnn/lang/SourceManager.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace gnn::lang {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity;
  SourceLoc loc;
  std::string message;
};

class DiagnosticEngine {
public:
  explicit DiagnosticEngine(const SourceManager &sources) : sources(sources) {}

  void error(SourceLoc loc, std::string message) {
    report(Severity::Error, loc, std::move(message));
  }
  void warning(SourceLoc loc, std::string message) {
    report(Severity::Warning, loc, std::move(message));
  }
  /// A note attaches to the preceding error or warning.
  void note(SourceLoc loc, std::string message) {
    report(Severity::Note, loc, std::move(message));
  }
  void report(Severity severity, SourceLoc loc, std::string message);

  unsigned errorCount() const { return numErrors; }
  bool hasErrors() const { return numErrors != 0; }

  /// Print to `out` as they arrive (default: std::cerr). In collect mode
  /// nothing is printed and diagnostics() holds them all.
  void setCollect(bool collect) { collectOnly = collect; }
  void setOutput(std::ostream &out) { this->out = &out; }
  const std::vector<Diagnostic> &diagnostics() const { return collected; }

  /// Formats one diagnostic the way the engine prints it.
  std::string format(const Diagnostic &diag) const;

  /// Caps the number of printed errors so a pathological input stays readable.
  static constexpr unsigned kMaxErrors = 50;

private:
  const SourceManager &sources;
  std::ostream *out = nullptr;
  bool collectOnly = false;
  bool suppressNotes = false;
  unsigned numErrors = 0;
  std::vector<Diagnostic> collected;
};

/// Checks the collected diagnostics of `engine` against the expected-error,
/// expected-warning and expected-note comments in every file of `sources`.
/// Syntax: `// expected-error {{text}}` (same line), `expected-error@+1`,
/// `expected-error@-2` (relative line). Prints each
/// mismatch to `out` and returns true when everything matched.
bool verifyDiagnostics(const SourceManager &sources,
                       const DiagnosticEngine &engine, std::ostream &out);

} // namespace gnn::lang

#endif // GNN_LANG_DIAGNOSTICS_H
